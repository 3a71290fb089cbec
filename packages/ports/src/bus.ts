// The bus port: topics of keyed messages, consumer groups with durable offsets, at-least-once
// delivery in order per key. Nothing is dropped for being slow: a handler that fails is retried,
// with backoff, until it succeeds, and the messages after it wait (a projection must not see
// revision 5 before revision 4). Only a message marked poison (see isPoisonMessage), which no retry
// can fix, goes to the dead-letter topic `${topic}.dead-letter` at once, so that it never blocks
// the rest.

export interface BusMessage {
  /** messages with one key are delivered in publish order (the payment id for payment events) */
  key: string
  /** JSON text */
  value: string
  headers: Record<string, string>
}

export interface ConsumedMessage extends BusMessage {
  topic: string
  /** adapter-defined, for logs */
  offset: string
}

export interface SubscribeOptions {
  topic: string
  groupId: string
  /**
   * Resolves when the message is handled; its offset is then committed. Throws a poison error
   * (isPoisonMessage) for a message that can never be handled: it is dead-lettered at once. Any
   * other error is transient: the message is retried, and later messages of its key wait for it;
   * adapters log a warning for failed attempts (throttled, so that a long outage does not flood).
   */
  handle: (message: ConsumedMessage) => Promise<void>
  /**
   * Attempts before a message that keeps failing is dead-lettered anyway, for consumers that prefer
   * progress over order. Default: no limit, the message is retried until it succeeds.
   */
  maxAttempts?: number
  /** delay before the first retry, doubled after each failure; default 200 ms */
  retryDelayMs?: number
  /** the longest delay between two attempts; default 30 s */
  maxRetryDelayMs?: number
}

export interface BusSubscription {
  /**
   * Stops taking messages and waits for the handler in flight: its offset is committed if it
   * succeeded. A message that failed, or waits for its next attempt, is left uncommitted and goes
   * to the group's next subscriber; stop() does not wait out the retry delay.
   */
  stop(): Promise<void>
}

export interface Bus {
  publish(topic: string, messages: BusMessage[]): Promise<void>
  subscribe(options: SubscribeOptions): Promise<BusSubscription>
  /**
   * Why subscriptions that were not stopped take no messages, one line each (its topic and group,
   * and what happened: a consumer that crashed for good, one restarting after a crash, a read loop
   * that keeps failing); [] when every one consumes. For readiness: a message that fails its handler
   * and is retried is not a subscription's failure.
   */
  subscriptionFailures(): string[]
  close(): Promise<void>
}

/**
 * Thrown by a handler for a message that can never be processed: malformed, invalid, or out of
 * place. The bus dead-letters it at once and logs an error; any other error is retried. Throw it
 * only when retrying cannot help: an outage of a store is not poison, whatever the message.
 */
export class PoisonMessageError extends Error {
  override readonly name = 'PoisonMessageError'
  readonly poison = true
}

/** true for errors marked `poison: true` (PoisonMessageError, and contracts' MessageFormatError) */
export function isPoisonMessage(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { poison?: unknown }).poison === true
}

/** A consumer group's subscription as a lifecycle service (the shape @chainpay/platform runs). */
export interface ConsumerService {
  name: string
  /** subscribes; a second call while subscribed does nothing */
  start(): Promise<void>
  /** stops taking messages, waits for the one in flight and commits its offset */
  stop(): Promise<void>
}

/** Subscribes on start, stops the subscription on stop, and logs once it is subscribed. */
export function consumerService(
  bus: Bus,
  options: SubscribeOptions & {
    name: string
    logger: { info(fields: object, message: string): void }
    /** more fields for the start log line */
    logFields?: object
  },
): ConsumerService {
  const { name, logger, logFields, ...subscribeOptions } = options
  let subscription: BusSubscription | undefined
  return {
    name,
    async start() {
      if (subscription) return
      subscription = await bus.subscribe(subscribeOptions)
      logger.info({ groupId: subscribeOptions.groupId, ...logFields }, `${name} started`)
    },
    async stop() {
      await subscription?.stop()
      subscription = undefined
    },
  }
}

export const Topics = {
  paymentEvents: 'chainpay.payment-events',
  /** the invoices' events (docs/api.md, "Invoices"), keyed by invoice id */
  invoiceEvents: 'chainpay.invoice-events',
  chainObservations: 'chainpay.chain-observations',
  /**
   * hints for the notifier's dispatcher: deliveries put in line by the gateway (a redelivery, a test
   * event), to be claimed at once rather than at its next poll (deliveryWakeupMessage)
   */
  webhookWakeups: 'chainpay.webhook-wakeups',
  /** refund and payout events, each with the item after it (docs/api.md, "Refunds and payouts") */
  outgoingEvents: 'chainpay.outgoing-events',
  /** deposit addresses' events (docs/api.md, "Deposit addresses"), keyed by the address */
  depositEvents: 'chainpay.deposit-events',
} as const

/** a wake-up of the dispatcher for these deliveries, due now; keyed by the first */
export function deliveryWakeupMessage(deliveryIds: readonly string[]): BusMessage {
  return { key: deliveryIds[0] ?? '', value: JSON.stringify({ deliveryIds }), headers: {} }
}

/** the delivery ids of a wake-up; [] for a message that is not one (a hint: nothing is lost) */
export function deliveryIdsOfWakeup(value: string): string[] {
  try {
    const parsed: unknown = JSON.parse(value)
    const ids = (parsed as { deliveryIds?: unknown } | null)?.deliveryIds
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : []
  } catch {
    return []
  }
}

export const deadLetterTopic = (topic: string): string => `${topic}.dead-letter`
