// How refunds and payouts show in the merchant API's histories and webhooks (docs/api.md, "Refunds and
// payouts"): each event type under a dotted lower-case name; the payment's history shows its refunds'.

import type { PayoutEventType, RefundEventType } from './outgoing-types.js'

/** the API's name of each refund event type: the state it enters */
export const refundHistoryEventTypes = {
  RefundCreated: 'refund.created',
  RefundAddressGiven: 'refund.ready',
  RefundPlanned: 'refund.sending',
  RefundReleased: 'refund.released',
  RefundSent: 'refund.sent',
  RefundCompleted: 'refund.completed',
  RefundFailed: 'refund.failed',
  RefundCanceled: 'refund.canceled',
} as const satisfies Record<RefundEventType, string>

export const payoutHistoryEventTypes = {
  PayoutCreated: 'payout.created',
  PayoutPlanned: 'payout.sending',
  PayoutReleased: 'payout.released',
  PayoutSent: 'payout.sent',
  PayoutCompleted: 'payout.completed',
  PayoutFailed: 'payout.failed',
  PayoutCanceled: 'payout.canceled',
} as const satisfies Record<PayoutEventType, string>

/** an event of a refund's stream as the event store recorded it */
export interface RefundHistoryEntry {
  eventId: string
  recordedAt: string
  type: RefundEventType
  data: Record<string, unknown>
}
