// A merchant's webhook deliveries, page by page, as the merchant API (GET /webhook-deliveries) and the
// admin API (GET /admin/v1/merchants/:id/deliveries) both list them (docs/api.md, "Webhook
// deliveries"): the query's fields, and a keyset cursor that stays stable while new deliveries are
// recorded.

import { Buffer } from 'node:buffer'
import { DomainError } from '@chainpay/domain'
import type {
  DeliveryCursor,
  DeliveryStatus,
  MerchantDeliveriesQuery,
  WebhookDelivery,
  WebhookDeliveryStore,
} from '@chainpay/ports'

export const DELIVERY_PAGE_LIMIT = { default: 20, max: 100 } as const
const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'no_target']
const QUERY_FIELDS = new Set(['paymentId', 'status', 'limit', 'cursor'])

/** one page of a merchant's deliveries, and the cursor of the next one (null when none follows) */
export async function deliveriesPage(
  deliveries: WebhookDeliveryStore,
  merchantId: string,
  query: MerchantDeliveriesQuery,
): Promise<{ page: WebhookDelivery[]; nextCursor: string | null }> {
  // one more than asked: whether there is a next page
  const found = await deliveries.listByMerchant(merchantId, { ...query, limit: query.limit + 1 })
  const page = found.slice(0, query.limit)
  const last = page.at(-1)
  return { page, nextCursor: found.length > query.limit && last ? encodeCursor(last) : null }
}

/** the query of a deliveries list (merchant and admin API alike): paymentId, status, limit, cursor */
export function readDeliveriesQuery(query: Record<string, unknown>): MerchantDeliveriesQuery {
  for (const field of Object.keys(query)) {
    if (!QUERY_FIELDS.has(field)) throw invalid(`${field}: unknown query parameter`)
  }
  const result: MerchantDeliveriesQuery = { limit: DELIVERY_PAGE_LIMIT.default }
  const { paymentId, status, limit, cursor } = query
  if (paymentId !== undefined) {
    if (typeof paymentId !== 'string' || paymentId === '') throw invalid('paymentId: must be a payment id')
    result.paymentId = paymentId.toLowerCase()
  }
  if (status !== undefined) {
    if (typeof status !== 'string' || !STATUSES.includes(status as DeliveryStatus)) {
      throw invalid(`status: must be one of ${STATUSES.join(', ')}`)
    }
    result.status = status as DeliveryStatus
  }
  if (limit !== undefined) {
    const parsed = typeof limit === 'string' && /^[0-9]{1,3}$/.test(limit) ? Number(limit) : Number.NaN
    if (!(parsed >= 1 && parsed <= DELIVERY_PAGE_LIMIT.max)) {
      throw invalid(`limit: must be an integer from 1 to ${DELIVERY_PAGE_LIMIT.max}`)
    }
    result.limit = parsed
  }
  if (cursor !== undefined) result.after = decodeCursor(cursor)
  return result
}

/** opaque to the merchant: the last delivery of the page, base64url JSON */
function encodeCursor(delivery: Pick<WebhookDelivery, 'createdAt' | 'deliveryId'>): string {
  return Buffer.from(JSON.stringify([delivery.createdAt, delivery.deliveryId])).toString('base64url')
}

/**
 * The position a nextCursor names, or a VALIDATION_ERROR naming the field: only the exact encoding of
 * a position this API issues passes (base64url without padding of [createdAt, deliveryId], the
 * timestamp in its canonical ISO form, the id of the characters delivery ids have), so a cursor cut,
 * altered, re-encoded or made up is refused rather than read as some other position.
 */
function decodeCursor(cursor: unknown): DeliveryCursor {
  if (typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,400}$/.test(cursor)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    } catch {
      parsed = null
    }
    if (Array.isArray(parsed) && parsed.length === 2) {
      const [createdAt, deliveryId] = parsed as unknown[]
      if (
        typeof createdAt === 'string' &&
        isCanonicalTimestamp(createdAt) &&
        typeof deliveryId === 'string' &&
        DELIVERY_ID.test(deliveryId)
      ) {
        const position = { createdAt, deliveryId }
        if (encodeCursor(position) === cursor) return position
      }
    }
  }
  throw invalid('cursor: must be a nextCursor from a previous page')
}

/** what delivery ids are made of: event ids (UUIDs), with `.` and an endpoint id for further targets */
const DELIVERY_ID = /^[A-Za-z0-9_.:-]{1,200}$/

function isCanonicalTimestamp(text: string): boolean {
  const time = Date.parse(text)
  return !Number.isNaN(time) && new Date(time).toISOString() === text
}

function invalid(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message)
}
