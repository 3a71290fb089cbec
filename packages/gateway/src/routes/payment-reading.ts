// Reading back (docs/api.md, "GET /payments" and "GET /payments/{paymentId}/events"): a merchant's
// payments a page at a time from the read model, and a payment's history from the source of truth.

import {
  PaymentHistorySchema,
  PaymentIdParamsSchema,
  type PaymentListQuery,
  PaymentListQuerySchema,
  PaymentListSchema,
  PaymentStatuses,
} from '@chainpay/contracts'
import {
  DomainError,
  type HistoryConfirmations,
  isPaymentId,
  type PaymentStatus,
  refundHistoryEventTypes,
  toPaymentHistoryView,
  toPaymentView,
} from '@chainpay/domain'
import type {
  OutgoingCommands,
  PaymentCommands,
  PaymentListPosition,
  PaymentReadModel,
  PaymentListQuery as ReadModelListQuery,
} from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { MerchantCaller } from '../auth.js'
import { readPageLimit } from './list-query.js'
import type { ReadYourWrites } from './read-your-writes.js'

export interface PaymentReadingRoutesDeps {
  commands: PaymentCommands
  /** the payment's history shows its refunds' events (docs/api.md, "Refunds and payouts") */
  outgoing?: Pick<OutgoingCommands, 'getRefundHistory'> | undefined
  readModel: PaymentReadModel
  /** a page shows the payments as the latest commands through this gateway left them */
  readYourWrites: ReadYourWrites
  checkoutLinks: CheckoutLinks
}

export const paymentReadingRoutes: FastifyPluginAsyncTypebox<PaymentReadingRoutesDeps> = async (
  app,
  deps,
) => {
  const { commands, readModel, readYourWrites, checkoutLinks } = deps

  app.get(
    '/payments',
    { schema: { querystring: PaymentListQuerySchema, response: { 200: PaymentListSchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const query = readListQuery(merchant.merchantId, request.query)
      // one more than the page: whether there is a next page, without a count
      const documents = await readModel.list({ ...query, limit: query.limit + 1 })
      const page = documents.slice(0, query.limit)
      const last = page.at(-1)
      const nextCursor =
        documents.length > query.limit && last !== undefined
          ? encodeCursor({ createdAt: last.state.created.createdAt, paymentId: last.paymentId })
          : null
      const current = await readYourWrites.page(page, merchant.merchantId)
      const data = current.map(({ payment }) =>
        toPaymentView(payment, checkoutLinks.urlOf(payment.created.paymentId)),
      )
      return { data, nextCursor }
    },
  )

  app.get(
    '/payments/:paymentId/events',
    { schema: { params: PaymentIdParamsSchema, response: { 200: PaymentHistorySchema } } },
    async (request) => {
      const { merchant } = callerOf(request)
      const text = request.params.paymentId
      if (!isPaymentId(text)) throw new DomainError('VALIDATION_ERROR', 'paymentId: must be a UUID')
      const paymentId = text.toLowerCase()
      // the event store is the source of truth; in the distributed shape payment-command reads it
      const confirmations = readHistoryQuery(request.query as Record<string, unknown>)
      const history = await commands.getPaymentHistory({ merchantId: merchant.merchantId, paymentId })
      if (history === null) throw new DomainError('PAYMENT_NOT_FOUND', `payment ${paymentId} not found`)
      const view = toPaymentHistoryView(history, { confirmations })
      const refunds =
        (await deps.outgoing?.getRefundHistory({ merchantId: merchant.merchantId, paymentId })) ?? []
      if (refunds.length === 0) return view
      const refundEvents = refunds.map((entry) => ({
        id: entry.eventId,
        type: refundHistoryEventTypes[entry.type],
        occurredAt: entry.recordedAt,
        data: entry.data,
      }))
      // oldest first; a payment's event before a refund's recorded in the same millisecond (stable sort)
      const data = [...view.data, ...refundEvents].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt))
      return { data }
    },
  )
}

/** the history's query: `confirmations` all (default) or last; anything else is VALIDATION_ERROR */
function readHistoryQuery(query: Record<string, unknown>): HistoryConfirmations {
  for (const parameter of Object.keys(query)) {
    if (parameter !== 'confirmations') {
      throw new DomainError('VALIDATION_ERROR', `${parameter}: unknown query parameter`)
    }
  }
  const { confirmations = 'all' } = query
  if (confirmations !== 'all' && confirmations !== 'last') {
    throw new DomainError('VALIDATION_ERROR', 'confirmations: must be all or last')
  }
  return confirmations
}

function callerOf(request: FastifyRequest): MerchantCaller {
  // authentication ran as this route's preValidation hook; without a caller it would have thrown
  if (request.caller === null) throw new Error('payment route reached without an authenticated caller')
  return request.caller
}

/** the read model's query for the merchant's query string, or VALIDATION_ERROR naming the parameter */
function readListQuery(merchantId: string, query: PaymentListQuery): ReadModelListQuery {
  const invalid = (parameter: string, rule: string) =>
    new DomainError('VALIDATION_ERROR', `${parameter}: ${rule}`)
  const limit = readPageLimit(query.limit)
  const listQuery: ReadModelListQuery = { merchantId, limit }
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor)
    if (after === null) throw invalid('cursor', 'not a nextCursor of this API')
    listQuery.after = after
  }
  if (query.status !== undefined) {
    const statuses = query.status.split(',')
    const unknown = statuses.find((status) => !(PaymentStatuses as readonly string[]).includes(status))
    if (unknown !== undefined) {
      throw invalid('status', `'${unknown}' is not one of ${PaymentStatuses.join(', ')}`)
    }
    // each status once: the store's statement depends on how many there are
    listQuery.statuses = [...new Set(statuses)] as PaymentStatus[]
  }
  if (query.network !== undefined) {
    if (query.network === '') throw invalid('network', 'must not be empty')
    listQuery.network = query.network
  }
  if (query.currency !== undefined) {
    if (query.currency === '') throw invalid('currency', 'must not be empty')
    listQuery.currency = query.currency
  }
  for (const parameter of ['createdFrom', 'createdTo'] as const) {
    const text = query[parameter]
    if (text === undefined) continue
    const timestamp = readTimestamp(text)
    if (timestamp === null) {
      throw invalid(
        parameter,
        'must be an ISO 8601 date or date-time with a time zone, e.g. 2026-11-01T00:00:00Z',
      )
    }
    listQuery[parameter] = timestamp
  }
  return listQuery
}

const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-](\d{2}):(\d{2})))?$/

/**
 * The instant as payments record theirs (UTC, milliseconds), so that it compares as text. Every part
 * must exist as written: Date.parse rolls 2026-02-30 over into March and reads T24:00 as the next
 * day, and an instant outside the years 0000-9999 would not compare as text.
 */
export function readTimestamp(text: string): string | null {
  const parts = ISO_8601.exec(text)
  if (parts === null) return null
  const [
    ,
    year,
    month,
    day,
    hour = '0',
    minute = '0',
    second = '0',
    ,
    offsetHours = '0',
    offsetMinutes = '0',
  ] = parts
  const calendarDay = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)))
  if (`${year}-${month}-${day}` !== calendarDay.toISOString().slice(0, 10)) return null
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null
  if (Number(offsetHours) > 23 || Number(offsetMinutes) > 59) return null
  const time = Date.parse(text)
  if (Number.isNaN(time)) return null
  const instant = new Date(time).toISOString()
  return /^\d{4}-/.test(instant) ? instant : null
}

/**
 * The position after a page's last payment, as base64url JSON. Opaque to the merchant, and nothing
 * secret: it names a payment of the merchant's own. A cursor that is not the exact encoding of a
 * position (cut, altered, made up) is refused.
 */
export function encodeCursor(position: PaymentListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.paymentId])).toString('base64url')
}

export function decodeCursor(cursor: string): PaymentListPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (!Array.isArray(value) || value.length !== 2) return null
  const [createdAt, paymentId] = value as unknown[]
  if (typeof createdAt !== 'string' || typeof paymentId !== 'string') return null
  if (
    readTimestamp(createdAt) !== createdAt ||
    !isPaymentId(paymentId) ||
    paymentId !== paymentId.toLowerCase()
  ) {
    return null
  }
  const position = { createdAt, paymentId }
  return encodeCursor(position) === cursor ? position : null
}
