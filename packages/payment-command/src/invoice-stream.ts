// An invoice's stream in the event store (`invoice-<invoiceId>`): folded on the way in, stamped with
// ids and the schema version on the way out, like a payment's (payment-stream.ts).

import { invoiceEventSchemaVersion, parseInvoiceEvent } from '@chainpay/contracts'
import {
  evolveInvoice,
  type InvoiceEvent,
  type InvoiceState,
  initialInvoiceState,
  toInvoiceStreamId,
} from '@chainpay/domain'
import type { EventStore, NewEvent, RecordedEvent } from '@chainpay/ports'
import { storedSchemaVersion } from './payment-stream.js'

export interface LoadedInvoice {
  state: InvoiceState
  /** revision of the stream's last event; -1 when the stream does not exist */
  revision: number
}

export async function loadInvoice(eventStore: EventStore, invoiceId: string): Promise<LoadedInvoice> {
  const recorded = await eventStore.readStream(toInvoiceStreamId(invoiceId))
  const state = recorded.map(toInvoiceEvent).reduce(evolveInvoice, initialInvoiceState)
  return { state, revision: recorded.at(-1)?.revision ?? -1 }
}

export function toInvoiceEvent(recorded: RecordedEvent): InvoiceEvent {
  try {
    return parseInvoiceEvent(recorded.type, storedSchemaVersion(recorded), recorded.data)
  } catch (error) {
    throw new Error(
      `stream ${recorded.streamId} revision ${recorded.revision}: ${(error as Error).message}`,
      { cause: error },
    )
  }
}

export function toNewInvoiceEvent(event: InvoiceEvent, eventId: string): NewEvent {
  return {
    eventId,
    type: event.type,
    data: event.data,
    metadata: { schemaVersion: invoiceEventSchemaVersion(event.type) },
  }
}
