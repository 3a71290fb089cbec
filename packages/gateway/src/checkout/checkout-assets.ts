// The page's style sheet and script, served by the gateway itself under /pay/assets/ (the page asks
// nothing of another origin, and the CSP allows no inline script or style). The script is small
// plain JavaScript: the page works without it (docs/api.md, "The customer's page").

export const CHECKOUT_STYLES = `
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #ffffff; --text: #16181d; --muted: #4a5060;
  --accent: #0b57d0; --accent-text: #ffffff; --border: #c4c9d4; --ok: #146c2e; --warn: #8a4b00; --bad: #b3261e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111318; --card: #1c1f26; --text: #e8eaf0; --muted: #b4bac6; --accent: #a8c7fa;
    --accent-text: #0a1a33; --border: #4a505c; --ok: #7dd491; --warn: #ffb86b; --bad: #ffb4ab; }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 30rem; margin: 0 auto; padding: 1rem; background: var(--card); min-height: 100vh; }
@media (min-width: 32rem) { main { margin: 2rem auto; min-height: 0; border: 1px solid var(--border); border-radius: 12px; } }
header { display: flex; flex-wrap: wrap; align-items: center; gap: .75rem; }
h1 { font-size: 1.375rem; margin: .25rem 0; flex: 1 1 12rem; }
.logo { border-radius: 8px; flex: none; }
.initials { width: 48px; height: 48px; display: inline-flex; align-items: center; justify-content: center;
  color: #ffffff; font-weight: 700; font-size: 1.25rem; letter-spacing: .02em; }
.initials-0 { background: #0b57d0; } .initials-1 { background: #146c2e; } .initials-2 { background: #8a4b00; }
.initials-3 { background: #b3261e; } .initials-4 { background: #6a1b9a; } .initials-5 { background: #00695c; }
h2 { font-size: 1.125rem; margin: 1rem 0 .25rem; }
.summary { margin-top: .5rem; }
.summary .amount { font-size: 1.5rem; font-weight: 700; }
.qr-note { text-align: center; font-weight: 600; margin: 0 0 1rem; }
.hint { flex-basis: 100%; color: var(--muted); font-size: .875rem; margin: 0; }
.help { margin: .5rem 0; }
.receipt ul { list-style: none; padding: 0; margin: .5rem 0; }
.receipt li { padding: .5rem 0; border-bottom: 1px solid var(--border); display: flex; flex-wrap: wrap; gap: .25rem .75rem; }
.receipt a { color: var(--accent); min-height: 24px; display: inline-flex; align-items: center; }
.tx-hash { flex-basis: 100%; font-size: .875rem; }
.cancel { margin-top: 2rem; padding-top: 1rem; border-top: 1px solid var(--border); }
.cancel a { color: var(--text); display: inline-flex; align-items: center; min-height: 44px; }
.description { flex-basis: 100%; margin: 0; color: var(--muted); }
.status { font-weight: 600; padding: .75rem; border-radius: 8px; border: 1px solid var(--border); }
.status-paid, .status-overpaid { color: var(--ok); }
.status-underpaid, .status-seen { color: var(--warn); }
.status-expired, .status-canceled, .status-failed { color: var(--bad); }
.qr { background: #ffffff; padding: .5rem; border-radius: 8px; width: min(100%, 18rem); margin: 1rem auto; border: 1px solid #767676; }
.qr svg { display: block; width: 100%; height: auto; }
dl { margin: 1rem 0; }
dl > div { padding: .5rem 0; border-bottom: 1px solid var(--border); }
dt { color: var(--muted); font-size: .875rem; }
dd { margin: 0; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; }
.mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.address { font-size: .9375rem; }
button, .button { font: inherit; min-height: 44px; min-width: 44px; padding: .5rem 1rem; border-radius: 8px;
  border: 1px solid var(--accent); background: var(--accent); color: var(--accent-text); cursor: pointer;
  text-decoration: none; display: inline-flex; align-items: center; }
button.copy, button.secondary, .button.secondary, #stay { background: transparent; color: var(--text); border-color: var(--border); }
button.danger { background: var(--bad); border-color: var(--bad); color: var(--card); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.warning { color: var(--warn); font-size: .9375rem; }
.reference { color: var(--muted); font-size: .875rem; }
form { margin: 1rem 0; }
/* the refund claim page's address form (refund-claim-page.ts) */
label { display: block; font-weight: 600; margin-top: 1rem; }
input[type="text"] { font: inherit; width: 100%; min-height: 44px; padding: .5rem; margin: .25rem 0; border-radius: 8px;
  border: 1px solid var(--muted); background: var(--card); color: var(--text);
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
input[aria-invalid="true"] { border: 2px solid var(--bad); }
.error { color: var(--bad); font-weight: 600; margin: .25rem 0; }
.confirm-address { font-size: 1.125rem; font-weight: 600; padding: .75rem; border: 1px solid var(--border); border-radius: 8px; }
.status-sent, .status-completed { color: var(--ok); }
.actions { display: flex; flex-wrap: wrap; align-items: center; gap: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (prefers-reduced-motion: reduce) { * { transition: none !important; animation: none !important; } }
`

export const CHECKOUT_SCRIPT = `'use strict'
;(() => {
  const POLL_MS = 2000
  // funds may still arrive at an expired or canceled payment (late funds): asked now and then
  const CLOSED_POLL_MS = 10000
  const FINAL = ['paid', 'overpaid', 'failed']
  const CLOSED = ['expired', 'canceled']
  const delay = () => (CLOSED.includes(main.getAttribute('data-state')) ? CLOSED_POLL_MS : POLL_MS)
  let main = document.getElementById('payment')
  if (!main) return
  const announce = (text) => {
    const region = document.getElementById('announce')
    if (region) region.textContent = text
  }

  // copy buttons: the bare value, announced, focus kept on the button
  document.addEventListener('click', (event) => {
    const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null
    if (!button) return
    navigator.clipboard.writeText(button.getAttribute('data-copy') || '').then(
      () => announce(main.getAttribute('data-copied') || ''),
      () => undefined,
    )
  })

  const wire = () => {
    for (const button of main.querySelectorAll('button[data-copy]')) button.hidden = !navigator.clipboard
    // the countdown, from the server's count of seconds: the device's clock does not matter
    const timer = document.getElementById('time-left')
    if (timer) {
      const deadline = Date.now() + Number(timer.getAttribute('data-seconds')) * 1000
      const tick = () => {
        const seconds = Math.max(0, Math.round((deadline - Date.now()) / 1000))
        const two = (n) => String(n).padStart(2, '0')
        const hours = Math.floor(seconds / 3600)
        const rest = two(Math.floor((seconds % 3600) / 60)) + ':' + two(seconds % 60)
        timer.textContent = hours > 0 ? hours + ':' + rest : rest
      }
      tick()
      clearInterval(window.__chainpayTimer)
      window.__chainpayTimer = setInterval(tick, 1000)
    }
    // after payment, back to the shop after a few seconds, unless the customer stays
    const target = main.getAttribute('data-redirect')
    const stay = document.getElementById('stay')
    if (target && stay) {
      const redirect = setTimeout(() => window.location.assign(target), Number(main.getAttribute('data-redirect-seconds')) * 1000)
      stay.hidden = false
      stay.addEventListener('click', () => {
        clearTimeout(redirect)
        stay.hidden = true
        const note = document.getElementById('redirect-note')
        if (note) note.hidden = true
      })
    }
  }

  // live: the status answers the revision; when it changed, the page is fetched again and swapped in
  const poll = async () => {
    if (FINAL.includes(main.getAttribute('data-state'))) return
    try {
      const response = await fetch(main.getAttribute('data-status-url'), { cache: 'no-store' })
      if (response.ok) {
        const status = await response.json()
        if (String(status.revision) !== main.getAttribute('data-revision')) {
          const page = await fetch(window.location.pathname + window.location.search, { cache: 'no-store' })
          const next = new DOMParser().parseFromString(await page.text(), 'text/html').getElementById('payment')
          if (next) {
            const status = document.getElementById('status')
            const nextStatus = next.querySelector('#status')
            // the live region stays in place and only its text changes, so that it is announced
            if (status && nextStatus) {
              nextStatus.replaceWith(status)
              status.className = nextStatus.className
              status.textContent = nextStatus.textContent
            }
            main.replaceWith(next)
            main = next
            wire()
          }
        }
      }
    } catch {
      // offline for a moment: the next poll tries again
    }
    setTimeout(poll, delay())
  }

  wire()
  setTimeout(poll, delay())
})()
`
