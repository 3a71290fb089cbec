/** Expiry deadlines of open payments, kept by payment-command from its own events. */
export interface PaymentDeadline {
  paymentId: string
  network: string
  expiresAt: string
}

export interface DueDeadline extends PaymentDeadline {
  /** failed expiry attempts so far, for the caller's backoff */
  attempts: number
}

export interface DueDeadlinesQuery {
  /** deadlines with expiresAt at or before this */
  expiredBy: string
  /** the clock: a deadline set to be retried later is left out until its retry time */
  now: string
  limit: number
  /** only the deadlines of this network when given */
  network?: string
}

/**
 * A payment can expire only once the chain watcher has reported that it watches the payment's
 * address and has checked every block since the payment's creation: until then a transfer made in
 * time may be unseen. Deadlines and watch marks come from different consumers, in either order.
 */
export interface PaymentDeadlineStore {
  /** idempotent; keeps the watch mark and the retry state */
  upsert(deadline: PaymentDeadline): Promise<void>
  /** idempotent; drops the deadline with its watch mark and retry state */
  remove(paymentId: string): Promise<void>
  /**
   * Records that the watcher watches the payment; idempotent, the first mark is kept. Works before
   * the deadline is known: the mark waits for it. A mark for a payment whose deadline was already
   * removed is never returned by due().
   */
  markWatched(paymentId: string, at: string): Promise<void>
  /** counts a failed expiry attempt and leaves the deadline out of due() until `retryAt` */
  retryLater(paymentId: string, retryAt: string): Promise<void>
  /**
   * Watched deadlines with expiresAt <= expiredBy and no retry time after `now`, earliest expiry
   * first, at most `limit`.
   */
  due(query: DueDeadlinesQuery): Promise<DueDeadline[]>
}
