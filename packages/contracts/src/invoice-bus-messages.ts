// A stored invoice event as the relay publishes it on Topics.invoiceEvents, keyed by invoice id:
// the envelope of a payment event message (bus-messages.ts), with the invoice's id.

import type { InvoiceEvent } from '@chainpay/domain'
import { PaymentEventHeaders } from './bus-messages.js'
import { parseInvoiceEvent } from './invoice-event-schemas.js'

export type InvoiceEventMessage = {
  eventId: string
  invoiceId: string
  streamId: string
  revision: number
  schemaVersion: number
  recordedAt: string
} & InvoiceEvent

export function invoiceEventBusMessage(message: InvoiceEventMessage): {
  key: string
  value: string
  headers: Record<string, string>
} {
  return {
    key: message.invoiceId,
    value: JSON.stringify(message),
    headers: {
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: message.type,
      [PaymentEventHeaders.streamRevision]: String(message.revision),
    },
  }
}

/** the message, its envelope checked and its data validated; throws on anything else (poison) */
export function parseInvoiceEventMessage(value: string): InvoiceEventMessage {
  const parsed: unknown = JSON.parse(value)
  if (typeof parsed !== 'object' || parsed === null) throw new Error('invoice event message: not an object')
  const envelope = parsed as Record<string, unknown>
  const { eventId, invoiceId, streamId, revision, schemaVersion, recordedAt, type, data } = envelope
  if (
    typeof eventId !== 'string' ||
    typeof invoiceId !== 'string' ||
    typeof streamId !== 'string' ||
    typeof recordedAt !== 'string' ||
    typeof type !== 'string' ||
    !Number.isInteger(revision) ||
    !Number.isInteger(schemaVersion)
  ) {
    throw new Error('invoice event message: malformed envelope')
  }
  const event = parseInvoiceEvent(type, schemaVersion as number, data)
  return {
    eventId,
    invoiceId,
    streamId,
    revision: revision as number,
    schemaVersion: schemaVersion as number,
    recordedAt,
    ...event,
  }
}
