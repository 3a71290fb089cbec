// The dashboard's one style sheet, served from its own origin under /dashboard/assets/ (the CSP
// allows no inline style). Light and dark by prefers-color-scheme, from 360 px wide up; no script.

export const DASHBOARD_STYLES = `
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #ffffff; --text: #16181d; --muted: #4a5060;
  --accent: #0b57d0; --accent-text: #ffffff; --border: #c4c9d4; --ok: #146c2e; --warn: #8a4b00; --bad: #b3261e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111318; --card: #1c1f26; --text: #e8eaf0; --muted: #b4bac6; --accent: #a8c7fa;
    --accent-text: #0a1a33; --border: #4a505c; --ok: #7dd491; --warn: #ffb86b; --bad: #ffb4ab; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.skip { position: absolute; left: -10000px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--card); padding: .5rem; z-index: 1; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1rem; padding: .5rem 1rem;
  background: var(--card); border-bottom: 1px solid var(--border); }
header.top .product { font-weight: 700; margin-right: auto; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem .75rem; margin: 0; padding: 0; }
nav a, a { color: var(--accent); }
nav a { display: inline-flex; align-items: center; min-height: 44px; padding: 0 .25rem; }
nav a[aria-current="page"] { color: var(--text); font-weight: 700; }
.who { color: var(--muted); font-size: .875rem; flex-basis: 100%; margin: 0; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
main.narrow { max-width: 28rem; }
.card { background: var(--card); border: 1px solid var(--border); border-radius: 12px; padding: 1rem; margin: 1rem 0; }
h1 { font-size: 1.5rem; margin: .5rem 0; }
h2 { font-size: 1.125rem; margin: 1rem 0 .5rem; }
label { display: block; font-weight: 600; margin-top: .75rem; }
input, select { font: inherit; color: var(--text); background: var(--card); border: 1px solid var(--muted);
  border-radius: 8px; padding: .5rem; min-height: 44px; width: 100%; }
.hint { color: var(--muted); font-size: .875rem; margin: .25rem 0 0; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 0 1rem; align-items: end; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: 1rem; align-items: center; }
button, .button { font: inherit; min-height: 44px; min-width: 44px; padding: .5rem 1rem; border-radius: 8px;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); cursor: pointer;
  text-decoration: none; display: inline-flex; align-items: center; }
button.secondary, .button.secondary { background: transparent; color: var(--text); border-color: var(--border); }
button.danger { background: var(--bad); border-color: var(--bad); color: var(--card); }
form.inline { display: inline; margin: 0; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; font-weight: 600; padding: .5rem 0; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--border); vertical-align: top; }
th { color: var(--muted); font-size: .875rem; font-weight: 600; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.num { text-align: right; white-space: nowrap; }
.nowrap { white-space: nowrap; }
ol.history { list-style: none; padding: 0; margin: 0; }
ol.history li { padding: .5rem 0; border-bottom: 1px solid var(--border); }
.when, .details { color: var(--muted); font-size: .875rem; }
.status { font-weight: 600; }
.status-confirmed, .status-overpaid { color: var(--ok); }
.status-pending, .status-underpaid { color: var(--warn); }
.status-expired, .status-canceled, .status-failed { color: var(--bad); }
dl { margin: 0; }
dl > div { padding: .5rem 0; border-bottom: 1px solid var(--border); }
dt { color: var(--muted); font-size: .875rem; }
dd { margin: 0; }
.message { padding: .75rem; border-radius: 8px; border: 1px solid var(--border); font-weight: 600; }
.message.error { color: var(--bad); border-color: var(--bad); }
.message.ok { color: var(--ok); border-color: var(--ok); }
.secret { font-size: 1.125rem; letter-spacing: .05em; }
.chart { display: block; height: 10rem; color: var(--accent); margin: .5rem 0; }
`
