// The bus port: topics of keyed messages, consumer groups with durable offsets, at-least-once
// delivery in order per key. A message whose handler keeps failing goes to the dead-letter topic
// `${topic}.dead-letter` after bounded retries, so one bad message never blocks the rest.

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
  handle: (message: ConsumedMessage) => Promise<void>
  /** attempts before dead-lettering; default 5 */
  maxAttempts?: number
  /** delay before the first retry, doubled each time; default 200 ms */
  retryDelayMs?: number
}

export interface BusSubscription {
  /** stops taking messages, waits for the one in flight and commits its offset */
  stop(): Promise<void>
}

export interface Bus {
  publish(topic: string, messages: BusMessage[]): Promise<void>
  subscribe(options: SubscribeOptions): Promise<BusSubscription>
  close(): Promise<void>
}

/**
 * Thrown by a handler for a message that can never be processed: malformed, invalid, or out of
 * place. The bus dead-letters it at once; any other error is retried.
 */
export class PoisonMessageError extends Error {
  override readonly name = 'PoisonMessageError'
  readonly poison = true
}

/** true for errors marked `poison: true` (PoisonMessageError, and contracts' MessageFormatError) */
export function isPoisonMessage(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { poison?: unknown }).poison === true
}

export const Topics = {
  paymentEvents: 'chainpay.payment-events',
  chainObservations: 'chainpay.chain-observations',
} as const

export const deadLetterTopic = (topic: string): string => `${topic}.dead-letter`
