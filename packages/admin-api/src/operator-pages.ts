// The operator's pages as HTML strings (docs/operations.md, "The operator's views"), under the
// merchant dashboard's page rules (decisions.md sections 13 and 23) and with its style sheet: a skip
// link, landmarks, a navigation marking the current page, tables with captions in focusable scroll
// regions for 360 px screens, labelled forms, no script. Every value shown is escaped here.

import type { ApiKeyView, BalanceRow, MerchantView, OutgoingRow } from '@chainpay/contracts'
import { type DashboardLanguage, escapeHtml as e } from '@chainpay/dashboard'
import type { DashboardAuditEntry, DashboardSession, DashboardUser } from '@chainpay/ports'
import type { OperatorTexts } from './operator-texts.js'

export type OperatorArea = 'merchants' | 'balances' | 'outgoing' | 'sessions' | 'audit'

export interface OperatorFrame {
  language: DashboardLanguage
  texts: OperatorTexts
  /** /admin/dashboard */
  base: string
  /** signed in: the session's CSRF token for the forms */
  csrf?: string | undefined
  current?: OperatorArea | undefined
}

const csrfField = (frame: OperatorFrame) =>
  frame.csrf ? `<input type="hidden" name="csrf" value="${e(frame.csrf)}">` : ''

const href = (frame: OperatorFrame, path: string) =>
  `${frame.base}/${path}${path.includes('?') ? '&' : '?'}lang=${frame.language}`

export function renderOperatorPage(
  frame: OperatorFrame,
  title: string,
  body: string,
  narrow = false,
): string {
  const t = frame.texts
  const link = (area: OperatorArea) =>
    `<li><a href="${e(href(frame, area))}"${frame.current === area ? ' aria-current="page"' : ''}>${e(t[area])}</a></li>`
  const navigation = frame.csrf
    ? `<nav aria-label="${e(t.nav)}"><ul>
        ${(['merchants', 'balances', 'outgoing', 'sessions', 'audit'] as const).map(link).join('')}
        <li><form class="inline" method="post" action="${frame.base}/sign-out">${csrfField(frame)}<button type="submit" class="secondary">${e(t.signOut)}</button></form></li>
      </ul></nav>
      <p class="who">${e(t.signedIn)}</p>`
    : ''
  return `<!doctype html>
<html lang="${frame.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${e(title)} · ${e(t.product)}</title>
<link rel="stylesheet" href="${frame.base}/assets/dashboard.css">
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

export function operatorMessage(kind: 'error' | 'ok', text: string): string {
  return `<p class="message ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${e(text)}</p>`
}

/** a table in a focusable scroll region, named by its caption; amounts' columns aligned right */
function table(
  id: string,
  caption: string,
  headers: string[],
  rows: string[][],
  empty: string,
  amountColumns: readonly number[] = [],
): string {
  if (rows.length === 0) return `<p>${e(empty)}</p>`
  const align = (index: number) => (amountColumns.includes(index) ? ' class="num"' : '')
  return `<div class="scroll" role="region" aria-labelledby="${id}" tabindex="0"><table>
<caption id="${id}">${e(caption)}</caption>
<thead><tr>${headers.map((header, index) => `<th scope="col"${align(index)}>${e(header)}</th>`).join('')}</tr></thead>
<tbody>${rows.map((cells) => `<tr>${cells.map((cell, index) => `<td${align(index)}>${cell}</td>`).join('')}</tr>`).join('\n')}</tbody>
</table></div>`
}

export function renderOperatorSignIn(frame: OperatorFrame, notice?: string): string {
  const t = frame.texts
  return renderOperatorPage(
    frame,
    t.signIn,
    `${notice ? operatorMessage('error', notice) : ''}
<form class="card" method="post" action="${frame.base}/sign-in?lang=${frame.language}">
  <label for="token">${e(t.token)}</label>
  <input id="token" name="token" type="password" autocomplete="current-password" required aria-describedby="token-hint">
  <p class="hint" id="token-hint">${e(t.tokenHint)}</p>
  <div class="actions"><button type="submit">${e(t.signIn)}</button></div>
</form>`,
    true,
  )
}

export function renderOperatorMessage(frame: OperatorFrame, title: string, text: string): string {
  return renderOperatorPage(frame, title, operatorMessage('error', text), true)
}

export function renderMerchants(frame: OperatorFrame, merchants: MerchantView[]): string {
  const t = frame.texts
  const rows = merchants.map((merchant) => [
    `<a href="${e(href(frame, `merchants/${encodeURIComponent(merchant.merchantId)}`))}">${e(merchant.displayName ?? merchant.name)}</a>`,
    `<span class="mono">${e(merchant.merchantId)}</span>`,
    `<span class="nowrap">${e(`${merchant.feePolicy.feeBps / 100} %`)}</span>`,
    `<span class="nowrap">${e(merchant.createdAt.slice(0, 16).replace('T', ' '))}</span>`,
  ])
  return renderOperatorPage(
    frame,
    t.merchants,
    table('merchants', t.merchantsTable, [t.name, 'ID', t.fee, t.created], rows, t.noMerchants),
  )
}

export interface MerchantBalanceView {
  network: string
  currency: string
  receivedNetAmount: string
  refundedAmount: string
  paidOutAmount: string
  availableAmount: string
}

function balanceTable(frame: OperatorFrame, id: string, caption: string, balances: MerchantBalanceView[]) {
  const t = frame.texts
  const num = (text: string) => `<span class="num mono">${e(text)}</span>`
  return table(
    id,
    caption,
    [t.network, t.currency, t.receivedNet, t.refunded, t.paidOut, t.available],
    balances.map((balance) => [
      e(balance.network),
      e(balance.currency),
      num(balance.receivedNetAmount),
      num(balance.refundedAmount),
      num(balance.paidOutAmount),
      num(balance.availableAmount),
    ]),
    t.noBalances,
    [2, 3, 4, 5],
  )
}

export function renderMerchantDetail(
  frame: OperatorFrame,
  input: {
    merchant: MerchantView
    apiKeys: ApiKeyView[]
    walletId: string | null
    users: DashboardUser[]
    balances: MerchantBalanceView[]
    added?: { email: string; setupUrl: string } | undefined
    problem?: string | undefined
  },
): string {
  const t = frame.texts
  const { merchant } = input
  const path = `${frame.base}/merchants/${encodeURIComponent(merchant.merchantId)}`
  const fields: [string, string, boolean?][] = [
    ['ID', merchant.merchantId, true],
    [t.name, merchant.name],
    [t.fee, `${merchant.feePolicy.feeBps / 100} %`],
    [t.tolerance, `${merchant.underpaymentTolerancePercent} %`],
    [t.webhookUrl, merchant.webhookUrl ?? '—', true],
    [t.wallet, input.walletId === null ? t.operatorWallet : t.ownWallet(input.walletId)],
    [t.created, merchant.createdAt],
  ]
  const keys = table(
    'api-keys',
    t.apiKeysTable,
    [t.apiKey, t.status, t.created, t.expires, t.revoked],
    input.apiKeys.map((key) => [
      `<span class="mono">${e(key.apiKey)}</span>`,
      e(t.keyStatus[key.status]),
      `<span class="nowrap">${e(key.createdAt)}</span>`,
      e(key.expiresAt ?? '—'),
      e(key.revokedAt ?? '—'),
    ]),
    '—',
  )
  const users = table(
    'users',
    t.usersCaption,
    [t.email, t.role, t.state, ''],
    input.users.map((user) => [
      e(user.email),
      e(t.roles[user.role]),
      e(!user.enabled ? t.disabled : user.passwordHash === null ? t.pending : t.active),
      `<form class="inline" method="post" action="${e(path)}/users/reset?lang=${frame.language}">${csrfField(frame)}<input type="hidden" name="email" value="${e(user.email)}"><button type="submit" class="secondary" aria-label="${e(`${t.newSetupLink}: ${user.email}`)}">${e(t.newSetupLink)}</button></form>`,
    ]),
    t.noUsers,
  )
  const added = input.added
    ? `<div class="message ok" role="status"><p>${e(t.setupLinkOnce(input.added.email))}</p><p class="mono secret">${e(input.added.setupUrl)}</p></div>`
    : ''
  return renderOperatorPage(
    frame,
    merchant.displayName ?? merchant.name,
    `${input.problem ? operatorMessage('error', input.problem) : ''}${added}
<h2>${e(t.balances)}</h2>
${balanceTable(frame, 'balances', t.balancesTable, input.balances)}
<h2>${e(t.usersTable)}</h2>
${users}
<form class="card" method="post" action="${e(path)}/users?lang=${frame.language}">
  <h2>${e(t.addUser)}</h2>
  ${csrfField(frame)}
  <label for="email">${e(t.email)}</label>
  <input id="email" name="email" type="email" autocomplete="off" required>
  <label for="role">${e(t.role)}</label>
  <select id="role" name="role">${(['owner', 'developer', 'viewer'] as const).map((role) => `<option value="${role}">${e(t.roles[role])}</option>`).join('')}</select>
  <div class="actions"><button type="submit">${e(t.add)}</button></div>
</form>
<h2>${e(t.apiKeys)}</h2>
${keys}
<section class="card" aria-labelledby="merchant-fields"><h2 id="merchant-fields">${e(t.merchant)}</h2><dl>
${fields.map(([label, value, mono]) => `<div><dt>${e(label)}</dt><dd${mono ? ' class="mono"' : ''}>${e(value)}</dd></div>`).join('\n')}
</dl></section>`,
  )
}

export function renderBalances(
  frame: OperatorFrame,
  input: {
    perMerchant: { merchant: MerchantView; balances: MerchantBalanceView[] }[]
    addresses: BalanceRow[]
    nextHref: string | null
  },
): string {
  const t = frame.texts
  const merchants = input.perMerchant
    .map(
      ({ merchant, balances }, index) =>
        `<h2><a href="${e(href(frame, `merchants/${encodeURIComponent(merchant.merchantId)}`))}">${e(merchant.displayName ?? merchant.name)}</a></h2>
${balanceTable(frame, `balances-${index}`, `${t.balancesTable}: ${merchant.displayName ?? merchant.name}`, balances)}`,
    )
    .join('\n')
  const addresses = table(
    'addresses',
    t.sweepsTable,
    [t.merchant, t.payment, t.network, t.address, t.currency, t.received, t.swept],
    input.addresses.map((row) => [
      `<span class="mono">${e(row.merchantId)}</span>`,
      // a customer's deposit has no payment: its id, named as such
      `<span class="mono">${e(row.paymentId ?? `deposit ${row.depositId ?? ''}`)}</span>`,
      e(row.network),
      `<span class="mono">${e(row.address)}</span>`,
      e(row.currency),
      `<span class="num mono">${e(row.received)}</span>`,
      `<span class="num mono">${e(row.swept)}</span>`,
    ]),
    t.noSweeps,
    [5, 6],
  )
  const next = input.nextHref ? `<p><a href="${e(input.nextHref)}">${e(t.next)}</a></p>` : ''
  return renderOperatorPage(
    frame,
    t.balances,
    `${merchants || `<p>${e(t.noMerchants)}</p>`}\n<h2>${e(t.sweepsTable)}</h2>\n${addresses}${next}`,
  )
}

export function renderOutgoing(
  frame: OperatorFrame,
  perNetwork: { network: string; rows: OutgoingRow[] }[],
): string {
  const t = frame.texts
  const sections = perNetwork
    .map(({ network, rows }, index) =>
      table(
        `outgoing-${index}`,
        t.outgoingTable(network),
        [t.kind, 'ID', t.merchant, t.amount, t.to, t.status, t.plan, t.created],
        rows.map((row) => [
          e(t.kinds[row.kind]),
          `<span class="mono">${e(row.id)}</span>`,
          `<a href="${e(href(frame, `merchants/${encodeURIComponent(row.merchantId)}`))}" class="mono">${e(row.merchantId)}</a>`,
          `<span class="num mono">${e(`${row.amount} ${row.currency}`)}</span>`,
          `<span class="mono">${e(row.address ?? '—')}</span>`,
          e(row.status),
          `<span class="mono">${e(row.planId ?? '—')}</span>`,
          `<span class="nowrap">${e(row.createdAt)}</span>`,
        ]),
        `${network}: ${t.noOutgoing}`,
        [3],
      ),
    )
    .join('\n')
  return renderOperatorPage(frame, t.outgoing, `<p>${e(t.outgoingIntro)}</p>\n${sections}`)
}

export function renderOperatorSessions(
  frame: OperatorFrame,
  sessions: DashboardSession[],
  currentHash: string,
): string {
  const t = frame.texts
  const rows = sessions.map((session) => [
    `<span class="nowrap">${e(session.createdAt)}</span>`,
    `<span class="nowrap">${e(session.lastSeenAt)}</span>`,
    e(session.userAgent),
    session.sessionHash === currentHash
      ? e(t.thisSession)
      : `<form class="inline" method="post" action="${frame.base}/sessions/${e(session.sessionHash)}/revoke?lang=${frame.language}">${csrfField(frame)}<button type="submit" class="secondary" aria-label="${e(`${t.revoke}: ${session.createdAt}`)}">${e(t.revoke)}</button></form>`,
  ])
  return renderOperatorPage(
    frame,
    t.sessions,
    `<p>${e(t.sessionsIntro)}</p>${table('sessions', t.sessionsTable, [t.started, t.lastSeen, t.browser, ''], rows, '—')}`,
  )
}

export function renderOperatorAudit(
  frame: OperatorFrame,
  entries: DashboardAuditEntry[],
  olderHref: string | null,
): string {
  const t = frame.texts
  const rows = entries.map((entry) => [
    `<span class="nowrap">${e(entry.at)}</span>`,
    e(entry.actor),
    `<span class="mono">${e(entry.action)}</span>`,
    e(entry.subject),
  ])
  const older = olderHref ? `<p><a href="${e(olderHref)}">${e(t.older)}</a></p>` : ''
  return renderOperatorPage(
    frame,
    t.audit,
    `${table('audit', t.auditTable, [t.when, t.actor, t.action, t.subject], rows, '—')}${older}`,
  )
}
