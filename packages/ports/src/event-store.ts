// The event store port: append-only streams with optimistic concurrency on the stream revision, and
// one global order over all streams. Revisions start at 0 for a stream's first event. Its failures:
// WrongExpectedRevisionError (below) and StoreUnavailableError (failures.ts), whatever the adapter.

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

export interface EventStore {
  /** all events of the stream in revision order; [] when the stream does not exist */
  readStream(streamId: string): Promise<RecordedEvent[]>
  /** throws WrongExpectedRevisionError when the stream is not at the expected revision */
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
