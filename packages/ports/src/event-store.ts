// The event store port: append-only streams with optimistic concurrency on the stream revision, and
// one global order over all streams. Revisions start at 0 for a stream's first event. Its failures:
// WrongExpectedRevisionError and DuplicateEventIdError (below) and StoreUnavailableError
// (failures.ts), whatever the adapter.
//
// Event ids: every new event gets a fresh id (a UUID), unique in the whole store; readers rely on it
// (the notifier keys deliveries by event id). Repeating an id is defined for one stream, identically
// on every adapter (isRepeatedAppend below):
// - an append whose events the stream already holds, with the same ids in the same order, written
//   right after the expected revision (from 0 for 'no_stream', anywhere for 'any'), is a retry of
//   that append (say, after a StoreUnavailableError left its outcome unknown): it writes nothing and
//   returns that append's result, even if the stream has moved on since;
// - any other append that carries an id the stream already holds, or one id twice, is rejected with
//   DuplicateEventIdError and writes nothing.
// An id already used in another stream is the caller's mistake: SQLite rejects it with
// DuplicateEventIdError, EventStoreDB has no index of event ids across streams and cannot tell.
//
// recordedAt is when the append was made, ISO 8601 in UTC with milliseconds; every event of one
// append has the same. After close() every operation rejects with StoreUnavailableError and no
// listener is called any more.

export interface NewEvent {
  eventId: string
  type: string
  data: unknown
  metadata?: Record<string, unknown>
}

export interface RecordedEvent {
  streamId: string
  revision: number
  /** opaque, adapter-defined global position; only compare positions through the adapter */
  position: string
  eventId: string
  type: string
  data: unknown
  metadata: Record<string, unknown>
  recordedAt: string
}

export type ExpectedRevision = 'no_stream' | 'any' | number

export interface AppendResult {
  /** revision of the last event written */
  nextExpectedRevision: number
  position: string
}

export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError'
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** -1 when the stream does not exist */
    readonly actual: number,
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${actual}`)
  }
}

/** The append repeats an event id in a way that is no retry of an earlier append (see above). */
export class DuplicateEventIdError extends Error {
  override readonly name = 'DuplicateEventIdError'
  constructor(
    readonly streamId: string,
    readonly eventId: string,
  ) {
    super(`stream ${streamId}: event id ${eventId} is already stored`)
  }
}

/** an event of the stream that carries one of the append's ids */
export interface StoredEventId {
  eventId: string
  revision: number
}

export type RepeatedAppend =
  | { kind: 'new' }
  | { kind: 'retry'; lastRevision: number }
  | { kind: 'duplicate'; eventId: string }

/**
 * What an append of `events` to a stream is, given `stored`: the stream's events whose ids are among
 * the append's. 'new' when none are; 'retry' (of an append that ended at `lastRevision`) when the
 * stream holds exactly these events, in this order, right after the expected revision; otherwise
 * 'duplicate', naming the first repeated id.
 */
export function isRepeatedAppend(
  events: readonly NewEvent[],
  stored: readonly StoredEventId[],
  expected: ExpectedRevision,
): RepeatedAppend {
  const ids = new Set<string>()
  for (const event of events) {
    if (ids.has(event.eventId)) return { kind: 'duplicate', eventId: event.eventId }
    ids.add(event.eventId)
  }
  const found = stored.filter((event) => ids.has(event.eventId)).sort((a, b) => a.revision - b.revision)
  const first = found[0]
  if (first === undefined) return { kind: 'new' }
  const firstRevision = first.revision
  const startsRight = expected === 'any' || firstRevision === (expected === 'no_stream' ? 0 : expected + 1)
  const sameEvents =
    found.length === events.length &&
    found.every((event, i) => event.eventId === events[i]?.eventId && event.revision === firstRevision + i)
  if (startsRight && sameEvents) return { kind: 'retry', lastRevision: firstRevision + events.length - 1 }
  const repeated = events.find((event) => found.some((stored) => stored.eventId === event.eventId))
  return { kind: 'duplicate', eventId: repeated?.eventId ?? first.eventId }
}

export interface EventStore {
  /** all events of the stream in revision order; [] when the stream does not exist */
  readStream(streamId: string): Promise<RecordedEvent[]>
  /**
   * throws WrongExpectedRevisionError when the stream is not at the expected revision, and
   * DuplicateEventIdError for an event id the stream already holds, unless the append is a retry
   */
  appendToStream(
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<AppendResult>
  /** events of every stream after `after` (exclusive; null = from the start), in global order */
  readAll(after: string | null, limit: number): Promise<RecordedEvent[]>
  /** calls `listener` after events were appended (by anyone the adapter can see); returns unsubscribe */
  onAppended(listener: () => void): () => void
  /** readiness: the store answers a cheap request now; false (never a rejection) when it does not */
  answers(): Promise<boolean>
  close(): Promise<void>
}
