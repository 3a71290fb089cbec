/** Expiry deadlines of open payments, kept by payment-command from its own events. */
export interface PaymentDeadline {
  paymentId: string
  network: string
  expiresAt: string
}

export interface PaymentDeadlineStore {
  /** idempotent */
  upsert(deadline: PaymentDeadline): Promise<void>
  /** idempotent */
  remove(paymentId: string): Promise<void>
  /** deadlines with expiresAt <= now, earliest first; only those of `network` when it is given */
  due(now: string, limit: number, network?: string): Promise<PaymentDeadline[]>
}
