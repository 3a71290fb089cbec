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

/**
 * The metadata key under which an append records its time, as ISO 8601 with milliseconds. The
 * server's own `created` time reaches this client through its Rust bridge, which every read goes
 * through, cut to whole seconds; the port promises milliseconds (as on SQLite). Removed from the
 * metadata a read returns; events without it (written by another client, or before this key) fall
 * back to the server's time.
 */
export const RECORDED_AT_KEY = 'chainpay.recordedAt'

const isoMilliseconds = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

// the form EventStoreDB hands an event id back in; any other form would not read back as written
const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** the event as written, with `recordedAt` (ISO 8601, milliseconds) recorded in its metadata */
export function toEventData(streamId: string, event: NewEvent, recordedAt: string): EventData {
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
  if (event.metadata !== undefined && Object.hasOwn(event.metadata, RECORDED_AT_KEY)) {
    throw new TypeError(
      `stream ${streamId}: metadata key '${RECORDED_AT_KEY}' is reserved (the store records the append's time under it)`,
    )
  }
  if (!isoMilliseconds.test(recordedAt)) {
    throw new RangeError(`recordedAt must be ISO 8601 UTC with milliseconds; got ${recordedAt}`)
  }
  return jsonEvent({
    id: event.eventId,
    type: event.type,
    // null rather than undefined, which has no JSON text, as on every other adapter
    data: (event.data ?? null) as JSONType,
    metadata: { ...event.metadata, [RECORDED_AT_KEY]: recordedAt },
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
  const position = positionOf(stored)
  if (position === undefined) {
    throw new Error(`${at}: EventStoreDB returned no $all position (servers before 22.6 do not)`)
  }
  const { [RECORDED_AT_KEY]: recorded, ...metadata } =
    stored.metadata === undefined ? {} : (stored.metadata as Record<string, unknown>)
  return {
    streamId: stored.streamId,
    revision: Number(stored.revision),
    position: encodePosition(position),
    eventId: stored.id,
    type: stored.type,
    data: stored.data,
    metadata,
    recordedAt:
      typeof recorded === 'string' && isoMilliseconds.test(recorded) && !Number.isNaN(Date.parse(recorded))
        ? recorded
        : stored.created.toISOString(),
  }
}

/**
 * The event's $all position, or undefined where the server gave none. The client always hands a
 * position object back from a read through its Rust bridge, so "none" is not a missing object: it
 * is the server's -1 (no position) as an unsigned 64-bit number, in either part.
 */
export function positionOf(stored: StoredEvent): Position | undefined {
  const position = stored.position
  if (position === undefined) return undefined
  if (position.commit === NO_LOG_POSITION || position.prepare === NO_LOG_POSITION) return undefined
  return position
}

/** the server's -1 ("no position") as the unsigned 64-bit number the client reads */
export const NO_LOG_POSITION = 2n ** 64n - 1n

function isJsonObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array)
  )
}
