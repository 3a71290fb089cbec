// Refunds and payouts (decisions section 20, docs/api.md "Refunds and payouts"): money leaving a
// merchant's balance through the offline procedure. Their types: the events of each one's own stream
// (refund-{id}, payout-{id}), the one state both fold into, and their commands. Amounts are integers
// of the asset's smallest unit, written as decimal strings, so that events and state are plain JSON.

import type { Metadata } from './create-request.js'

export type OutgoingKind = 'refund' | 'payout'

/**
 * awaiting_address (refunds only) -> ready -> sending (in a signed plan) -> sent (broadcast) ->
 * completed | failed; canceled until it is in a plan
 */
export type OutgoingStatus =
  | 'awaiting_address'
  | 'ready'
  | 'sending'
  | 'sent'
  | 'completed'
  | 'failed'
  | 'canceled'

export const OutgoingStatuses: readonly OutgoingStatus[] = [
  'awaiting_address',
  'ready',
  'sending',
  'sent',
  'completed',
  'failed',
  'canceled',
]

/** what a treasury paid for sending it, in the network's native coin */
export interface NetworkFee {
  currency: string
  decimals: number
  amountUnits: string
}

interface OutgoingCreatedCommon {
  merchantId: string
  network: string
  currency: string
  decimals: number
  /** the amount exactly as the merchant sent it */
  amount: string
  amountUnits: string
  /** null for a refund whose customer gives it on the claim page */
  address: string | null
  /** the wallet it is paid from: 'operator' or a merchant wallet's id */
  walletId: string
  idempotencyKey: string
  /** sha256 hex of the canonical JSON of the request, to tell a replay from a reuse */
  requestFingerprint: string
  createdAt: string
}

export interface RefundCreatedData extends OutgoingCreatedCommon {
  refundId: string
  paymentId: string
  reason: string | null
}

export interface PayoutCreatedData extends OutgoingCreatedCommon {
  payoutId: string
  metadata: Metadata
}

export interface AddressGivenData {
  address: string
  givenAt: string
}
export interface PlannedData {
  planId: string
  plannedAt: string
}
export interface ReleasedData {
  planId: string
  releasedAt: string
}
export interface SentData {
  planId: string
  txHash: string
  sentAt: string
}
export interface CompletedData {
  txHash: string
  networkFee: NetworkFee
  completedAt: string
}
export interface FailedData {
  txHash: string | null
  reason: string
  failedAt: string
}
export interface CanceledData {
  canceledAt: string
}

export type RefundEvent =
  | { type: 'RefundCreated'; data: RefundCreatedData }
  | { type: 'RefundAddressGiven'; data: AddressGivenData & { refundId: string } }
  | { type: 'RefundPlanned'; data: PlannedData & { refundId: string } }
  | { type: 'RefundReleased'; data: ReleasedData & { refundId: string } }
  | { type: 'RefundSent'; data: SentData & { refundId: string } }
  | { type: 'RefundCompleted'; data: CompletedData & { refundId: string } }
  | { type: 'RefundFailed'; data: FailedData & { refundId: string } }
  | { type: 'RefundCanceled'; data: CanceledData & { refundId: string } }

export type PayoutEvent =
  | { type: 'PayoutCreated'; data: PayoutCreatedData }
  | { type: 'PayoutPlanned'; data: PlannedData & { payoutId: string } }
  | { type: 'PayoutReleased'; data: ReleasedData & { payoutId: string } }
  | { type: 'PayoutSent'; data: SentData & { payoutId: string } }
  | { type: 'PayoutCompleted'; data: CompletedData & { payoutId: string } }
  | { type: 'PayoutFailed'; data: FailedData & { payoutId: string } }
  | { type: 'PayoutCanceled'; data: CanceledData & { payoutId: string } }

export type RefundEventType = RefundEvent['type']
export type PayoutEventType = PayoutEvent['type']

/** A refund or a payout, as both deciders fold their events. */
export interface Outgoing {
  kind: OutgoingKind
  id: string
  merchantId: string
  /** refunds: the payment refunded; payouts: null */
  paymentId: string | null
  network: string
  currency: string
  decimals: number
  amount: string
  amountUnits: string
  address: string | null
  /** refunds created without an address: the customer gives it through the claim page */
  claimable: boolean
  reason: string | null
  /** payouts: as the merchant sent it; refunds: null */
  metadata: Metadata | null
  walletId: string
  idempotencyKey: string
  requestFingerprint: string
  status: OutgoingStatus
  /** the plan it is in, from sending on (kept after sent for the record) */
  planId: string | null
  txHash: string | null
  networkFee: NetworkFee | null
  failureReason: string | null
  createdAt: string
  updatedAt: string
}

export type OutgoingState = { status: 'none' } | Outgoing

/** the lifecycle commands refunds and payouts share, after creation */
export type OutgoingLifecycleCommand =
  | { type: 'Cancel'; data: { merchantId: string; now: string } }
  | { type: 'Plan'; data: { planId: string; now: string } }
  | { type: 'Release'; data: { planId: string; now: string } }
  | { type: 'MarkSent'; data: { planId: string; txHash: string; now: string } }
  | { type: 'Complete'; data: { txHash: string; networkFee: NetworkFee; now: string } }
  | { type: 'Fail'; data: { txHash: string | null; reason: string; now: string } }

export interface CreateOutgoingData {
  id: string
  merchantId: string
  network: string
  currency: string
  decimals: number
  amount: string
  address: string | null
  walletId: string
  idempotencyKey: string
  requestFingerprint: string
  now: string
}

export type RefundCommand =
  | { type: 'CreateRefund'; data: CreateOutgoingData & { paymentId: string; reason: string | null } }
  | { type: 'GiveAddress'; data: { address: string; now: string } }
  | OutgoingLifecycleCommand

export type PayoutCommand =
  | { type: 'CreatePayout'; data: CreateOutgoingData & { metadata: Metadata } }
  | OutgoingLifecycleCommand
