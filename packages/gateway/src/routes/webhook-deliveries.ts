// The merchant API's delivery log (docs/api.md, "Webhook deliveries"): a merchant's own deliveries,
// newest first, page by page with a keyset cursor that stays stable while new deliveries are
// recorded, each with its attempts (and the URL each went to) and the URL its target has now; and
// redelivery of one, which sends the same event (same id) to the target's current URL on a fresh
// retry schedule. Another merchant's delivery is not found, nor is a deleted endpoint to redeliver to.

import { Buffer } from 'node:buffer'
import { randomUUID } from 'node:crypto'
import {
  WebhookDeliveryListSchema,
  WebhookDeliveryViewSchema,
  type WebhookEventKind,
  WebhookEventKinds,
} from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import { type Clock, isoNow } from '@chainpay/platform'
import {
  type DeliveryAttempt,
  type DeliveryCursor,
  type DeliveryStatus,
  eventIdOf,
  MERCHANT_DEFAULT_TARGET,
  type MerchantDeliveriesQuery,
  type MerchantStore,
  type WebhookDelivery,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { merchantIdOf } from './merchant-id-of.js'
import { sampleOutgoingWebhookFields, sampleWebhookPayment } from './sample-webhook-payment.js'

export interface WebhookDeliveryRoutesDeps {
  deliveries: WebhookDeliveryStore
  /** the endpoints deliveries go to: their current URL, and whether they still exist */
  webhookEndpoints: Pick<WebhookEndpointStore, 'list'>
  /** the merchant's default webhook URL, where its MERCHANT_DEFAULT_TARGET deliveries go */
  merchants: Pick<MerchantStore, 'getMerchant'>
  clock: Clock
  /**
   * tells the notifier's dispatcher of deliveries put in line here, which it then claims at once
   * (the gateway's context publishes a wake-up on the bus); without it they wait for its poll
   */
  wakeDeliveries?: (deliveryIds: string[]) => void
}

export const DELIVERY_PAGE_LIMIT = { default: 20, max: 100 } as const
const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'no_target']
const QUERY_FIELDS = new Set(['paymentId', 'status', 'limit', 'cursor'])

export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<WebhookDeliveryRoutesDeps> = async (
  app,
  deps,
) => {
  const { deliveries, webhookEndpoints, merchants, clock } = deps

  /** where each target of the merchant's goes now (currentUrlOf), read once per answer */
  async function currentTargets(merchantId: string): Promise<CurrentTargets> {
    const [endpoints, merchant] = await Promise.all([
      webhookEndpoints.list(merchantId),
      merchants.getMerchant(merchantId),
    ])
    return {
      endpointUrls: new Map(endpoints.map((endpoint) => [endpoint.endpointId, endpoint.url])),
      defaultUrl: merchant?.webhookUrl ?? null,
    }
  }

  app.get(
    '/webhook-deliveries',
    { schema: { response: { 200: WebhookDeliveryListSchema } } },
    async (request) => {
      const merchantId = merchantIdOf(request)
      const query = readDeliveriesQuery(request.query as Record<string, unknown>)
      const { page, nextCursor } = await deliveriesPage(deliveries, merchantId, query)
      const targets = await currentTargets(merchantId)
      const data = await Promise.all(
        page.map(async (delivery) =>
          toView(delivery, await deliveries.listAttempts(delivery.deliveryId), targets),
        ),
      )
      return { data, nextCursor }
    },
  )

  // A test event (docs/api.md, "Trying a webhook receiver"): one delivery of the kind asked for, with
  // a made-up payment and `"test": true`, to the endpoint's URL, signed with its secret like any
  // webhook and sent at once; listed with the other deliveries, with its attempts and retries.
  app.post(
    '/webhook-endpoints/:endpointId/test',
    { schema: { response: { 202: WebhookDeliveryViewSchema } } },
    async (request, reply) => {
      const merchantId = merchantIdOf(request)
      const { endpointId } = request.params as { endpointId: string }
      const kind = readTestEventKind(request.rawBody === '' ? {} : request.body)
      const targets = await currentTargets(merchantId)
      const url =
        endpointId === MERCHANT_DEFAULT_TARGET ? targets.defaultUrl : targets.endpointUrls.get(endpointId)
      if (url === null || url === undefined) {
        throw new DomainError('NOT_FOUND', `webhook endpoint ${endpointId} not found`)
      }
      const now = isoNow(clock)
      const eventId = randomUUID()
      const paymentId = randomUUID()
      const delivery: WebhookDelivery = {
        deliveryId: eventId,
        eventId,
        endpointId,
        // a payment of its own, so that no delivery of a real payment waits for it
        paymentId,
        merchantId,
        eventType: kind,
        sequence: 0,
        payload: kind.startsWith('payment.')
          ? { event: kind, test: true, payment: sampleWebhookPayment(kind, paymentId) }
          : {
              event: kind,
              test: true,
              [kind.slice(0, kind.indexOf('.'))]: sampleOutgoingWebhookFields(kind, paymentId),
            },
        targetUrl: url,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        deliveredAt: null,
        lastError: null,
      }
      await deliveries.enqueue(delivery)
      deps.wakeDeliveries?.([eventId])
      return reply.code(202).send(toView(delivery, [], targets))
    },
  )

  app.post(
    '/webhook-deliveries/:deliveryId/redeliver',
    { schema: { response: { 202: WebhookDeliveryViewSchema } } },
    async (request, reply) => {
      const merchantId = merchantIdOf(request)
      const { deliveryId } = request.params as { deliveryId: string }
      if (request.rawBody !== '' && !isEmptyObject(request.body)) {
        throw new DomainError('VALIDATION_ERROR', 'body: must be empty or {}')
      }
      const delivery = await deliveries.get(deliveryId)
      if (delivery === null || delivery.merchantId !== merchantId) throw deliveryNotFound(deliveryId)
      // Sent nowhere, every retry would fail: an endpoint that is gone is said at once, the default
      // URL when the operator removed it. (A disabled endpoint may be enabled again while the
      // schedule runs, so it is redelivered.)
      const targets = await currentTargets(merchantId)
      const { endpointId } = delivery
      if (typeof endpointId === 'string' && currentUrlOf(delivery, targets) === null) {
        const why =
          endpointId === MERCHANT_DEFAULT_TARGET
            ? 'your operator removed your default webhook URL'
            : 'it was deleted'
        throw new DomainError(
          'NOT_FOUND',
          `webhook endpoint ${endpointId} not found: ${why}, so delivery ${deliveryId} has nowhere to go`,
        )
      }
      // Bounded (docs/api.md, "Webhook deliveries"): a pending delivery is put in line again at most
      // once a minute after its last attempt, never while it waits for its first.
      const waitMs = redeliveryWaitMs(delivery, await deliveries.listAttempts(deliveryId), clock.now())
      if (waitMs > 0) {
        const seconds = Math.max(1, Math.ceil(waitMs / 1000))
        reply.header('retry-after', String(seconds))
        const why =
          delivery.status === 'pending' && delivery.attempts === 0
            ? `is already in line for its next attempt (due ${delivery.nextAttemptAt})`
            : `was attempted less than ${REDELIVERY_INTERVAL_MS / 1000} s ago`
        throw new DomainError(
          'RATE_LIMITED',
          `webhook delivery ${deliveryId} ${why}; redeliver it again in ${seconds} s, or see its attempts in GET /webhook-deliveries`,
        )
      }
      if (!(await deliveries.redeliver(deliveryId, isoNow(clock)))) throw deliveryNotFound(deliveryId)
      // so that nextAttemptAt (now) is when it is sent, not the dispatcher's next poll
      deps.wakeDeliveries?.([deliveryId])
      const requeued = (await deliveries.get(deliveryId)) ?? delivery
      return reply.code(202).send(toView(requeued, await deliveries.listAttempts(deliveryId), targets))
    },
  )
}

/** the least time between a delivery's last attempt (or its requeue) and its next redelivery */
export const REDELIVERY_INTERVAL_MS = 60_000

/**
 * How long before the delivery may be redelivered: 0 when now. One that is finished (delivered,
 * failed, without a target) may be at once: it becomes pending. A pending one is in line already:
 * one that no attempt took since it was put in line (attempts 0) once its nextAttemptAt is a minute
 * past, one waiting for a retry a minute after its last attempt. So a receiver that keeps failing
 * gets at most one attempt a minute from redeliveries, beside the retry schedule.
 */
function redeliveryWaitMs(delivery: WebhookDelivery, attempts: DeliveryAttempt[], now: Date): number {
  if (delivery.status !== 'pending') return 0
  const times = attempts.map((attempt) => Date.parse(attempt.at))
  if (delivery.status === 'pending' && delivery.attempts === 0 && delivery.nextAttemptAt !== null) {
    times.push(Date.parse(delivery.nextAttemptAt))
  }
  const latest = Math.max(Number.NEGATIVE_INFINITY, ...times.filter(Number.isFinite))
  if (latest === Number.NEGATIVE_INFINITY) return 0
  return Math.max(0, latest + REDELIVERY_INTERVAL_MS - now.getTime())
}

interface CurrentTargets {
  /** the URL of each of the merchant's endpoints; a deleted one is not here */
  endpointUrls: ReadonlyMap<string, string>
  defaultUrl: string | null
}

/** where the delivery goes now, as the dispatcher's targetOf sends it */
function currentUrlOf(delivery: WebhookDelivery, targets: CurrentTargets): string | null {
  const endpointId = delivery.endpointId ?? null
  if (endpointId === MERCHANT_DEFAULT_TARGET) return targets.defaultUrl
  if (endpointId !== null) return targets.endpointUrls.get(endpointId) ?? null
  return delivery.targetUrl ?? targets.defaultUrl
}

/** a delivery as the merchant API shows it */
function toView(delivery: WebhookDelivery, attempts: DeliveryAttempt[], targets: CurrentTargets) {
  return {
    id: delivery.deliveryId,
    eventId: eventIdOf(delivery),
    // recorded from WebhookEventKinds (webhookKindOf)
    eventType: delivery.eventType as WebhookEventKind,
    paymentId: delivery.paymentId,
    endpointId: delivery.endpointId ?? null,
    url: currentUrlOf(delivery, targets),
    status: delivery.status,
    nextAttemptAt: delivery.nextAttemptAt,
    createdAt: delivery.createdAt,
    deliveredAt: delivery.deliveredAt,
    lastError: delivery.lastError,
    attempts: attempts.map(({ attempt, at, statusCode, durationMs, error, url }) => ({
      attempt,
      at,
      statusCode,
      durationMs,
      error,
      url: url ?? null,
    })),
  }
}

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

/** the body of a test event: {} or {"event": kind}, payment.confirmed when absent */
function readTestEventKind(body: unknown): WebhookEventKind {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('body: must be a JSON object')
  }
  for (const field of Object.keys(body)) {
    if (field !== 'event') throw invalid(`body: unknown field '${field}'`)
  }
  const { event = 'payment.confirmed' } = body as { event?: unknown }
  if (typeof event !== 'string' || !(WebhookEventKinds as readonly string[]).includes(event)) {
    throw invalid(`event: must be one of ${WebhookEventKinds.join(', ')}`)
  }
  return event as WebhookEventKind
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  )
}

function invalid(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message)
}

function deliveryNotFound(deliveryId: string): DomainError {
  return new DomainError('NOT_FOUND', `webhook delivery ${deliveryId} not found`)
}
