// The fold of a payment's recorded events, one at a time and in stream order, into the document the
// read sides keep (the API's read model, the notifier's copy of each payment). Pure: whether an
// event is new, a duplicate, or proof of a gap is decided from the stream revisions alone.

import { initialPaymentState } from './payment.js'
import { evolvePayment } from './payment-evolve.js'
import type { OpenPayment, PaymentEvent } from './payment-types.js'

/** A payment as a read side holds it: the aggregate's state after the event at `revision`. */
export interface FoldedPayment {
  paymentId: string
  merchantId: string
  /** stream revision of the last event folded into `state` */
  revision: number
  state: OpenPayment
  /** when the last event folded in was recorded (or, for a write-through, when it was written) */
  updatedAt: string
}

/** An event as the event store recorded it in its payment's stream. */
export type RecordedPaymentEvent = { paymentId: string; revision: number; recordedAt: string } & PaymentEvent

/**
 * The stream cannot be folded: events are missing before this one, or the stream does not start
 * with PaymentCreated. An upstream bug no retry can mend; marked `poison`, so that a bus consumer
 * sets the message aside (dead letter, with an error log) instead of stalling on it.
 */
export class BrokenPaymentStreamError extends Error {
  override readonly name = 'BrokenPaymentStreamError'
  readonly poison = true
}

/**
 * The payment after `recorded`, or 'skip' when `folded` already covers its revision (a duplicate
 * delivery, or a write-through that got ahead).
 */
export function foldPaymentEvent(
  folded: FoldedPayment | null,
  recorded: RecordedPaymentEvent,
): FoldedPayment | 'skip' {
  const { paymentId, revision } = recorded
  if (folded !== null && revision <= folded.revision) return 'skip'
  const expected = folded === null ? 0 : folded.revision + 1
  if (revision !== expected) {
    const held = folded === null ? 'nothing folded' : `the payment folded up to revision ${folded.revision}`
    throw new BrokenPaymentStreamError(
      `payment ${paymentId}: event ${recorded.type} at revision ${revision} arrived with ${held}; revision ${expected} is missing`,
    )
  }
  const state = evolvePayment(folded?.state ?? initialPaymentState, toEvent(recorded))
  if (state.status === 'none') {
    throw new BrokenPaymentStreamError(
      `payment ${paymentId}: the stream starts with ${recorded.type} at revision 0, not PaymentCreated`,
    )
  }
  return { paymentId, merchantId: state.created.merchantId, revision, state, updatedAt: recorded.recordedAt }
}

function toEvent(recorded: RecordedPaymentEvent): PaymentEvent {
  return { type: recorded.type, data: recorded.data } as PaymentEvent
}
