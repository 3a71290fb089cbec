// Between the port's events and the client's: what is written for a NewEvent, and the RecordedEvent
// for what EventStoreDB returns.

import type { NewEvent, RecordedEvent } from '@chainpay/ports'
import { type EventData, type JSONType, jsonEvent, type Position } from '@kurrent/kurrentdb-client'
import { encodePosition } from './positions.js'

/** what the client returns for an event, whichever read it came from */
export interface StoredEvent {
  streamId: string
  id: string
  revision: bigint
  type: string
  created: Date
  isJson: boolean
  data: unknown
  metadata: unknown
  position?: Position
}

// the form EventStoreDB hands an event id back in; any other form would not read back as written
const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function toEventData(streamId: string, event: NewEvent): EventData {
  if (!canonicalUuid.test(event.eventId)) {
    throw new TypeError(
      `stream ${streamId}: event id ${event.eventId} is not a lower-case UUID (EventStoreDB ids are UUIDs)`,
    )
  }
  if (event.type.length === 0 || event.type.startsWith('$')) {
    throw new TypeError(
      `stream ${streamId}: event type '${event.type}' is empty or starts with $ (reserved for system events)`,
    )
  }
  return jsonEvent({
    id: event.eventId,
    type: event.type,
    // null rather than undefined, which has no JSON text, as on every other adapter
    data: (event.data ?? null) as JSONType,
    metadata: event.metadata ?? {},
  })
}

export function assertUserStream(streamId: string): void {
  if (streamId.length === 0 || streamId.startsWith('$')) {
    throw new TypeError(`stream '${streamId}' is empty or starts with $ (reserved for system streams)`)
  }
}

/**
 * Whether the event is one the port can return: in a stream of our own kind, with JSON data and a
 * JSON object (or no) metadata. Everything else in $all (system streams, link events, binary events
 * of other applications) is not part of this store.
 */
export function isPortEvent(stored: StoredEvent): boolean {
  return (
    !stored.streamId.startsWith('$') &&
    !stored.type.startsWith('$') &&
    stored.isJson &&
    (stored.metadata === undefined || isJsonObject(stored.metadata))
  )
}

export function toRecordedEvent(stored: StoredEvent): RecordedEvent {
  const at = `stream ${stored.streamId} revision ${stored.revision}`
  if (!isPortEvent(stored)) {
    throw new Error(`${at}: not an event of this store (system or link event, or data that is not JSON)`)
  }
  if (stored.position === undefined) {
    throw new Error(`${at}: EventStoreDB returned no $all position (servers before 22.6 do not)`)
  }
  return {
    streamId: stored.streamId,
    revision: Number(stored.revision),
    position: encodePosition(stored.position),
    eventId: stored.id,
    type: stored.type,
    data: stored.data,
    metadata: stored.metadata === undefined ? {} : (stored.metadata as Record<string, unknown>),
    recordedAt: stored.created.toISOString(),
  }
}

function isJsonObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  )
}
