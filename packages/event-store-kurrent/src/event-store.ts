import type { Logger } from '@chainpay/platform'
import {
  type AppendResult,
  DuplicateEventIdError,
  type EventStore,
  type ExpectedRevision,
  isRepeatedAppend,
  type RecordedEvent,
  type StoredEventId,
  StoreUnavailableError,
  translateFailures,
  WrongExpectedRevisionError,
} from '@chainpay/ports'
import {
  BACKWARDS,
  END,
  excludeSystemEvents,
  FORWARDS,
  KurrentDBClient,
  type Position,
  START,
} from '@kurrent/kurrentdb-client'
import { createAppendWatcher, DEFAULT_RESUBSCRIBE_DELAYS, type ResubscribeDelays } from './append-watcher.js'
import { releasable } from './client-release.js'
import {
  assertUserStream,
  isPortEvent,
  positionOf,
  type StoredEvent,
  toEventData,
  toRecordedEvent,
} from './events.js'
import { appendedPosition, comparePositions, decodePosition, encodePosition } from './positions.js'
import {
  isStreamNotFound,
  toStreamState,
  translateAppendError,
  translateKurrentFailure,
} from './revisions.js'

export interface KurrentEventStoreOptions {
  /** e.g. `kurrentdb://127.0.0.1:2113?tls=false`, or with `admin:changeit@` for a secure server */
  connectionString: string
  /** where a dropped $all subscription is reported; nothing is logged without one */
  logger?: Logger
  /** backoff for opening a dropped $all subscription again */
  resubscribeDelays?: ResubscribeDelays
}

/** how long a readiness probe waits for the server: a probe comes every few seconds */
const PROBE_TIMEOUT_MS = 2000

/**
 * The event store on EventStoreDB / KurrentDB. Streams are EventStoreDB streams of the same name,
 * event ids are the EventStoreDB event ids (lower-case UUIDs), data and metadata are JSON. The
 * position is the event's $all position as `${commit}:${prepare}`. readAll and onAppended see every
 * stream whose name does not start with `$`, and only JSON events in them. The user needs read
 * access to $all (admins have it). Two clients: one for reads and appends, one for the $all
 * subscription, so that a subscription's reconnect (the client closes its channel when a stream is
 * cancelled or fails) never cuts an append short. close() releases both.
 */
export function createKurrentEventStore(options: KurrentEventStoreOptions): EventStore {
  return createKurrentEventStoreOn(
    {
      store: KurrentDBClient.connectionString(options.connectionString),
      subscription: KurrentDBClient.connectionString(options.connectionString),
    },
    options,
  )
}

export interface KurrentClients {
  /** reads (through the client's Rust bridge) and appends (gRPC) */
  store: KurrentDBClient
  /** the $all subscription of onAppended (gRPC) */
  subscription: KurrentDBClient
}

/** the store on clients made by the caller, which it owns from then on: close() releases them */
export function createKurrentEventStoreOn(
  clients: KurrentClients,
  options: Omit<KurrentEventStoreOptions, 'connectionString'> = {},
): EventStore {
  const client = clients.store
  const releasables = [releasable(clients.store), releasable(clients.subscription)]
  let closed = false
  const watcher = createAppendWatcher(clients.subscription, {
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    delays: options.resubscribeDelays ?? DEFAULT_RESUBSCRIBE_DELAYS,
  })
  const assertOpen = () => {
    if (closed) throw new StoreUnavailableError('EventStoreDB event store: closed')
  }

  /** the one event a read of at most one event finds; undefined for none or no such stream */
  const oneEventOf = async (
    streamId: string,
    options: { direction: typeof BACKWARDS | typeof FORWARDS; fromRevision: bigint | typeof END },
  ): Promise<StoredEvent | undefined> => {
    try {
      for await (const resolved of client.readStream(streamId, { ...options, maxCount: 1 })) {
        if (resolved.event !== undefined) return resolved.event
      }
      return undefined
    } catch (error) {
      if (isStreamNotFound(error)) return undefined
      throw error
    }
  }
  const lastEventOf = (streamId: string) => oneEventOf(streamId, { direction: BACKWARDS, fromRevision: END })
  /** the event at `revision` of the stream, if there is one */
  const eventAt = (streamId: string, revision: bigint) =>
    oneEventOf(streamId, { direction: FORWARDS, fromRevision: revision })

  /** the stream's events that carry one of `eventIds` */
  const storedWithIds = async (streamId: string, eventIds: ReadonlySet<string>): Promise<StoredEventId[]> => {
    const found: StoredEventId[] = []
    try {
      for await (const resolved of client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: START,
      })) {
        const stored = resolved.event
        if (stored !== undefined && eventIds.has(stored.id)) {
          found.push({ eventId: stored.id, revision: Number(stored.revision) })
        }
      }
    } catch (error) {
      if (isStreamNotFound(error)) return []
      throw error
    }
    return found
  }

  /** the port's result for an append whose last event sits at `lastRevision` of the stream */
  const resultAt = async (streamId: string, lastRevision: number): Promise<AppendResult> => {
    const last = await eventAt(streamId, BigInt(lastRevision))
    const position = last === undefined ? undefined : positionOf(last)
    if (position === undefined) {
      throw new Error(`stream ${streamId}: revision ${lastRevision} has no $all position to report`)
    }
    return { nextExpectedRevision: lastRevision, position: encodePosition(position) }
  }

  const revisionOf = (event: StoredEvent | undefined) => (event === undefined ? -1 : Number(event.revision))

  /** one read of at most `count` events of $all from `from` on, the event at `from` included */
  const readAllFrom = (from: Position | undefined, count: number) =>
    client.readAll({
      direction: FORWARDS,
      fromPosition: from ?? START,
      maxCount: count,
      filter: excludeSystemEvents(),
    })

  return translateFailures(
    {
      async readStream(streamId) {
        assertOpen()
        const events: RecordedEvent[] = []
        try {
          for await (const resolved of client.readStream(streamId, {
            direction: FORWARDS,
            fromRevision: START,
          })) {
            if (resolved.event !== undefined) events.push(toRecordedEvent(resolved.event))
          }
        } catch (error) {
          if (isStreamNotFound(error)) return []
          throw error
        }
        return events
      },

      async appendToStream(streamId, events, expectedRevision): Promise<AppendResult> {
        assertOpen()
        assertUserStream(streamId)
        const streamState = toStreamState(expectedRevision)
        if (events.length === 0) {
          // EventStoreDB writes no event for an empty append, so the check is a read, as elsewhere
          const last = await lastEventOf(streamId)
          const current = revisionOf(last)
          if (!isAtExpected(current, expectedRevision)) {
            throw new WrongExpectedRevisionError(streamId, expectedRevision, current)
          }
          const lastPosition = last === undefined ? undefined : positionOf(last)
          const position = lastPosition === undefined ? '0:0' : encodePosition(lastPosition)
          return { nextExpectedRevision: current, position }
        }
        // EventStoreDB's own idempotency only covers a repeat at the same expected revision and accepts
        // an id the stream holds anywhere else as a new event: the port's rule is checked here first
        // (docs on the port, event-store.ts)
        const stored = await storedWithIds(streamId, new Set(events.map((event) => event.eventId)))
        const repeated = isRepeatedAppend(events, stored, expectedRevision)
        if (repeated.kind === 'duplicate') throw new DuplicateEventIdError(streamId, repeated.eventId)
        if (repeated.kind === 'retry') return resultAt(streamId, repeated.lastRevision)
        const recordedAt = new Date().toISOString()
        const eventData = events.map((event) => toEventData(streamId, event, recordedAt))
        let result: Awaited<ReturnType<typeof client.appendToStream>>
        try {
          result = await client.appendToStream(streamId, eventData, { streamState })
        } catch (error) {
          throw translateAppendError(error, streamId, expectedRevision)
        }
        if (!result.success) {
          // only with throwOnAppendFailure=false in the connection string, whose reported revision is
          // not reliable in this client (batch appends report 1): read the actual one instead
          throw new WrongExpectedRevisionError(
            streamId,
            expectedRevision,
            revisionOf(await lastEventOf(streamId)),
          )
        }
        watcher.notify()
        if (result.position === undefined) {
          // the server reports none for an append it found already written (a concurrent retry of
          // the same append got there first): the position is that of its last event
          return resultAt(streamId, Number(result.nextExpectedRevision))
        }
        return {
          nextExpectedRevision: Number(result.nextExpectedRevision),
          position: encodePosition(appendedPosition(result.position)),
        }
      },

      async readAll(after, limit) {
        assertOpen()
        if (!Number.isSafeInteger(limit) || limit < 0) {
          throw new RangeError(`readAll: limit must be an integer from 0; got ${limit}`)
        }
        const found: RecordedEvent[] = []
        let cursor = after === null ? undefined : decodePosition(after)
        while (found.length < limit) {
          // one more than needed: a read from a position starts with the event at it, which is skipped
          const count = limit - found.length + 1
          let received = 0
          let lastSeen: Position | undefined
          for await (const resolved of readAllFrom(cursor, count)) {
            received++
            const stored = resolved.event
            if (stored === undefined) continue
            const position = positionOf(stored)
            if (position === undefined) {
              throw new Error(
                `readAll: EventStoreDB returned an event of ${stored.streamId} without its position`,
              )
            }
            if (cursor !== undefined && comparePositions(position, cursor) <= 0) continue
            lastSeen = position
            // a page may hold events that are not ours (link or binary events): the next read goes on after them
            if (isPortEvent(stored)) found.push(toRecordedEvent(stored))
            if (found.length === limit) return found
          }
          if (received < count || lastSeen === undefined) return found
          cursor = lastSeen
        }
        return found
      },

      onAppended(listener) {
        return watcher.add(listener)
      },

      async answers() {
        // the last event of $all, or none: one small read the server answers from its index
        const read = (async () => {
          for await (const _ of client.readAll({
            direction: BACKWARDS,
            fromPosition: END,
            maxCount: 1,
            deadline: PROBE_TIMEOUT_MS,
          }))
            break
          return true
        })()
        let timer: NodeJS.Timeout | undefined
        const timedOut = new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)
        })
        try {
          return await Promise.race([read, timedOut])
        } catch {
          return false
        } finally {
          clearTimeout(timer)
          read.catch(() => {})
        }
      },

      async close() {
        if (closed) return
        closed = true
        watcher.close()
        await Promise.all(releasables.map((held) => held.release()))
      },
    },
    translateKurrentFailure,
  )
}

function isAtExpected(current: number, expected: ExpectedRevision): boolean {
  if (expected === 'any') return true
  if (expected === 'no_stream') return current === -1
  return current === expected
}
