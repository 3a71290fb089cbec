// The refunds, payouts and balances pages (docs/dashboard.md, "Refunds and payouts"): the merchant's
// balance per asset, the refunds and payouts with a status filter, a payout form and cancel buttons
// for owners, and a payment's refund form. Same layout and rules as dashboard-pages.ts; every value
// escaped; each create form carries a fresh idempotency key, so a double submit creates one.

import type { PayoutView, RefundView } from '@chainpay/domain'
import { csrfField, escapeHtml as e, message, type PageFrame, renderPage } from './dashboard-pages.js'
import type { MoneyTexts } from './money-texts.js'

export interface BalanceRow {
  network: string
  currency: string
  receivedNetAmount: string
  refundedAmount: string
  paidOutAmount: string
  availableAmount: string
}

export interface MoneyNotice {
  kind: 'ok' | 'error'
  text: string
  /** a refund's claim link, shown with the notice */
  claimUrl?: string | null | undefined
}

/** states in which a refund or payout may still be canceled (decisions.md section 20) */
const CANCELABLE = new Set(['awaiting_address', 'ready'])

export function renderRefunds(
  frame: PageFrame,
  m: MoneyTexts,
  input: {
    balances: BalanceRow[]
    refunds: RefundView[]
    payouts: PayoutView[]
    /** the next, older page of each list; null: none */
    olderRefundsHref?: string | null | undefined
    olderPayoutsHref?: string | null | undefined
    status: string
    statuses: readonly string[]
    mayMoveMoney: boolean
    idempotencyKey: string
    notice?: MoneyNotice | undefined
  },
): string {
  const t = frame.texts
  const lang = `lang=${frame.language}`
  const cancel = (path: string, status: string) =>
    input.mayMoveMoney && CANCELABLE.has(status)
      ? `<form class="inline" method="post" action="${frame.base}/${path}/cancel?${lang}">${csrfField(frame)}<button type="submit" class="secondary">${e(m.cancel)}</button></form>`
      : ''
  const table = (id: string, caption: string, head: string[], rows: string[], empty: string) =>
    rows.length === 0
      ? `<p role="status">${e(empty)}</p>`
      : `<div class="scroll" tabindex="0" role="region" aria-labelledby="${id}"><table>
<caption id="${id}">${e(caption)}</caption>
<thead><tr>${head.map((cell) => `<th scope="col">${e(cell)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>`
  const older = (href: string | null | undefined, label: string) =>
    href ? `<p><a class="button secondary" href="${e(href)}">${e(label)}</a></p>` : ''
  const day = (at: string) => at.replace('T', ' ').slice(0, 19)
  const balances = table(
    'balances-caption',
    m.balancesTable,
    [t.network, t.currency, m.receivedNet, m.refunded, m.paidOut, m.available],
    input.balances.map(
      (row) =>
        `<tr><td>${e(row.network)}</td><td>${e(row.currency)}</td><td class="num">${e(row.receivedNetAmount)}</td><td class="num">${e(row.refundedAmount)}</td><td class="num">${e(row.paidOutAmount)}</td><td class="num">${e(row.availableAmount)}</td></tr>`,
    ),
    m.noBalances,
  )
  const refunds = table(
    'refunds-caption',
    m.refundsTable,
    [t.created, m.refund, t.payment, t.status, t.amount, t.address, ''],
    input.refunds.map(
      (refund) => `<tr><td>${e(day(refund.createdAt))}</td><td class="mono">${e(refund.refundId)}</td>
<td class="mono"><a href="${frame.base}/payments/${e(refund.paymentId)}?${lang}">${e(refund.paymentId)}</a></td>
<td class="status status-${e(refund.status)}">${e(refund.status)}</td><td class="num">${e(refund.amount)} ${e(refund.currency)}</td>
<td class="mono">${refund.address !== null ? e(refund.address) : refund.claimUrl !== null ? `<a href="${e(refund.claimUrl)}">${e(m.claimLink)}</a>` : '—'}</td>
<td>${cancel(`refunds/${refund.refundId}`, refund.status)}</td></tr>`,
    ),
    m.noRefunds,
  )
  const payouts = table(
    'payouts-caption',
    m.payoutsTable,
    [t.created, m.payout, t.status, t.amount, t.network, t.address, ''],
    input.payouts.map(
      (payout) => `<tr><td>${e(day(payout.createdAt))}</td><td class="mono">${e(payout.payoutId)}</td>
<td class="status status-${e(payout.status)}">${e(payout.status)}</td><td class="num">${e(payout.amount)} ${e(payout.currency)}</td>
<td>${e(payout.network)}</td><td class="mono">${e(payout.address ?? '—')}</td>
<td>${cancel(`payouts/${payout.payoutId}`, payout.status)}</td></tr>`,
    ),
    m.noPayouts,
  )
  const options = input.statuses
    .map(
      (status) =>
        `<option value="${e(status)}"${status === input.status ? ' selected' : ''}>${e(status)}</option>`,
    )
    .join('')
  const payoutForm = input.mayMoveMoney
    ? `<h2 id="new-payout">${e(m.newPayout)}</h2>
<form class="card" method="post" action="${frame.base}/payouts?${lang}" aria-labelledby="new-payout">
  ${csrfField(frame)}
  <input type="hidden" name="idempotencyKey" value="${e(input.idempotencyKey)}">
  <div class="filters">
    <div><label for="p-network">${e(t.network)}</label><input id="p-network" name="network" required></div>
    <div><label for="p-currency">${e(t.currency)}</label><input id="p-currency" name="currency" required></div>
    <div><label for="p-amount">${e(t.amount)}</label><input id="p-amount" name="amount" inputmode="decimal" required></div>
  </div>
  <label for="p-address">${e(t.address)}</label>
  <input id="p-address" name="address" class="mono" required>
  <div class="actions"><button type="submit">${e(m.createPayout)}</button></div>
</form>`
    : ''
  return renderPage(
    frame,
    m.refunds,
    `${noticeOf(m, input.notice)}
<h2>${e(m.balances)}</h2>
${balances}
<form class="card" method="get" action="${frame.base}/refunds">
  <label for="f-status">${e(t.status)}</label>
  <select id="f-status" name="status"><option value="">${e(t.anyStatus)}</option>${options}</select>
  <input type="hidden" name="lang" value="${frame.language}">
  <div class="actions"><button type="submit">${e(m.filter)}</button></div>
</form>
<h2>${e(m.refundsTable)}</h2>
${refunds}
${older(input.olderRefundsHref, m.olderRefunds)}
<h2>${e(m.payoutsTable)}</h2>
${payouts}
${older(input.olderPayoutsHref, m.olderPayouts)}
${payoutForm}`,
  )
}

export function renderRefundForm(
  frame: PageFrame,
  m: MoneyTexts,
  input: {
    paymentId: string
    summary: string
    idempotencyKey: string
    values?: { amount: string; address: string; reason: string } | undefined
    notice?: MoneyNotice | undefined
  },
): string {
  const t = frame.texts
  const values = input.values ?? { amount: '', address: '', reason: '' }
  return renderPage(
    frame,
    m.newRefund,
    `${noticeOf(m, input.notice)}
<form class="card" method="post" action="${frame.base}/payments/${e(input.paymentId)}/refunds?lang=${frame.language}">
  ${csrfField(frame)}
  <p>${e(input.summary)}</p>
  <p class="hint">${e(m.newRefundIntro)}</p>
  <input type="hidden" name="idempotencyKey" value="${e(input.idempotencyKey)}">
  <label for="r-amount">${e(t.amount)}</label>
  <input id="r-amount" name="amount" inputmode="decimal" required value="${e(values.amount)}">
  <label for="r-address">${e(m.addressOptional)}</label>
  <input id="r-address" name="address" class="mono" value="${e(values.address)}">
  <label for="r-reason">${e(m.reason)}</label>
  <input id="r-reason" name="reason" maxlength="200" value="${e(values.reason)}">
  <div class="actions"><button type="submit">${e(m.createRefund)}</button><a class="button secondary" href="${frame.base}/payments/${e(input.paymentId)}?lang=${frame.language}">${e(m.cancel)}</a></div>
</form>`,
    true,
  )
}

function noticeOf(m: MoneyTexts, notice: MoneyNotice | undefined): string {
  if (notice === undefined) return ''
  const claim = notice.claimUrl
    ? `<p>${e(m.claimHint)} <a class="mono" id="claim-link" href="${e(notice.claimUrl)}">${e(notice.claimUrl)}</a></p>`
    : ''
  return message(notice.kind, notice.text) + claim
}
