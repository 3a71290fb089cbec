import type { CanceledBy, OpenPayment, PaymentHistoryEntry, Sweep } from '@chainpay/domain'

// How the gateway asks payment-command to act: a direct call in standalone, HTTP in the distributed
// shape. Failures are DomainErrors carrying the merchant-facing code, and UnavailableError
// (failures.ts) when payment-command or its store cannot serve right now.

export interface PaymentSnapshot {
  payment: OpenPayment
  /** stream revision of `payment` */
  revision: number
}

export interface CreatePaymentInput {
  /**
   * the authenticated merchant; payment-command loads it, and its fee policy, from the merchant
   * store itself and refuses a merchant it does not know (NOT_FOUND): it never takes a caller's word
   * for either (docs/architecture.md, "The command API")
   */
  merchantId: string
  /** the body exactly as the merchant sent it (parsed JSON): the domain validates it, and nothing before */
  request: unknown
}

export interface CreatePaymentOutcome extends PaymentSnapshot {
  /** 'replayed' when the idempotency key matched an earlier identical request */
  outcome: 'created' | 'replayed'
}

/**
 * A sweep the operator records on a payment (docs/api.md, "Balances and sweeps"): amounts in whole
 * units as decimal strings, exactly as the admin API took them; the domain validates them.
 */
export interface RecordSweepInput {
  paymentId: string
  txHash: string
  currency: string
  amount: string
  fee: string
  feeCurrency: string
  treasury: string
}

export interface RecordSweepOutcome extends PaymentSnapshot {
  /** 'replayed' when the same sweep (transaction and currency, same figures) was recorded before */
  outcome: 'recorded' | 'replayed'
  /** the sweep as recorded, the earlier record on a replay */
  sweep: Sweep
}

export interface PaymentCommands {
  createPayment(input: CreatePaymentInput): Promise<CreatePaymentOutcome>
  /**
   * throws PAYMENT_NOT_FOUND for an unknown id or another merchant's payment; canceledBy is the
   * merchant unless the customer's page asks (docs/api.md, "The customer's page")
   */
  cancelPayment(input: {
    merchantId: string
    paymentId: string
    canceledBy?: CanceledBy
  }): Promise<PaymentSnapshot>
  /** the payment from the source of truth; null for unknown or another merchant's */
  getPayment(input: { merchantId: string; paymentId: string }): Promise<PaymentSnapshot | null>
  /**
   * the payment's whole stream from the source of truth, oldest first, each event at its current
   * schema version; null for unknown or another merchant's
   */
  getPaymentHistory(input: { merchantId: string; paymentId: string }): Promise<PaymentHistoryEntry[] | null>
  /**
   * the operator's record of a sweep, for any merchant's payment (the admin API); throws
   * PAYMENT_NOT_FOUND, VALIDATION_ERROR, SWEEP_EXCEEDS_UNSWEPT or SWEEP_TX_REUSED
   */
  recordSweep(input: RecordSweepInput): Promise<RecordSweepOutcome>
}
