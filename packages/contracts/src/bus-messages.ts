// What travels on the bus. Values are JSON text of these shapes; the typebox schemas that validate
// them on the consuming side live in bus-schemas.ts and must match these types exactly.

import type { PaymentCommand, PaymentEvent } from '@chainpay/domain'

/** A stored payment event as the relay publishes it, keyed by paymentId. */
export type PaymentEventMessage = {
  eventId: string
  paymentId: string
  streamId: string
  revision: number
  /** version of the event's data schema */
  schemaVersion: number
  recordedAt: string
} & PaymentEvent

/** Headers on every payment event message. */
export const PaymentEventHeaders = {
  eventId: 'event-id',
  eventType: 'event-type',
  streamRevision: 'stream-revision',
} as const

/** A payment event message as it is published: keyed by payment, the envelope fields in headers. */
export function paymentEventBusMessage(message: PaymentEventMessage): {
  key: string
  value: string
  headers: Record<string, string>
} {
  return {
    key: message.paymentId,
    value: JSON.stringify(message),
    headers: {
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: message.type,
      [PaymentEventHeaders.streamRevision]: String(message.revision),
    },
  }
}

export type TransferObservation = {
  kind: 'transfer'
  network: string
  paymentId: string
  txHash: string
  transferIndex: number
  address: string
  amountUnits: string
  blockHeight: number
  blockTime: string
  confirmations: number
  status: 'seen' | 'withdrawn'
  withdrawReason: 'DROPPED' | 'REVERTED' | null
  observedAt: string
}

/** The watcher's progress: it has scanned every block up to `height`, whose time is `blockTime`. */
export type ChainProgressObservation = {
  kind: 'progress'
  network: string
  height: number
  blockTime: string
  observedAt: string
}

/**
 * The watcher watches the payment's address and has checked every block since the payment's
 * creation for it: from here on, the watcher's progress speaks for this payment too.
 */
export type WatchingObservation = {
  kind: 'watching'
  network: string
  paymentId: string
  address: string
  observedAt: string
}

/** Chain observations are keyed by paymentId (transfers, watching) or network (progress). */
export type ChainObservationMessage = TransferObservation | ChainProgressObservation | WatchingObservation

/** A bus message that does not parse or validate; marked `poison` so that the bus dead-letters it. */
export class MessageFormatError extends Error {
  override readonly name = 'MessageFormatError'
  readonly poison = true
}

/** the payment command that records a transfer observation, as the command side received it at `now` */
export function recordTransferObservationCommand(
  paymentId: string,
  observation: TransferObservation,
  now: string,
): Extract<PaymentCommand, { type: 'RecordTransferObservation' }> {
  const { txHash, transferIndex, status, withdrawReason, amountUnits, blockHeight, blockTime } = observation
  return {
    type: 'RecordTransferObservation',
    data: {
      paymentId,
      txHash,
      transferIndex,
      status,
      ...(withdrawReason === null ? {} : { withdrawReason }),
      amountUnits,
      blockHeight,
      blockTime,
      confirmations: observation.confirmations,
      now,
    },
  }
}
