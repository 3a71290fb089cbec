import type { Outgoing, OutgoingKind, OutgoingStatus, RefundHistoryEntry } from '@chainpay/domain'

// How the gateway asks payment-command for refunds and payouts (docs/api.md, "Refunds and payouts";
// the offline procedure's admin routes, docs/treasury.md): a direct call in standalone, HTTP in the
// distributed shape, exactly as PaymentCommands. Failures are DomainErrors with the merchant-facing
// code, and UnavailableError (failures.ts) when payment-command or its store cannot serve right now.

export interface OutgoingSnapshot {
  item: Outgoing
  /** stream revision of `item` */
  revision: number
}

export interface CreateOutgoingOutcome extends OutgoingSnapshot {
  /** 'replayed' when the idempotency key matched an earlier identical request */
  outcome: 'created' | 'replayed'
}

/** a merchant's refunds or payouts, newest first */
export interface OutgoingListQuery {
  merchantId: string
  kind: OutgoingKind
  limit: number
  /** from an earlier page's nextCursor */
  cursor?: string
  statuses?: readonly OutgoingStatus[]
  /** refunds of this payment */
  paymentId?: string
}

/** every merchant's refunds and payouts of a network, for the offline procedure (oldest first) */
export interface OperatorOutgoingQuery {
  network: string
  statuses: readonly OutgoingStatus[]
  /** the wallet they are paid from: 'operator' or a merchant wallet's id; all when absent */
  walletId?: string
  limit: number
  cursor?: string
}

export interface OutgoingPage {
  data: Outgoing[]
  nextCursor: string | null
}

/** a merchant's balance of one asset, amounts in its smallest units (docs/api.md, "Balances") */
export interface MerchantBalance {
  network: string
  currency: string
  decimals: number
  receivedNetUnits: string
  /** refunds and payouts not failed or canceled */
  refundedUnits: string
  paidOutUnits: string
  availableUnits: string
}

/** a step of the offline procedure recorded through the admin API (docs/treasury.md) */
export type OutgoingStep =
  | { type: 'Plan'; planId: string }
  | { type: 'Release'; planId: string }
  | { type: 'MarkSent'; planId: string; txHash: string }
  | { type: 'Complete'; txHash: string; networkFee: { currency: string; amount: string } }
  | { type: 'Fail'; txHash: string | null; reason: string }

export interface OutgoingCommands {
  /** the body as the merchant sent it; payment-command validates it. PAYMENT_NOT_FOUND for another's */
  createRefund(input: {
    merchantId: string
    paymentId: string
    request: unknown
  }): Promise<CreateOutgoingOutcome>
  createPayout(input: { merchantId: string; request: unknown }): Promise<CreateOutgoingOutcome>
  /** REFUND_NOT_FOUND / PAYOUT_NOT_FOUND for unknown or another merchant's */
  cancelOutgoing(input: { merchantId: string; kind: OutgoingKind; id: string }): Promise<OutgoingSnapshot>
  /** from the source of truth; null when unknown, or another merchant's when merchantId is given */
  getOutgoing(input: {
    kind: OutgoingKind
    id: string
    merchantId?: string
  }): Promise<OutgoingSnapshot | null>
  listOutgoing(query: OutgoingListQuery): Promise<OutgoingPage>
  listOperatorOutgoing(query: OperatorOutgoingQuery): Promise<OutgoingPage>
  /** the claim page: the customer's address, once (the same again is a replay) */
  giveRefundAddress(input: { refundId: string; address: string }): Promise<OutgoingSnapshot>
  /** the offline procedure's steps, through the admin API */
  recordOutgoingStep(input: { kind: OutgoingKind; id: string; step: OutgoingStep }): Promise<OutgoingSnapshot>
  /** the events of a payment's refunds, oldest first per refund (the payment's history shows them) */
  getRefundHistory(input: { merchantId: string; paymentId: string }): Promise<RefundHistoryEntry[]>
  /** the merchant's balance per network and asset it received */
  getBalances(input: { merchantId: string }): Promise<MerchantBalance[]>
}
