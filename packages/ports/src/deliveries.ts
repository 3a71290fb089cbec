// The webhook delivery log: one delivery per payment event that has a webhook kind and target it
// goes to (docs/api.md, "Webhooks": the payment's callbackUrl, the merchant's default URL, the
// merchant's webhook endpoints), the attempts made, and the retry schedule, durable across restarts.

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'no_target'

export interface WebhookDelivery {
  /**
   * unique per event and target: the event id for the payment's first target (its callbackUrl, else
   * the merchant's default URL), as before there were several; deliveryIdFor otherwise
   */
  deliveryId: string
  /** the payment event's id, the X-Event-Id header and the body's `id`; deliveryId when absent (recorded before) */
  eventId?: string
  /**
   * which target: a webhook endpoint's id, MERCHANT_DEFAULT_TARGET, or null (absent on deliveries
   * recorded before) for the payment's callbackUrl or the one target there was. Deliveries of one
   * payment and target go out in event order, each target in its own line.
   */
  endpointId?: string | null
  paymentId: string
  merchantId: string
  /** webhook kind, e.g. payment.confirmed */
  eventType: string
  /** stream revision of the payment event: deliveries of one payment go out in this order */
  sequence: number
  /** payload without its `timestamp`, which is set per attempt */
  payload: Record<string, unknown>
  /**
   * where it goes; null: the merchant's default URL as it is when sent. A webhook endpoint's delivery
   * goes to the endpoint's URL as it is when sent; this one, its URL when recorded, bounds its host.
   */
  targetUrl: string | null
  status: DeliveryStatus
  /** attempts made on the current retry schedule; a redelivery sets it back to 0 */
  attempts: number
  nextAttemptAt: string | null
  createdAt: string
  deliveredAt: string | null
  lastError: string | null
}

export interface DeliveryAttempt {
  deliveryId: string
  attempt: number
  at: string
  statusCode: number | null
  durationMs: number
  error: string | null
  /**
   * the URL it was sent to (the target's URL at that moment: an endpoint's may change between
   * attempts); absent when there was none, and on attempts recorded before it was kept
   */
  url?: string
}

export type AttemptOutcome =
  | { status: 'delivered'; deliveredAt: string }
  | { status: 'pending'; nextAttemptAt: string }
  | { status: 'failed' }

/** what one claimDue may take */
export interface ClaimBounds {
  /** deliveries claimed by this call, at most */
  limit: number
  /**
   * Only these deliveries, by id (those just recorded, handed to the dispatcher at once): found by
   * their id, without reading the due ones (docs/capacity.md, "Webhooks"); the same rules hold
   */
  among?: readonly string[]
  /** how long each claimed delivery stays reserved for the caller */
  leaseMs: number
  /**
   * Leased deliveries per target host (targetHostOf) at once, over every worker: the unexpired
   * leases on pending deliveries count, so a host whose receiver hangs holds at most this many and
   * the claim passes over its other deliveries (they wait, still due) to take other hosts'.
   */
  perTargetHost: number
}

/** where a page of a merchant's deliveries ends: the next page starts after it */
export interface DeliveryCursor {
  createdAt: string
  deliveryId: string
}

export interface MerchantDeliveriesQuery {
  paymentId?: string
  status?: DeliveryStatus
  limit: number
  /** the last delivery of the previous page */
  after?: DeliveryCursor
}

export interface WebhookDeliveryStore {
  /** inserts the delivery unless one with its id exists; true when inserted */
  enqueue(delivery: WebhookDelivery): Promise<boolean>
  /**
   * Pending deliveries due at `now` that are first in line for their payment and target (no pending
   * delivery of the same paymentId and endpointId with a lower sequence), not leased by another worker, and whose target host has room under
   * `perTargetHost`; in due order, and leased for `leaseMs`.
   */
  claimDue(now: string, bounds: ClaimBounds): Promise<WebhookDelivery[]>
  /**
   * records the attempt and moves the delivery on; releases the lease. Keeps the delivery's latest
   * DELIVERY_ATTEMPTS_KEPT attempts: an older one beyond them is deleted, so that redeliveries to a
   * receiver that keeps failing cannot grow the log without bound (docs/api.md, "Webhook deliveries")
   */
  recordAttempt(attempt: DeliveryAttempt, outcome: AttemptOutcome): Promise<void>
  get(deliveryId: string): Promise<WebhookDelivery | null>
  listByPayment(paymentId: string): Promise<WebhookDelivery[]>
  /**
   * A merchant's deliveries, newest first (createdAt, then deliveryId, both descending), at most
   * `limit`, those after `after` in that order: a page stays the same while newer ones are recorded.
   */
  listByMerchant(merchantId: string, query: MerchantDeliveriesQuery): Promise<WebhookDelivery[]>
  /**
   * the attempts kept (the latest DELIVERY_ATTEMPTS_KEPT), in the order made (a redelivery numbers
   * its attempts from 1 again)
   */
  listAttempts(deliveryId: string): Promise<DeliveryAttempt[]>
  /**
   * Puts a delivery (failed, no_target, delivered, or pending) back in line, due at `now`, with its
   * attempts set back to 0 so that it gets the whole retry schedule again; false when unknown.
   */
  redeliver(deliveryId: string, now: string): Promise<boolean>
  /**
   * Retention (docs/operations.md, "Retention"): deletes at most `limit` deliveries that finished
   * (delivered, failed or no_target) before `finishedBefore`, oldest first, with their attempts, and
   * at most `limit` of whatever else the adapter keeps per claim that ran out before then (MongoDB's
   * leases); returns how many deliveries and such records it deleted, 0 once none are left, so that a
   * caller prunes in bounded batches by calling again until 0. A pending delivery is never deleted,
   * so one payment's order is kept: what holds a later delivery back is a pending earlier one. A
   * delivery finishes when an attempt is recorded as delivered or failed, or when it is enqueued
   * finished; a redelivery makes it pending again, and its next finish counts.
   */
  pruneFinished(finishedBefore: string, limit: number): Promise<number>
}

/** the attempts kept per delivery, the latest; a full retry schedule has 11 */
export const DELIVERY_ATTEMPTS_KEPT = 25

/** the target of the merchant's default webhook URL, set by the operator: an endpoint of its own */
export const MERCHANT_DEFAULT_TARGET = 'merchant-default'

/** the id of the delivery of event `eventId` to `endpointId`: unique per event and target */
export function deliveryIdFor(eventId: string, endpointId: string): string {
  return `${eventId}.${endpointId}`
}

/** the event a delivery tells of: its X-Event-Id */
export function eventIdOf(delivery: Pick<WebhookDelivery, 'deliveryId' | 'eventId'>): string {
  return delivery.eventId ?? delivery.deliveryId
}

/**
 * When a delivery finished, which retention goes by (pruneFinished): null while it is pending; a
 * delivery recorded already finished (no target) finished when delivered, or when recorded.
 */
export function finishedAtOf(
  delivery: Pick<WebhookDelivery, 'status' | 'deliveredAt' | 'createdAt'>,
): string | null {
  return delivery.status === 'pending' ? null : (delivery.deliveredAt ?? delivery.createdAt)
}

/** when an attempt with this outcome, made at `attemptAt`, finishes its delivery: null while pending */
export function finishedByAttempt(attemptAt: string, outcome: AttemptOutcome): string | null {
  if (outcome.status === 'delivered') return outcome.deliveredAt
  return outcome.status === 'failed' ? attemptAt : null
}

/**
 * The host a delivery's concurrency is bounded by (docs/api.md, "Webhooks"): the target URL's host
 * name, lower case, without its port (one machine, whichever port its receivers listen on). A
 * delivery recorded without a target goes to its merchant's webhook URL as it is when sent, so it
 * is bounded with the other such deliveries of that merchant; the key has a space, which no host
 * name has.
 */
export function targetHostOf(delivery: Pick<WebhookDelivery, 'targetUrl' | 'merchantId'>): string {
  const { targetUrl } = delivery
  if (targetUrl === null) return `merchant ${delivery.merchantId}`
  try {
    return new URL(targetUrl).hostname
  } catch {
    // not a URL (never recorded as such: targets are checked when set): bounded on its own
    return targetUrl
  }
}
