// A merchant's webhook deliveries (docs/api.md, "Webhook deliveries"), what the merchant API's routes
// (packages/gateway/src/routes/webhook-deliveries.ts) and the dashboard's pages both do with them:
// the merchant's own deliveries, newest first, page by page with a keyset cursor, each with its
// attempts (and the URL each went to) and the URL its target has now; and redelivery of one, which
// sends the same event (same id) to the target's current URL on a fresh retry schedule. Another
// merchant's delivery is not found, nor is a deleted endpoint to redeliver to.

import type { WebhookEventKind } from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import { type Clock, isoNow } from '@chainpay/platform'
import {
  type DeliveryAttempt,
  eventIdOf,
  MERCHANT_DEFAULT_TARGET,
  type MerchantDeliveriesQuery,
  type MerchantStore,
  type WebhookDelivery,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import { deliveriesPage } from '../http/delivery-pages.js'

export interface WebhookDeliveryActionsDeps {
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
  wakeDeliveries?: ((deliveryIds: string[]) => void) | undefined
}

/** a delivery as the merchant API shows it */
export interface WebhookDeliveryView {
  id: string
  eventId: string
  eventType: WebhookEventKind
  paymentId: string
  endpointId: string | null
  url: string | null
  status: WebhookDelivery['status']
  nextAttemptAt: string | null
  createdAt: string
  deliveredAt: string | null
  lastError: string | null
  attempts: {
    attempt: number
    at: string
    statusCode: number | null
    durationMs: number
    error: string | null
    url: string | null
  }[]
}

/** where each target of the merchant's goes now (currentUrlOf), read once per answer */
export interface CurrentTargets {
  /** the URL of each of the merchant's endpoints; a deleted one is not here */
  endpointUrls: ReadonlyMap<string, string>
  defaultUrl: string | null
}

/** a redelivery refused for now: try again in `retryAfterSeconds` (429 RATE_LIMITED with Retry-After) */
export class RedeliveryTooSoon extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', message)
  }
}

export interface WebhookDeliveryActions {
  /** one page of the merchant's deliveries, with their attempts, and the next page's cursor */
  list(
    merchantId: string,
    query: MerchantDeliveriesQuery,
  ): Promise<{ data: WebhookDeliveryView[]; nextCursor: string | null }>
  /** the same event to the target's current URL on a fresh schedule; RedeliveryTooSoon when bounded */
  redeliver(merchantId: string, deliveryId: string): Promise<WebhookDeliveryView>
  currentTargets(merchantId: string): Promise<CurrentTargets>
}

export function webhookDeliveryActions(deps: WebhookDeliveryActionsDeps): WebhookDeliveryActions {
  const { deliveries, webhookEndpoints, merchants, clock } = deps

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

  return {
    currentTargets,

    async list(merchantId, query) {
      const { page, nextCursor } = await deliveriesPage(deliveries, merchantId, query)
      const targets = await currentTargets(merchantId)
      const data = await Promise.all(
        page.map(async (delivery) =>
          webhookDeliveryView(delivery, await deliveries.listAttempts(delivery.deliveryId), targets),
        ),
      )
      return { data, nextCursor }
    },

    async redeliver(merchantId, deliveryId) {
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
        const why =
          delivery.status === 'pending' && delivery.attempts === 0
            ? `is already in line for its next attempt (due ${delivery.nextAttemptAt})`
            : `was attempted less than ${REDELIVERY_INTERVAL_MS / 1000} s ago`
        throw new RedeliveryTooSoon(
          `webhook delivery ${deliveryId} ${why}; redeliver it again in ${seconds} s, or see its attempts in GET /webhook-deliveries`,
          seconds,
        )
      }
      if (!(await deliveries.redeliver(deliveryId, isoNow(clock)))) throw deliveryNotFound(deliveryId)
      // so that nextAttemptAt (now) is when it is sent, not the dispatcher's next poll
      deps.wakeDeliveries?.([deliveryId])
      const requeued = (await deliveries.get(deliveryId)) ?? delivery
      return webhookDeliveryView(requeued, await deliveries.listAttempts(deliveryId), targets)
    },
  }
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

/** where the delivery goes now, as the dispatcher's targetOf sends it */
function currentUrlOf(delivery: WebhookDelivery, targets: CurrentTargets): string | null {
  const endpointId = delivery.endpointId ?? null
  if (endpointId === MERCHANT_DEFAULT_TARGET) return targets.defaultUrl
  if (endpointId !== null) return targets.endpointUrls.get(endpointId) ?? null
  return delivery.targetUrl ?? targets.defaultUrl
}

/** a delivery as the merchant API shows it */
export function webhookDeliveryView(
  delivery: WebhookDelivery,
  attempts: DeliveryAttempt[],
  targets: CurrentTargets,
): WebhookDeliveryView {
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

function deliveryNotFound(deliveryId: string): DomainError {
  return new DomainError('NOT_FOUND', `webhook delivery ${deliveryId} not found`)
}
