// The dashboard's pages as HTML strings, server-rendered (decisions.md section 23, the page rules of
// section 13): one layout with a skip link, landmarks and a navigation that marks the current page;
// tables with captions and column headers in a focusable scroll region for narrow screens; forms
// with labels, no script. Every value shown is escaped here.

import type { DashboardAuditEntry, DashboardRole, DashboardSession, DashboardUser } from '@chainpay/ports'
import { apiKeyTexts } from './api-key-texts.js'
import type { DashboardLanguage, DashboardTexts } from './dashboard-texts.js'
import { moneyTexts } from './money-texts.js'
import { readingTexts } from './reading-texts.js'
import { webhookTexts } from './webhook-texts.js'

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;')
}

const e = escapeHtml

export interface PageFrame {
  language: DashboardLanguage
  texts: DashboardTexts
  /** the dashboard's path, {PUBLIC_URL path}/dashboard */
  base: string
  /** signed in: who, and the session's CSRF token for the forms */
  user?: { email: string; role: DashboardRole; csrf: string } | undefined
  current?:
    | 'payments'
    | 'volume'
    | 'webhooks'
    | 'audit'
    | 'users'
    | 'sessions'
    | 'refunds'
    | 'api-keys'
    | 'invoices'
    | 'deposits'
    | 'settings'
}

export function csrfField(frame: PageFrame): string {
  return frame.user ? `<input type="hidden" name="csrf" value="${e(frame.user.csrf)}">` : ''
}

export function renderPage(
  frame: PageFrame,
  title: string,
  body: string,
  narrow = false,
  script?: string,
): string {
  const t = frame.texts
  const link = (key: NonNullable<PageFrame['current']>, label: string) =>
    `<li><a href="${frame.base}/${key}"${frame.current === key ? ' aria-current="page"' : ''}>${e(label)}</a></li>`
  const navigation = frame.user
    ? `<nav aria-label="${e(t.nav)}"><ul>
        ${link('payments', t.payments)}
        ${link('invoices', readingTexts[frame.language].invoices)}
        ${link('refunds', moneyTexts[frame.language].refunds)}
        ${link('deposits', readingTexts[frame.language].deposits)}
        ${link('volume', webhookTexts[frame.language].volume)}
        ${link('webhooks', webhookTexts[frame.language].webhooks)}
        ${frame.user.role === 'owner' ? link('users', t.users) + link('audit', t.audit) + link('api-keys', apiKeyTexts[frame.language].apiKeys) : ''}
        ${link('settings', readingTexts[frame.language].settings)}
        ${link('sessions', t.sessions)}
        <li><form class="inline" method="post" action="${frame.base}/sign-out">${csrfField(frame)}<button type="submit" class="secondary">${e(t.signOut)}</button></form></li>
      </ul></nav>
      <p class="who">${e(t.signedInAs(frame.user.email, t.roles[frame.user.role]))}</p>`
    : ''
  return `<!doctype html>
<html lang="${frame.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)} · ${e(t.product)}</title>
<link rel="stylesheet" href="${frame.base}/assets/dashboard.css">
${script ? `<script src="${e(script)}" defer></script>` : ''}
</head>
<body>
<a class="skip" href="#content">${e(t.skip)}</a>
<header class="top"><span class="product">${e(t.product)}</span>${navigation}</header>
<main id="content"${narrow ? ' class="narrow"' : ''}>
<h1>${e(title)}</h1>
${body}
</main>
</body>
</html>`
}

export function message(kind: 'error' | 'ok', text: string): string {
  return `<p class="message ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${e(text)}</p>`
}

export function renderSignIn(
  frame: PageFrame,
  notice?: { kind: 'error' | 'ok'; text: string },
  email = '',
): string {
  const t = frame.texts
  return renderPage(
    frame,
    t.signIn,
    `${notice ? message(notice.kind, notice.text) : ''}
<form class="card" method="post" action="${frame.base}/sign-in?lang=${frame.language}">
  <label for="email">${e(t.email)}</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${e(email)}">
  <label for="password">${e(t.password)}</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <label for="code">${e(t.code)}</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]*" aria-describedby="code-hint">
  <p class="hint" id="code-hint">${e(t.codeHint)}</p>
  <div class="actions"><button type="submit">${e(t.signIn)}</button></div>
</form>`,
    true,
  )
}

export function renderSetup(
  frame: PageFrame,
  input: {
    path: string
    email: string
    totp: { secret: string; uri: string } | null
    problem?: keyof DashboardTexts['problems'] | undefined
  },
): string {
  const t = frame.texts
  const totp = input.totp
    ? `<h2>${e(t.totpTitle)}</h2>
  <p>${e(t.totpIntro)}</p>
  <dl><div><dt>${e(t.totpSecret)}</dt><dd class="mono secret" id="totp-secret">${e(input.totp.secret)}</dd></div>
  <div><dt>${e(t.totpUri)}</dt><dd class="mono"><a href="${e(input.totp.uri)}">${e(input.totp.uri)}</a></dd></div></dl>
  <input type="hidden" name="totpSecret" value="${e(input.totp.secret)}">
  <label for="code">${e(t.code)}</label>
  <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required pattern="[0-9 ]*">`
    : ''
  return renderPage(
    frame,
    t.setupTitle,
    `${input.problem ? message('error', t.problems[input.problem]) : ''}
<form class="card" method="post" action="${e(input.path)}?lang=${frame.language}">
  <p>${e(t.setupIntro(input.email))}</p>
  <input type="text" name="username" autocomplete="username" value="${e(input.email)}" hidden>
  <label for="password">${e(t.password)}</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="256" aria-describedby="password-rule">
  <p class="hint" id="password-rule">${e(t.passwordRule)}</p>
  <label for="confirmation">${e(t.passwordAgain)}</label>
  <input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required>
  ${totp}
  <div class="actions"><button type="submit">${e(t.setupSave)}</button></div>
</form>`,
    true,
  )
}

export interface PaymentRow {
  paymentId: string
  status: string
  amount: string
  currency: string
  network: string
  address: string
  createdAt: string
}

export interface PaymentFilters {
  q: string
  status: string
  network: string
  currency: string
  createdFrom: string
  createdTo: string
}

export function renderPayments(
  frame: PageFrame,
  input: {
    filters: PaymentFilters
    statuses: readonly string[]
    rows: PaymentRow[]
    nextHref: string | null
    problem?: string | undefined
  },
): string {
  const t = frame.texts
  const { filters } = input
  const field = (name: keyof PaymentFilters, label: string, type = 'text') =>
    `<div><label for="f-${name}">${e(label)}</label><input id="f-${name}" name="${name}" type="${type}" value="${e(filters[name])}"></div>`
  const options = input.statuses
    .map(
      (status) =>
        `<option value="${e(status)}"${status === filters.status ? ' selected' : ''}>${e(status)}</option>`,
    )
    .join('')
  const rows = input.rows
    .map(
      (row) => `<tr>
  <td>${e(row.createdAt.replace('T', ' ').slice(0, 19))}</td>
  <td class="mono"><a href="${frame.base}/payments/${e(row.paymentId)}">${e(row.paymentId)}</a></td>
  <td class="status status-${e(row.status)}">${e(row.status)}</td>
  <td class="num">${e(row.amount)} ${e(row.currency)}</td>
  <td>${e(row.network)}</td>
  <td class="mono">${e(row.address)}</td>
</tr>`,
    )
    .join('\n')
  const table =
    input.rows.length === 0
      ? `<p role="status">${e(t.noPayments)}</p>`
      : `<div class="scroll" tabindex="0" role="region" aria-labelledby="payments-caption"><table>
<caption id="payments-caption">${e(t.paymentsTable)}</caption>
<thead><tr><th scope="col">${e(t.created)}</th><th scope="col">${e(t.payment)}</th><th scope="col">${e(t.status)}</th><th scope="col" class="num">${e(t.amount)}</th><th scope="col">${e(t.network)}</th><th scope="col">${e(t.address)}</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`
  return renderPage(
    frame,
    t.payments,
    `<form class="card" method="get" action="${frame.base}/payments" role="search">
  <label for="f-q">${e(t.searchLabel)}</label>
  <input id="f-q" name="q" type="search" value="${e(filters.q)}" class="mono">
  <h2>${e(t.filters)}</h2>
  <div class="filters">
    <div><label for="f-status">${e(t.status)}</label><select id="f-status" name="status"><option value="">${e(t.anyStatus)}</option>${options}</select></div>
    ${field('network', t.network)}
    ${field('currency', t.currency)}
    ${field('createdFrom', t.createdFrom, 'date')}
    ${field('createdTo', t.createdTo, 'date')}
  </div>
  <input type="hidden" name="lang" value="${frame.language}">
  <div class="actions"><button type="submit">${e(t.search)}</button><a class="button secondary" href="${frame.base}/payments?lang=${frame.language}">${e(t.reset)}</a></div>
</form>
<p><a class="button secondary" id="export-csv" href="${e(exportHref(frame, filters))}" download>${e(webhookTexts[frame.language].exportCsv)}</a></p>
${input.problem ? message('error', t.invalidFilter(input.problem)) : ''}
${table}
${input.nextHref ? `<p><a class="button secondary" href="${e(input.nextHref)}">${e(t.next)}</a></p>` : ''}`,
  )
}

/** the CSV export of the list's filters (the search field is not a filter: ops-routes.ts) */
function exportHref(frame: PageFrame, filters: PaymentFilters): string {
  const query = new URLSearchParams({ lang: frame.language })
  for (const name of ['status', 'network', 'currency', 'createdFrom', 'createdTo'] as const) {
    if (filters[name] !== '') query.set(name, filters[name])
  }
  return `${frame.base}/payments.csv?${query}`
}

const HISTORY_FIELDS = new Set([
  'txHash',
  'transferIndex',
  'confirmations',
  'final',
  'reason',
  'amount',
  'address',
  'status',
  'network',
  'currency',
  'refundId',
  'expiresAt',
])

export interface HistoryRow {
  type: string
  occurredAt: string
  data: Record<string, unknown>
}

export function renderPaymentDetail(
  frame: PageFrame,
  input: {
    fields: [label: string, value: string, mono?: boolean][]
    checkoutUrl: string
    history: HistoryRow[]
    /** an owner's link to the payment's refund form (money-routes.ts) */
    refundHref?: string | undefined
    /** the payment's webhook deliveries (ops-routes.ts) */
    deliveriesHref?: string | undefined
    /** while the payment can change: what the live script watches (live-updates.ts) */
    live?: { statusUrl: string; revision: number } | undefined
  },
): string {
  const t = frame.texts
  const fields = input.fields
    .map(
      ([label, value, mono]) =>
        `<div><dt>${e(label)}</dt><dd${mono ? ' class="mono"' : ''}>${e(value)}</dd></div>`,
    )
    .join('\n')
  // what support reads of an event; the whole of it is GET /payments/{id}/events
  const details = (data: Record<string, unknown>) =>
    Object.entries(data)
      .filter(
        ([key, value]) =>
          HISTORY_FIELDS.has(key) && value !== null && value !== undefined && typeof value !== 'object',
      )
      .map(([key, value]) => `${key}: ${String(value)}`)
      .join(' · ')
  const history = input.history
    .map(
      (row) =>
        `<li><span class="mono">${e(row.type)}</span> <span class="when">${e(row.occurredAt.replace('T', ' ').slice(0, 19))}</span>${
          details(row.data) === '' ? '' : `<br><span class="mono details">${e(details(row.data))}</span>`
        }</li>`,
    )
    .join('\n')
  return renderPage(
    frame,
    t.detail,
    `<section class="card" aria-labelledby="summary-title"${
      input.live ? ` data-status-url="${e(input.live.statusUrl)}" data-revision="${input.live.revision}"` : ''
    }><h2 id="summary-title">${e(t.detail)}</h2><dl>
${fields}
<div><dt>${e(t.checkoutPage)}</dt><dd class="mono"><a href="${e(input.checkoutUrl)}">${e(input.checkoutUrl)}</a></dd></div>
</dl>${input.refundHref ? `<div class="actions"><a class="button" href="${e(input.refundHref)}">${e(moneyTexts[frame.language].newRefund)}</a></div>` : ''}</section>
${input.deliveriesHref ? `<p><a href="${e(input.deliveriesHref)}">${e(webhookTexts[frame.language].deliveries)}</a></p>` : ''}
<section aria-labelledby="history-title"><h2 id="history-title">${e(t.history)}</h2>
<p class="hint">${e(t.historyTable)}</p>
<ol class="history">
${history}
</ol></section>`,
    false,
    input.live ? `${frame.base}/assets/live.js` : undefined,
  )
}

export function renderAudit(
  frame: PageFrame,
  entries: DashboardAuditEntry[],
  olderHref: string | null,
): string {
  const t = frame.texts
  const rows = entries
    .map(
      (entry) =>
        `<tr><td>${e(entry.at.replace('T', ' ').slice(0, 19))}</td><td>${e(entry.actor)}</td><td class="mono">${e(entry.action)}</td><td>${e(entry.subject)}</td></tr>`,
    )
    .join('\n')
  return renderPage(
    frame,
    t.audit,
    `<div class="scroll" tabindex="0" role="region" aria-labelledby="audit-caption"><table>
<caption id="audit-caption">${e(t.auditTable)}</caption>
<thead><tr><th scope="col">${e(t.when)}</th><th scope="col">${e(t.actor)}</th><th scope="col">${e(t.action)}</th><th scope="col">${e(t.subject)}</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
${olderHref ? `<p><a class="button secondary" href="${e(olderHref)}">${e(t.older)}</a></p>` : ''}`,
  )
}

export function renderSessions(frame: PageFrame, sessions: DashboardSession[], currentHash: string): string {
  const t = frame.texts
  const rows = sessions
    .map((session) => {
      const action =
        session.sessionHash === currentHash
          ? e(t.thisSession)
          : `<form class="inline" method="post" action="${frame.base}/sessions/${e(session.sessionHash)}/revoke">${csrfField(frame)}<button type="submit" class="danger">${e(t.revoke)}</button></form>`
      return `<tr><td>${e(session.createdAt.replace('T', ' ').slice(0, 19))}</td><td>${e(session.lastSeenAt.replace('T', ' ').slice(0, 19))}</td><td>${e(session.userAgent)}</td><td>${action}</td></tr>`
    })
    .join('\n')
  return renderPage(
    frame,
    t.sessions,
    `<p>${e(t.sessionsIntro)}</p>
<div class="scroll" tabindex="0" role="region" aria-labelledby="sessions-caption"><table>
<caption id="sessions-caption">${e(t.sessionsTable)}</caption>
<thead><tr><th scope="col">${e(t.started)}</th><th scope="col">${e(t.lastSeen)}</th><th scope="col">${e(t.browser)}</th><th scope="col"><span class="skip">${e(t.revoke)}</span></th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`,
  )
}

export function renderUsers(
  frame: PageFrame,
  users: DashboardUser[],
  added?: { email: string; setupUrl: string } | undefined,
  problem?: string | undefined,
): string {
  const t = frame.texts
  const stateOf = (user: DashboardUser) =>
    !user.enabled ? t.disabled : user.passwordHash === null ? t.pending : t.active
  const roleOptions = (selected: DashboardRole | null) =>
    (['viewer', 'developer', 'owner'] as const)
      .map(
        (role) =>
          `<option value="${role}"${role === selected ? ' selected' : ''}>${e(t.roles[role])}</option>`,
      )
      .join('')
  const rows = users
    .map((user) => {
      const action = `${frame.base}/users/${e(user.userId)}`
      const roleLabel = `${t.role}: ${user.email}`
      const change = `<form class="inline" method="post" action="${action}/role">${csrfField(frame)}<select name="role" aria-label="${e(roleLabel)}">${roleOptions(user.role)}</select> <button type="submit" class="secondary">${e(t.change)}</button></form>`
      const toggle = `<form class="inline" method="post" action="${action}/${user.enabled ? 'disable' : 'enable'}">${csrfField(frame)}<button type="submit" class="${user.enabled ? 'danger' : 'secondary'}" aria-label="${e(`${user.enabled ? t.disable : t.enable}: ${user.email}`)}">${e(user.enabled ? t.disable : t.enable)}</button></form>`
      const reset = `<form class="inline" method="post" action="${action}/reset">${csrfField(frame)}<button type="submit" class="secondary" aria-label="${e(`${t.newSetupLink}: ${user.email}`)}">${e(t.newSetupLink)}</button></form>`
      // another user's sessions (a lost laptop, someone leaving): ended without disabling the user
      const signOut =
        user.email === frame.user?.email
          ? ''
          : ` <form class="inline" method="post" action="${action}/sign-out">${csrfField(frame)}<button type="submit" class="secondary" aria-label="${e(`${t.endSessions}: ${user.email}`)}">${e(t.endSessions)}</button></form>`
      return `<tr><td>${e(user.email)}</td><td>${change}</td><td>${e(stateOf(user))}</td><td>${toggle} ${reset}${signOut}</td></tr>`
    })
    .join('\n')
  return renderPage(
    frame,
    t.users,
    `${added ? `${message('ok', t.setupLinkOnce(added.email))}<p class="mono card" id="setup-link">${e(added.setupUrl)}</p>` : ''}
${problem ? message('error', problem) : ''}
<div class="scroll" tabindex="0" role="region" aria-labelledby="users-caption"><table>
<caption id="users-caption">${e(t.usersTable)}</caption>
<thead><tr><th scope="col">${e(t.email)}</th><th scope="col">${e(t.role)}</th><th scope="col">${e(t.state)}</th><th scope="col"><span class="skip">${e(t.disable)}</span></th></tr></thead>
<tbody>
${rows}
</tbody></table></div>
<form class="card" method="post" action="${frame.base}/users">
  <h2>${e(t.addUser)}</h2>
  ${csrfField(frame)}
  <label for="new-email">${e(t.email)}</label>
  <input id="new-email" name="email" type="email" required>
  <label for="new-role">${e(t.role)}</label>
  <select id="new-role" name="role">${roleOptions(null)}</select>
  <div class="actions"><button type="submit">${e(t.add)}</button></div>
</form>`,
  )
}

export function renderMessagePage(
  frame: PageFrame,
  title: string,
  text: string,
  kind: 'error' | 'ok' = 'error',
): string {
  return renderPage(frame, title, message(kind, text), true)
}
