// The read model's document of a payment, folded from its events in stream order. Pure: whether an
// event is new, a duplicate, or proof of a gap is decided from the revisions alone.

import type { PaymentEventMessage } from '@chainpay/contracts'
import { evolvePayment, initialPaymentState, type PaymentEvent } from '@chainpay/domain'
import { type PaymentDocument, PoisonMessageError } from '@chainpay/ports'

/**
 * The document after `message`, or 'skip' when the document already covers its revision (a
 * duplicate delivery, or a write-through that got ahead). Throws PoisonMessageError when events are
 * missing before it, or the stream does not start with PaymentCreated: that is an upstream bug no
 * retry can mend, so the bus dead-letters the message (and logs an error) instead of stalling on it.
 */
export function projectPaymentEvent(
  document: PaymentDocument | null,
  message: PaymentEventMessage,
): PaymentDocument | 'skip' {
  const { paymentId, revision } = message
  if (document !== null && revision <= document.revision) return 'skip'
  const expected = document === null ? 0 : document.revision + 1
  if (revision !== expected) {
    const held = document === null ? 'no document' : `a document at revision ${document.revision}`
    throw new PoisonMessageError(
      `payment ${paymentId}: event ${message.type} at revision ${revision} arrived with ${held}; revision ${expected} is missing`,
    )
  }
  const state = evolvePayment(document?.state ?? initialPaymentState, toEvent(message))
  if (state.status === 'none') {
    throw new PoisonMessageError(
      `payment ${paymentId}: the stream starts with ${message.type} at revision 0, not PaymentCreated`,
    )
  }
  return {
    paymentId,
    merchantId: state.created.merchantId,
    revision,
    state,
    updatedAt: message.recordedAt,
  }
}

function toEvent(message: PaymentEventMessage): PaymentEvent {
  return { type: message.type, data: message.data } as PaymentEvent
}
