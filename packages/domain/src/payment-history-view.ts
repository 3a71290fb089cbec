// A payment's history as the merchant API shows it (docs/api.md, "GET /payments/{paymentId}/events"):
// every event of its stream, oldest first, under a dotted lower-case type.

import type { PaymentEvent, PaymentEventType } from './payment-types.js'

/** an event of a payment's stream as the event store recorded it */
export interface PaymentHistoryEntry {
  eventId: string
  /** when the event store recorded it */
  recordedAt: string
  event: PaymentEvent
}

export interface PaymentHistoryEventView {
  id: string
  type: PaymentHistoryEventType
  occurredAt: string
  /** the event's data as recorded: amounts in the asset's smallest unit (docs/api.md) */
  data: Record<string, unknown>
}

/** the API's name of each event type; a new event type must be given one here */
export const paymentHistoryEventTypes = {
  PaymentCreated: 'payment.created',
  TransferDetected: 'transfer.detected',
  TransferConfirmationsUpdated: 'transfer.confirmations_updated',
  TransferWithdrawn: 'transfer.withdrawn',
  TransferDropped: 'transfer.dropped',
  PaymentConfirmed: 'payment.confirmed',
  PaymentUnderpaid: 'payment.underpaid',
  PaymentOverpaid: 'payment.overpaid',
  PaymentExpired: 'payment.expired',
  PaymentCanceled: 'payment.canceled',
  PaymentFailed: 'payment.failed',
  LateFundsReceived: 'late_funds.received',
  PaymentUnderpaidFinalized: 'payment.underpaid_final',
  ForeignFundsReceived: 'foreign_funds.received',
  PaymentFundsSwept: 'funds.swept',
} as const satisfies Record<PaymentEventType, string>

export type PaymentHistoryEventType = (typeof paymentHistoryEventTypes)[PaymentEventType]

/**
 * How much of the confirmation count to show (docs/api.md, "GET /payments/{paymentId}/events"): all,
 * every `transfer.confirmations_updated` (a TRON payment has about 20); last, only the last one of
 * each transfer, where its count ended
 */
export type HistoryConfirmations = 'all' | 'last'

export function toPaymentHistoryView(
  entries: readonly PaymentHistoryEntry[],
  options: { confirmations?: HistoryConfirmations } = {},
): {
  data: PaymentHistoryEventView[]
} {
  const shown = options.confirmations === 'last' ? withLastConfirmationsOnly(entries) : entries
  return {
    data: shown.map(({ eventId, recordedAt, event }) => ({
      id: eventId,
      type: paymentHistoryEventTypes[event.type],
      occurredAt: recordedAt,
      data: Object.fromEntries(Object.entries(event.data)),
    })),
  }
}

/** the entries without the confirmation updates that a later one of the same transfer follows */
function withLastConfirmationsOnly(entries: readonly PaymentHistoryEntry[]): PaymentHistoryEntry[] {
  const transferOf = (event: PaymentEvent) =>
    event.type === 'TransferConfirmationsUpdated' ? `${event.data.txHash}#${event.data.transferIndex}` : null
  const lastIndex = new Map<string, number>()
  entries.forEach(({ event }, index) => {
    const transfer = transferOf(event)
    if (transfer !== null) lastIndex.set(transfer, index)
  })
  return entries.filter(({ event }, index) => {
    const transfer = transferOf(event)
    return transfer === null || lastIndex.get(transfer) === index
  })
}
