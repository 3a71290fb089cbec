// The CSV export of a merchant's payments (docs/dashboard.md, "Exporting payments"): the payments
// list's filters applied, read page by page through the read model's keyset cursor (the same
// `list` the merchant API's GET /payments reads), so that an export of any size holds one page in
// memory at a time. Amounts are the decimal strings the API shows (exact, never a JS number); a
// cell that a spreadsheet would read as a formula is neutralised (OWASP, "CSV Injection").

import { PaymentStatuses } from '@chainpay/contracts'
import { toPaymentView } from '@chainpay/domain'
import type { PaymentDocument, PaymentListQuery, PaymentReadModel } from '@chainpay/ports'

/** the columns, in order: the names of the merchant API's payment object (docs/api.md) */
export const PAYMENT_CSV_COLUMNS = [
  'paymentId',
  'status',
  'createdAt',
  'network',
  'currency',
  'tokenStandard',
  'amount',
  'expectedAmount',
  'receivedAmount',
  'feeAmount',
  'netAmount',
  'receivedFeeAmount',
  'receivedNetAmount',
  'generatedAddress',
  'txHash',
  'confirmedAt',
  'expiresAt',
  'description',
  'metadata',
] as const

/** payments read per page of the read model while exporting */
export const EXPORT_PAGE_SIZE = 500

/** what spreadsheets start a formula with (and tab and CR, which some strip before looking) */
const FORMULA_START = /^[=+\-@\t\r]/

/**
 * One CSV cell (RFC 4180): empty for null; a text a spreadsheet would run as a formula gets a
 * leading apostrophe, which spreadsheets show as text; quoted when it holds a comma, a quote, a
 * line break or begins with a space.
 */
export function csvCell(value: string | null): string {
  if (value === null) return ''
  const safe = FORMULA_START.test(value) ? `'${value}` : value
  return /[",\r\n]|^\s|\s$/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

export function csvLine(cells: readonly (string | null)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`
}

/** one payment's row, in PAYMENT_CSV_COLUMNS order */
export function paymentCsvRow(document: PaymentDocument): (string | null)[] {
  const view = toPaymentView(document.state, '')
  return [
    view.paymentId,
    view.status,
    view.createdAt,
    view.network,
    view.currency,
    view.tokenStandard,
    view.amount,
    view.expectedAmount,
    view.receivedAmount,
    view.feeAmount,
    view.netAmount,
    view.receivedFeeAmount,
    view.receivedNetAmount,
    view.generatedAddress,
    view.txHash,
    view.confirmedAt,
    view.expiresAt,
    view.description,
    JSON.stringify(view.metadata ?? {}),
  ]
}

export interface PaymentCsvOptions {
  pageSize?: number
  /** told of every page read (the tests count them) */
  onPage?: (documents: number) => void
}

/**
 * The export as text chunks: a UTF-8 byte order mark and the header, then one chunk per page of the
 * read model. The next page is read only when the consumer asks for more, so a slow download holds
 * one page, never the whole export.
 */
export async function* paymentCsvChunks(
  readModel: Pick<PaymentReadModel, 'list'>,
  query: Omit<PaymentListQuery, 'limit' | 'after'>,
  options: PaymentCsvOptions = {},
): AsyncGenerator<string> {
  const pageSize = options.pageSize ?? EXPORT_PAGE_SIZE
  // the BOM tells spreadsheets the bytes are UTF-8 (Excel reads them as a legacy code page otherwise)
  yield `\uFEFF${csvLine(PAYMENT_CSV_COLUMNS)}`
  let after: PaymentListQuery['after']
  for (;;) {
    const page = await readModel.list({ ...query, limit: pageSize, ...(after ? { after } : {}) })
    options.onPage?.(page.length)
    if (page.length > 0) yield page.map((document) => csvLine(paymentCsvRow(document))).join('')
    const last = page.at(-1)
    if (page.length < pageSize || last === undefined) return
    after = { createdAt: last.state.created.createdAt, paymentId: last.paymentId }
  }
}

/** the payments list's filters as typed in its form (docs/dashboard.md, "Finding a payment") */
export interface PaymentListFilters {
  status: string
  network: string
  currency: string
  /** YYYY-MM-DD, from the start of that day (UTC) */
  createdFrom: string
  /** YYYY-MM-DD, before the start of that day (UTC) */
  createdTo: string
}

/** the read model's query of the filters (empty: not applied), or the name of the one that is bad */
export function paymentListQueryOf(
  merchantId: string,
  filters: PaymentListFilters,
): { query: Omit<PaymentListQuery, 'limit' | 'after'> } | { problem: keyof PaymentListFilters } {
  const query: Omit<PaymentListQuery, 'limit' | 'after'> = { merchantId }
  if (filters.status !== '') {
    if (!(PaymentStatuses as readonly string[]).includes(filters.status)) return { problem: 'status' }
    query.statuses = [filters.status as (typeof PaymentStatuses)[number]]
  }
  if (filters.network !== '') query.network = filters.network
  if (filters.currency !== '') query.currency = filters.currency.toUpperCase()
  for (const name of ['createdFrom', 'createdTo'] as const) {
    if (filters[name] === '') continue
    const day = dayStart(filters[name])
    if (day === null) return { problem: name }
    query[name] = day
  }
  return { query }
}

/** the start of a day typed in a date field (YYYY-MM-DD), as payments record instants; null if none */
function dayStart(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null
  const time = Date.parse(`${text}T00:00:00.000Z`)
  if (Number.isNaN(time)) return null
  const instant = new Date(time).toISOString()
  return instant.startsWith(text) ? instant : null
}
