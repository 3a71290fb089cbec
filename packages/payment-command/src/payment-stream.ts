// A payment's stream in the event store: folded into the aggregate state on the way in, stamped
// with ids and the schema version on the way out.

import { eventSchemaVersion, parsePaymentEvent } from '@chainpay/contracts'
import {
  evolvePayment,
  initialPaymentState,
  type PaymentEvent,
  type PaymentState,
  toPaymentStreamId,
} from '@chainpay/domain'
import type { EventStore, NewEvent, RecordedEvent } from '@chainpay/ports'

export interface LoadedPayment {
  state: PaymentState
  /** revision of the stream's last event; -1 when the stream does not exist */
  revision: number
}

export async function loadPayment(eventStore: EventStore, paymentId: string): Promise<LoadedPayment> {
  const recorded = await eventStore.readStream(toPaymentStreamId(paymentId))
  const state = recorded.map(toPaymentEvent).reduce(evolvePayment, initialPaymentState)
  return { state, revision: recorded.at(-1)?.revision ?? -1 }
}

/** the stored event as the current PaymentEvent shape, upcast and validated */
export function toPaymentEvent(recorded: RecordedEvent): PaymentEvent {
  try {
    return parsePaymentEvent(recorded.type, storedSchemaVersion(recorded), recorded.data)
  } catch (error) {
    throw new Error(
      `stream ${recorded.streamId} revision ${recorded.revision}: ${(error as Error).message}`,
      { cause: error },
    )
  }
}

/** the schema version in a stored event's metadata; an event stored without one predates versioning: 1 */
export function storedSchemaVersion(recorded: RecordedEvent): number {
  const version = recorded.metadata.schemaVersion
  return version === undefined ? 1 : Number(version)
}

export function toNewEvent(event: PaymentEvent, eventId: string): NewEvent {
  return {
    eventId,
    type: event.type,
    data: event.data,
    // each type has its own version: one type changing shape leaves the others' where they are
    metadata: { schemaVersion: eventSchemaVersion(event.type) },
  }
}
