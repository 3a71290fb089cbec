import {
  type AppendResult,
  DuplicateEventIdError,
  type EventStore,
  type ExpectedRevision,
  isRepeatedAppend,
  type NewEvent,
  type RecordedEvent,
  StoreUnavailableError,
  translateFailures,
  WrongExpectedRevisionError,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

export interface SqliteEventStoreOptions {
  /**
   * When set, onAppended also notices appends made through other connections to the same file
   * (another process), by polling the highest position every so many milliseconds while listeners
   * exist. Appends through this store always notify directly.
   */
  pollIntervalMs?: number
}

type Row = Record<string, unknown>

/**
 * The event store on SQLite. The global position is the rowid of `es_events`, as decimal text.
 * Event ids are unique in the whole table, so an id used in another stream is rejected too.
 * close() stops notifications and polling, and every later call rejects with StoreUnavailableError;
 * the database belongs to the caller, who closes it.
 */
export function createSqliteEventStore(db: DatabaseSync, options: SqliteEventStoreOptions = {}): EventStore {
  migrateSqliteComponent(db, 'event-store', eventStoreMigrations)
  const statements = {
    answers: db.prepare('SELECT EXISTS (SELECT 1 FROM es_events) AS answered'),
    streamRevision: db.prepare('SELECT MAX(revision) AS revision FROM es_events WHERE stream_id = ?'),
    streamPosition: db.prepare('SELECT MAX(position) AS position FROM es_events WHERE stream_id = ?'),
    insert: db.prepare(
      `INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata, recorded_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    readStream: db.prepare('SELECT * FROM es_events WHERE stream_id = ? ORDER BY revision'),
    readAll: db.prepare('SELECT * FROM es_events WHERE position > ? ORDER BY position LIMIT ?'),
    maxPosition: db.prepare('SELECT COALESCE(MAX(position), 0) AS position FROM es_events'),
    byEventId: db.prepare('SELECT stream_id, revision, position FROM es_events WHERE event_id = ?'),
    positionAt: db.prepare('SELECT position FROM es_events WHERE stream_id = ? AND revision = ?'),
  }
  const group = groupCommitOf(db)
  let closed = false
  const assertOpen = () => {
    if (closed) throw new StoreUnavailableError('SQLite event store: closed')
  }
  const listeners = new Set<() => void>()
  let highestSeen = 0
  let poller: NodeJS.Timeout | undefined

  const notify = () => {
    // each listener in its own microtask, so one throwing listener does not silence the others
    for (const listener of listeners) queueMicrotask(listener)
  }
  const readMaxPosition = () => Number(statements.maxPosition.get()?.position)

  const startPolling = (intervalMs: number) => {
    highestSeen = Math.max(highestSeen, readMaxPosition())
    poller = setInterval(() => {
      if (!db.isOpen) return stopPolling()
      try {
        const latest = readMaxPosition()
        if (latest <= highestSeen) return
        highestSeen = latest
        notify()
      } catch {
        // a busy or failing read is simply retried on the next tick
      }
    }, intervalMs)
    poller.unref()
  }
  const stopPolling = () => {
    clearInterval(poller)
    poller = undefined
  }

  return translateFailures(
    {
      async readStream(streamId) {
        assertOpen()
        return statements.readStream.all(streamId).map(toRecordedEvent)
      },

      async appendToStream(streamId, events, expectedRevision) {
        assertOpen()
        let written = false
        // with the other writes of this turn, in one commit; answered once it is durable
        const result = await group.run((): AppendResult => {
          const stored: { eventId: string; revision: number }[] = []
          for (const event of events) {
            const row = statements.byEventId.get(event.eventId)
            if (row === undefined) continue
            // ids are unique in the whole store (docs on the port): another stream's is no retry
            if (String(row.stream_id) !== streamId) throw new DuplicateEventIdError(streamId, event.eventId)
            stored.push({ eventId: event.eventId, revision: Number(row.revision) })
          }
          const repeated = isRepeatedAppend(events, stored, expectedRevision)
          if (repeated.kind === 'duplicate') throw new DuplicateEventIdError(streamId, repeated.eventId)
          if (repeated.kind === 'retry') {
            const position = statements.positionAt.get(streamId, repeated.lastRevision)?.position
            return { nextExpectedRevision: repeated.lastRevision, position: String(position) }
          }
          const current = numberOr(statements.streamRevision.get(streamId)?.revision, -1)
          if (!isAtExpected(current, expectedRevision)) {
            throw new WrongExpectedRevisionError(streamId, expectedRevision, current)
          }
          if (events.length === 0) {
            const position = numberOr(statements.streamPosition.get(streamId)?.position, 0)
            return { nextExpectedRevision: current, position: String(position) }
          }
          const recordedAt = new Date().toISOString()
          let position = 0
          for (const [i, event] of events.entries()) {
            position = Number(
              statements.insert.run(...toColumns(streamId, current + 1 + i, event, recordedAt))
                .lastInsertRowid,
            )
          }
          written = true
          return { nextExpectedRevision: current + events.length, position: String(position) }
        })
        if (written) {
          highestSeen = Math.max(highestSeen, Number(result.position))
          notify()
        }
        return result
      },

      async readAll(after, limit) {
        assertOpen()
        return statements.readAll.all(parsePosition(after), limit).map(toRecordedEvent)
      },

      onAppended(listener) {
        if (closed) return () => {}
        // a fresh entry per call: the same function registered twice is unsubscribed twice
        const wrapped = () => listener()
        listeners.add(wrapped)
        if (options.pollIntervalMs !== undefined && poller === undefined) startPolling(options.pollIntervalMs)
        return () => {
          listeners.delete(wrapped)
          if (listeners.size === 0) stopPolling()
        }
      },

      async answers() {
        // the events' own table, not just the connection: a database without it serves no command
        return await Promise.resolve()
          .then(() => statements.answers.get() !== undefined)
          .catch(() => false)
      },

      async close() {
        closed = true
        listeners.clear()
        stopPolling()
      },
    },
    translateSqliteFailure,
  )
}

/** the event-store component's schema versions (schema-versions.ts) */
export const eventStoreMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
    CREATE TABLE IF NOT EXISTS es_events (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      event_id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      metadata TEXT NOT NULL,
      recorded_at TEXT NOT NULL,
      UNIQUE (stream_id, revision)
    ) STRICT
      `),
  },
]

function isAtExpected(current: number, expected: ExpectedRevision): boolean {
  if (expected === 'any') return true
  if (expected === 'no_stream') return current === -1
  return current === expected
}

function toColumns(streamId: string, revision: number, event: NewEvent, recordedAt: string) {
  const data = JSON.stringify(event.data ?? null)
  const metadata = JSON.stringify(event.metadata ?? {})
  return [streamId, revision, event.eventId, event.type, data, metadata, recordedAt] as const
}

function toRecordedEvent(row: Row): RecordedEvent {
  return {
    streamId: String(row.stream_id),
    revision: Number(row.revision),
    position: String(row.position),
    eventId: String(row.event_id),
    type: String(row.type),
    data: JSON.parse(String(row.data)),
    metadata: JSON.parse(String(row.metadata)),
    recordedAt: String(row.recorded_at),
  }
}

function parsePosition(position: string | null): number {
  if (position === null) return 0
  if (!/^\d{1,15}$/.test(position)) throw new Error(`not a SQLite event store position: ${position}`)
  return Number(position)
}

function numberOr(value: unknown, fallback: number): number {
  return value === null || value === undefined ? fallback : Number(value)
}
