// The streams of refunds, payouts and merchants' ledgers in the event store: folded into their
// states on the way in, stamped with ids and the schema version on the way out (as payment-stream.ts).

import {
  OUTGOING_EVENT_SCHEMA_VERSION,
  parseLedgerEvent,
  parsePayoutEvent,
  parseRefundEvent,
} from '@chainpay/contracts'
import {
  evolveLedger,
  evolvePayout,
  evolveRefund,
  initialLedgerState,
  initialOutgoingState,
  type LedgerEvent,
  type LedgerState,
  type OutgoingKind,
  type OutgoingState,
  type PayoutEvent,
  type RefundEvent,
  toLedgerStreamId,
  toPayoutStreamId,
  toRefundStreamId,
} from '@chainpay/domain'
import type { EventStore, NewEvent, RecordedEvent } from '@chainpay/ports'
import { storedSchemaVersion } from './payment-stream.js'

export interface Loaded<State> {
  state: State
  /** revision of the stream's last event; -1 when the stream does not exist */
  revision: number
}

export type OutgoingEvent = RefundEvent | PayoutEvent

export function outgoingStreamId(kind: OutgoingKind, id: string): string {
  return kind === 'refund' ? toRefundStreamId(id) : toPayoutStreamId(id)
}

function parsed<Event>(
  recorded: RecordedEvent,
  parse: (type: string, version: number, data: unknown) => Event,
): Event {
  try {
    return parse(recorded.type, storedSchemaVersion(recorded), recorded.data)
  } catch (error) {
    throw new Error(
      `stream ${recorded.streamId} revision ${recorded.revision}: ${(error as Error).message}`,
      {
        cause: error,
      },
    )
  }
}

export function toOutgoingEvent(kind: OutgoingKind, recorded: RecordedEvent): OutgoingEvent {
  return kind === 'refund' ? parsed(recorded, parseRefundEvent) : parsed(recorded, parsePayoutEvent)
}

export function evolveOutgoing(
  kind: OutgoingKind,
  state: OutgoingState,
  event: OutgoingEvent,
): OutgoingState {
  return kind === 'refund'
    ? evolveRefund(state, event as RefundEvent)
    : evolvePayout(state, event as PayoutEvent)
}

export async function loadOutgoing(
  eventStore: EventStore,
  kind: OutgoingKind,
  id: string,
): Promise<Loaded<OutgoingState>> {
  const recorded = await eventStore.readStream(outgoingStreamId(kind, id))
  const state = recorded
    .map((event) => toOutgoingEvent(kind, event))
    .reduce((folded: OutgoingState, event) => evolveOutgoing(kind, folded, event), initialOutgoingState)
  return { state, revision: recorded.at(-1)?.revision ?? -1 }
}

export async function loadLedger(eventStore: EventStore, merchantId: string): Promise<Loaded<LedgerState>> {
  const recorded = await eventStore.readStream(toLedgerStreamId(merchantId))
  const state = recorded
    .map((event) => parsed(event, parseLedgerEvent))
    .reduce(evolveLedger, initialLedgerState)
  return { state, revision: recorded.at(-1)?.revision ?? -1 }
}

export function toNewOutgoingEvent(event: OutgoingEvent | LedgerEvent, eventId: string): NewEvent {
  return {
    eventId,
    type: event.type,
    data: event.data,
    metadata: { schemaVersion: OUTGOING_EVENT_SCHEMA_VERSION },
  }
}
