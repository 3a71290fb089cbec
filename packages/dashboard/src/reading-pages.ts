// The read-only pages of invoices, deposits and settings (docs/dashboard.md, "Invoices", "Deposits",
// "Settings"): the merchant's invoices with a status filter and an invoice's detail with the payments
// of the customer's picks, the customers' deposit addresses and the deposits at them, and the
// settings the operator keeps. Same layout and rules as dashboard-pages.ts; every value escaped.

import type { InvoiceView } from '@chainpay/domain'
import { escapeHtml as e, type PageFrame, renderPage } from './dashboard-pages.js'
import type { ReadingTexts } from './reading-texts.js'

export interface DepositAddressRow {
  merchantUserId: string
  chain: string
  address: string
  createdAt: string
}

export interface DepositRow {
  depositId: string
  merchantUserId: string
  network: string
  currency: string
  address: string
  txHash: string
  amount: string
  fee: string
  net: string
  status: string
  confirmations: number
  requiredConfirmations: number
  detectedAt: string
}

export interface SettingsView {
  name: string
  displayName: string | null
  webhookUrl: string | null
  /** the percentage fee, "1.5" */
  feePercent: string
  fixedFees: { asset: string; amount: string }[]
  underpaymentTolerancePercent: string
}

const day = (at: string) => at.replace('T', ' ').slice(0, 19)

function table(id: string, caption: string, head: string[], rows: string[], empty: string): string {
  return rows.length === 0
    ? `<p role="status">${e(empty)}</p>`
    : `<div class="scroll" tabindex="0" role="region" aria-labelledby="${id}"><table>
<caption id="${id}">${e(caption)}</caption>
<thead><tr>${head.map((cell) => `<th scope="col">${e(cell)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>`
}

const older = (href: string | null, label: string) =>
  href ? `<p><a class="button secondary" href="${e(href)}">${e(label)}</a></p>` : ''

function statusFilter(
  frame: PageFrame,
  r: ReadingTexts,
  path: string,
  input: { status: string; statuses: readonly string[] },
  extra = '',
): string {
  const options = input.statuses
    .map(
      (status) =>
        `<option value="${e(status)}"${status === input.status ? ' selected' : ''}>${e(status)}</option>`,
    )
    .join('')
  return `<form class="card" method="get" action="${frame.base}/${path}">
  ${extra}
  <label for="f-status-${path}">${e(frame.texts.status)}</label>
  <select id="f-status-${path}" name="status"><option value="">${e(frame.texts.anyStatus)}</option>${options}</select>
  <input type="hidden" name="lang" value="${frame.language}">
  <div class="actions"><button type="submit">${e(r.filter)}</button></div>
</form>`
}

export function renderInvoices(
  frame: PageFrame,
  r: ReadingTexts,
  input: { invoices: InvoiceView[]; olderHref: string | null; status: string; statuses: readonly string[] },
): string {
  const t = frame.texts
  const rows = input.invoices.map(
    (invoice) => `<tr><td>${e(day(invoice.createdAt))}</td>
<td class="mono"><a href="${frame.base}/invoices/${e(invoice.invoiceId)}?lang=${frame.language}">${e(invoice.invoiceId)}</a></td>
<td class="status status-${e(invoice.status)}">${e(invoice.status)}</td>
<td class="num">${e(invoice.priceAmount)} ${e(invoice.priceCurrency)}</td><td>${e(invoice.description ?? '')}</td></tr>`,
  )
  return renderPage(
    frame,
    r.invoices,
    `${statusFilter(frame, r, 'invoices', input)}
<h2>${e(r.invoicesTable)}</h2>
${table('invoices-caption', r.invoicesTable, [t.created, r.invoice, t.status, r.price, r.description], rows, r.noInvoices)}
${older(input.olderHref, r.olderInvoices)}`,
  )
}

export function renderInvoiceDetail(frame: PageFrame, r: ReadingTexts, invoice: InvoiceView): string {
  const t = frame.texts
  const lang = `lang=${frame.language}`
  const paymentLink = (paymentId: string) =>
    `<a class="mono" href="${frame.base}/payments/${e(paymentId)}?${lang}">${e(paymentId)}</a>`
  const facts: [string, string][] = [
    [t.status, `<span class="status status-${e(invoice.status)}">${e(invoice.status)}</span>`],
    [r.price, `${e(invoice.priceAmount)} ${e(invoice.priceCurrency)}`],
    [r.description, e(invoice.description ?? '—')],
    [r.accepted, e(invoice.accepted.map((asset) => `${asset.currency} (${asset.network})`).join(', '))],
    [t.created, e(day(invoice.createdAt))],
    [r.expires, e(day(invoice.expiresAt))],
    [r.closed, e(invoice.closedAt === null ? '—' : day(invoice.closedAt))],
    [r.paidBy, invoice.paidPaymentId === null ? '—' : paymentLink(invoice.paidPaymentId)],
    [r.invoicePage, `<a href="${e(invoice.checkoutUrl)}">${e(invoice.checkoutUrl)}</a>`],
  ]
  const picks = table(
    'invoice-payments-caption',
    r.invoicePayments,
    [r.picked, t.payment, t.currency, t.network],
    invoice.payments.map(
      (pick) =>
        `<tr><td>${e(day(pick.pickedAt))}</td><td>${paymentLink(pick.paymentId)}</td><td>${e(pick.currency)}</td><td>${e(pick.network)}</td></tr>`,
    ),
    r.noInvoicePayments,
  )
  return renderPage(
    frame,
    `${r.invoice} ${invoice.invoiceId}`,
    `<dl class="card">
${facts.map(([term, value]) => `<dt>${e(term)}</dt><dd>${value}</dd>`).join('\n')}
</dl>
<h2>${e(r.invoicePayments)}</h2>
${picks}`,
  )
}

export function renderDeposits(
  frame: PageFrame,
  r: ReadingTexts,
  input: {
    merchantUserId: string
    addresses: DepositAddressRow[]
    olderAddressesHref: string | null
    deposits: DepositRow[]
    olderDepositsHref: string | null
    status: string
    statuses: readonly string[]
  },
): string {
  const t = frame.texts
  const addresses = table(
    'deposit-addresses-caption',
    r.depositAddressesTable,
    [t.created, r.customer, r.chain, t.address],
    input.addresses.map(
      (row) =>
        `<tr><td>${e(day(row.createdAt))}</td><td>${e(row.merchantUserId)}</td><td>${e(row.chain)}</td><td class="mono">${e(row.address)}</td></tr>`,
    ),
    r.noDepositAddresses,
  )
  const deposits = table(
    'deposits-caption',
    r.depositsTable,
    [r.detected, r.customer, t.status, t.amount, r.fee, r.net, t.network, r.confirmations, r.transaction],
    input.deposits.map(
      (row) => `<tr><td>${e(day(row.detectedAt))}</td><td>${e(row.merchantUserId)}</td>
<td class="status status-${e(row.status)}">${e(row.status)}</td><td class="num">${e(row.amount)} ${e(row.currency)}</td>
<td class="num">${e(row.fee)}</td><td class="num">${e(row.net)}</td><td>${e(row.network)}</td>
<td class="num">${row.confirmations}/${row.requiredConfirmations}</td><td class="mono">${e(row.txHash)}</td></tr>`,
    ),
    r.noDeposits,
  )
  const customerField = `<label for="f-customer">${e(r.customer)}</label>
  <input id="f-customer" name="merchantUserId" maxlength="128" value="${e(input.merchantUserId)}">`
  return renderPage(
    frame,
    r.deposits,
    `${statusFilter(frame, r, 'deposits', input, customerField)}
<h2>${e(r.depositAddresses)}</h2>
${addresses}
${older(input.olderAddressesHref, r.olderDepositAddresses)}
<h2>${e(r.deposits)}</h2>
${deposits}
${older(input.olderDepositsHref, r.olderDeposits)}`,
  )
}

export function renderSettings(frame: PageFrame, r: ReadingTexts, settings: SettingsView): string {
  const fixed =
    settings.fixedFees.length === 0
      ? r.noFixedFees
      : settings.fixedFees.map(({ asset, amount }) => `${amount} (${asset})`).join(', ')
  const facts: [string, string][] = [
    [r.merchantName, settings.name],
    [r.displayName, settings.displayName ?? settings.name],
    [r.webhookUrl, settings.webhookUrl ?? r.noWebhookUrl],
    [r.feePercent, `${settings.feePercent} %`],
    [r.fixedFees, fixed],
    [r.underpaymentTolerance, `${settings.underpaymentTolerancePercent} %`],
  ]
  return renderPage(
    frame,
    r.settings,
    `<p class="hint">${e(r.settingsIntro)}</p>
<dl class="card">
${facts.map(([term, value]) => `<dt>${e(term)}</dt><dd>${e(value)}</dd>`).join('\n')}
</dl>`,
  )
}
