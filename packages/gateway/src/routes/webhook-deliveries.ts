// The merchant API's delivery log (docs/api.md, "Webhook deliveries"): a merchant's own deliveries,
// newest first, page by page with a keyset cursor that stays stable while new deliveries are
// recorded, each with its attempts (and the URL each went to) and the URL its target has now; and
// redelivery of one, which sends the same event (same id) to the target's current URL on a fresh
// retry schedule. Another merchant's delivery is not found, nor is a deleted endpoint to redeliver to.

import { randomUUID } from 'node:crypto'
import {
  isInvoiceWebhookKind,
  WebhookDeliveryListSchema,
  WebhookDeliveryViewSchema,
  type WebhookEventKind,
  WebhookEventKinds,
} from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import { type Clock, isoNow } from '@chainpay/platform'
import {
  type DeliveryAttempt,
  eventIdOf,
  MERCHANT_DEFAULT_TARGET,
  type MerchantStore,
  type WebhookDelivery,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import { deliveriesPage, readDeliveriesQuery } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { merchantIdOf } from './merchant-id-of.js'
import {
  sampleOutgoingWebhookFields,
  sampleWebhookInvoice,
  sampleWebhookPayment,
} from './sample-webhook-payment.js'

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
        payload: isInvoiceWebhookKind(kind)
          ? { event: kind, test: true, invoice: sampleWebhookInvoice(kind, paymentId) }
          : kind.startsWith('payment.')
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
