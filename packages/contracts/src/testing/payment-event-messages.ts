// Payment events wrapped as the relay publishes them, for the tests of every consumer.

import { randomUUID } from 'node:crypto'
import type { PaymentEvent } from '@chainpay/domain'
import { at } from '@chainpay/domain/testing'
import type { PaymentEventMessage } from '../bus-messages.js'
import { eventSchemaVersion } from '../event-schemas.js'

/** the event at `revision` of its payment's stream, recorded `revision` minutes after 14:00 */
export function paymentEventMessage(event: PaymentEvent, revision = 0): PaymentEventMessage {
  const { paymentId } = event.data
  return {
    eventId: randomUUID(),
    paymentId,
    streamId: `payment-${paymentId}`,
    revision,
    schemaVersion: eventSchemaVersion(event.type),
    recordedAt: at(revision),
    ...event,
  }
}

/** one payment's events in order, revisions from 0 */
export function paymentEventMessages(events: PaymentEvent[]): PaymentEventMessage[] {
  return events.map((event, revision) => paymentEventMessage(event, revision))
}
