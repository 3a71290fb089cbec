import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  DuplicateEventIdError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from '../event-store.js'
import { StoreUnavailableError } from '../failures.js'

export interface EventStoreFixture {
  store: EventStore
  /** closes the store and releases whatever setup created */
  teardown(): Promise<void>
}

/**
 * The behaviour every EventStore adapter promises. `setup` runs before each test. Tests write only
 * streams with fresh random ids and read back only those streams, so a server that already holds
 * events is fine, as long as nothing else appends while a test runs.
 */
export function describeEventStoreContract(
  adapterName: string,
  setup: () => Promise<EventStoreFixture>,
): void {
  describe(`EventStore contract: ${adapterName}`, () => {
    let fixture: EventStoreFixture
    let store: EventStore
    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(async () => {
      await fixture.teardown()
    })

    describe('appendToStream', () => {
      it('starts a new stream at revision 0 when expecting no_stream', async () => {
        const stream = streamId()
        const result = await store.appendToStream(stream, [newEvent(), newEvent()], 'no_stream')
        expect(result.nextExpectedRevision).toBe(1)
        const events = await store.readStream(stream)
        expect(events.map((e) => [e.streamId, e.revision])).toEqual([
          [stream, 0],
          [stream, 1],
        ])
      })

      it('appends when the stream is at the expected revision', async () => {
        const stream = streamId()
        await store.appendToStream(stream, [newEvent()], 'no_stream')
        expect((await store.appendToStream(stream, [newEvent(), newEvent()], 0)).nextExpectedRevision).toBe(2)
        expect((await store.appendToStream(stream, [newEvent()], 2)).nextExpectedRevision).toBe(3)
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2, 3])
      })

      it('appends with any whether or not the stream exists', async () => {
        const stream = streamId()
        expect((await store.appendToStream(stream, [newEvent()], 'any')).nextExpectedRevision).toBe(0)
        expect((await store.appendToStream(stream, [newEvent()], 'any')).nextExpectedRevision).toBe(1)
      })

      it('rejects no_stream for an existing stream with its actual revision', async () => {
        const stream = streamId()
        await store.appendToStream(stream, [newEvent()], 'no_stream')
        const error = await rejection(store.appendToStream(stream, [newEvent()], 'no_stream'))
        expect([error.streamId, error.expected, error.actual]).toEqual([stream, 'no_stream', 0])
      })

      it('rejects a stale or future expected revision with the actual revision', async () => {
        const stream = streamId()
        await store.appendToStream(stream, [newEvent(), newEvent(), newEvent()], 'no_stream')
        for (const expected of [1, 5]) {
          const error = await rejection(store.appendToStream(stream, [newEvent()], expected))
          expect([error.streamId, error.expected, error.actual]).toEqual([stream, expected, 2])
        }
      })

      it('reports -1 as the actual revision of a missing stream', async () => {
        const stream = streamId()
        const error = await rejection(store.appendToStream(stream, [newEvent()], 0))
        expect(error.actual).toBe(-1)
      })

      it('writes nothing when the append is rejected', async () => {
        const stream = streamId()
        const first = newEvent()
        await store.appendToStream(stream, [first], 'no_stream')
        await rejection(store.appendToStream(stream, [newEvent(), newEvent()], 5))
        expect((await store.readStream(stream)).map((e) => e.eventId)).toEqual([first.eventId])
      })

      it.each<ExpectedRevision>(['no_stream', 0])(
        'lets exactly one of 20 concurrent appends expecting %s win',
        async (expected) => {
          const stream = streamId()
          if (expected === 0) await store.appendToStream(stream, [newEvent()], 'no_stream')
          const attempts = Array.from({ length: 20 }, () => newEvent())
          const outcomes = await Promise.allSettled(
            attempts.map((event) => store.appendToStream(stream, [event], expected)),
          )
          const winners = outcomes.flatMap((outcome, i) =>
            outcome.status === 'fulfilled' ? [attempts[i]] : [],
          )
          expect(winners).toHaveLength(1)
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected')
              expect(outcome.reason).toBeInstanceOf(WrongExpectedRevisionError)
          }
          const events = await store.readStream(stream)
          expect(events.at(-1)?.eventId).toBe(winners[0]?.eventId)
          expect(events).toHaveLength(expected === 0 ? 2 : 1)
        },
      )
    })

    describe('appendToStream with event ids already stored', () => {
      it('answers a repeated append expecting no_stream with its first result, writing nothing', async () => {
        const stream = streamId()
        const events = [newEvent(), newEvent()]
        const first = await store.appendToStream(stream, events, 'no_stream')
        expect(await store.appendToStream(stream, events, 'no_stream')).toEqual(first)
        expect((await store.readStream(stream)).map((e) => e.eventId)).toEqual(events.map((e) => e.eventId))
      })

      it('answers a repeated append at a revision with its first result, even after the stream moved on', async () => {
        const stream = streamId()
        await store.appendToStream(stream, [newEvent()], 'no_stream')
        const events = [newEvent(), newEvent()]
        const first = await store.appendToStream(stream, events, 0)
        await store.appendToStream(stream, [newEvent()], 2)
        expect(await store.appendToStream(stream, events, 0)).toEqual(first)
        expect(await store.readStream(stream)).toHaveLength(4)
      })

      it('answers a repeated append expecting any with its first result', async () => {
        const stream = streamId()
        const event = newEvent()
        const first = await store.appendToStream(stream, [event], 'any')
        expect(await store.appendToStream(stream, [event], 'any')).toEqual(first)
        expect(await store.readStream(stream)).toHaveLength(1)
      })

      it('rejects an id the stream holds when the append is no retry, writing nothing', async () => {
        const stream = streamId()
        const [a, b] = [newEvent(), newEvent()]
        await store.appendToStream(stream, [a, b], 'no_stream')
        const cases: [NewEvent[], ExpectedRevision][] = [
          // the same event again as a new one, at the current revision
          [[{ ...a, data: { other: true } }], 1],
          // a retry of part of the append, or with a new event added, or in another order
          [[b], 'no_stream'],
          [[a, b, newEvent()], 'no_stream'],
          [[b, a], 'no_stream'],
        ]
        for (const [events, expected] of cases) {
          const error = await store.appendToStream(stream, events, expected).catch((e: unknown) => e)
          expect(error, JSON.stringify({ events, expected })).toBeInstanceOf(DuplicateEventIdError)
          expect(error).toMatchObject({ streamId: stream })
        }
        expect((await store.readStream(stream)).map((e) => e.eventId)).toEqual([a.eventId, b.eventId])
      })

      it('rejects one id twice in one append, writing nothing', async () => {
        const stream = streamId()
        const event = newEvent()
        const error = await store.appendToStream(stream, [event, event], 'no_stream').catch((e: unknown) => e)
        expect(error).toBeInstanceOf(DuplicateEventIdError)
        expect(error).toMatchObject({ streamId: stream, eventId: event.eventId })
        expect(await store.readStream(stream)).toEqual([])
      })
    })

    describe('recordedAt', () => {
      it('is the time of the append in UTC with milliseconds, the same for every event of one append', async () => {
        const stream = streamId()
        // three appends: a time cut to whole seconds passes one of them only if it started on a whole second
        for (let append = 0; append < 3; append++) {
          const before = Date.now()
          await store.appendToStream(
            stream,
            [newEvent(), newEvent()],
            append === 0 ? 'no_stream' : append * 2 - 1,
          )
          const after = Date.now()
          const written = (await store.readStream(stream)).slice(append * 2)
          for (const event of written) {
            expect(event.recordedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
            const at = Date.parse(event.recordedAt)
            expect(at).toBeGreaterThanOrEqual(before)
            expect(at).toBeLessThanOrEqual(after)
          }
          expect(new Set(written.map((e) => e.recordedAt)).size).toBe(1)
        }
      })

      it('is the same whether read from the stream or from all streams', async () => {
        const stream = streamId()
        await store.appendToStream(stream, [newEvent()], 'no_stream')
        const [fromStream] = await store.readStream(stream)
        const [fromAll] = await readAllOf(store, [stream])
        expect(fromAll?.recordedAt).toBe(fromStream?.recordedAt)
      })
    })

    describe('close', () => {
      it('rejects every later call with StoreUnavailableError and calls no listener any more', async () => {
        const stream = streamId()
        await store.appendToStream(stream, [newEvent()], 'no_stream')
        let calls = 0
        store.onAppended(() => calls++)
        await store.close()
        const afterClose = calls
        const attempts = [
          store.readStream(stream),
          store.appendToStream(stream, [newEvent()], 0),
          store.readAll(null, 10),
        ]
        for (const outcome of await Promise.allSettled(attempts)) {
          expect(outcome.status).toBe('rejected')
          if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(StoreUnavailableError)
        }
        store.onAppended(() => calls++)
        expect(calls).toBe(afterClose)
      })
    })

    describe('readStream', () => {
      it('returns [] for a stream that does not exist', async () => {
        expect(await store.readStream(streamId())).toEqual([])
      })

      it('returns every event with its type, data and metadata as appended', async () => {
        const stream = streamId()
        const data = {
          $where: 'kept verbatim',
          'a.b': { 'c.d': [1, 2.5, true, null, 'x'] },
          amount: '123456789012345678901234567890',
          text: 'Zürich ✓ 支付',
          nested: { empty: {}, list: [] },
        }
        const metadata = { $where: 1, 'a.b': 'dotted', correlationId: randomUUID() }
        const first: NewEvent = { eventId: randomUUID(), type: 'PaymentCreated', data, metadata }
        const second: NewEvent = { eventId: randomUUID(), type: 'PaymentExpired', data: { n: 1 } }
        await store.appendToStream(stream, [first], 'no_stream')
        await store.appendToStream(stream, [second], 0)
        const events = await store.readStream(stream)
        expect(events.map((e) => [e.eventId, e.type, e.data, e.metadata])).toEqual([
          [first.eventId, 'PaymentCreated', data, metadata],
          [second.eventId, 'PaymentExpired', { n: 1 }, {}],
        ])
        for (const event of events) expect(Number.isNaN(Date.parse(event.recordedAt))).toBe(false)
      })

      it('keeps streams independent', async () => {
        const [a, b] = [streamId(), streamId()]
        await store.appendToStream(a, [newEvent(), newEvent()], 'no_stream')
        await store.appendToStream(b, [newEvent()], 'no_stream')
        expect((await store.readStream(b)).map((e) => [e.streamId, e.revision])).toEqual([[b, 0]])
        expect(await store.readStream(a)).toHaveLength(2)
      })
    })

    describe('readAll', () => {
      it('returns the events of every stream in append order', async () => {
        const [a, b] = [streamId(), streamId()]
        const appended = await appendInterleaved(store, a, b)
        const all = await readAllOf(store, [a, b])
        expect(all.map((e) => e.eventId)).toEqual(appended.map((e) => e.eventId))
        expect(all.map((e) => [e.streamId, e.revision])).toEqual([
          [a, 0],
          [b, 0],
          [a, 1],
          [a, 2],
          [b, 1],
        ])
      })

      it('reads strictly after `after` and at most `limit` events', async () => {
        const [a, b] = [streamId(), streamId()]
        await appendInterleaved(store, a, b)
        const all = await readAllOf(store, [a, b])
        const ids = async (after: RecordedEvent | undefined, limit: number) =>
          (await store.readAll(after?.position ?? null, limit)).map((e) => e.eventId)
        expect(await ids(all[0], 2)).toEqual([all[1]?.eventId, all[2]?.eventId])
        expect(await ids(all[2], 10)).toEqual([all[3]?.eventId, all[4]?.eventId])
        expect(await ids(all[4], 10)).toEqual([])
      })

      it('gives every event a distinct position that resumes right after it', async () => {
        const [a, b] = [streamId(), streamId()]
        await appendInterleaved(store, a, b)
        const all = await readAllOf(store, [a, b])
        expect(new Set(all.map((e) => e.position)).size).toBe(all.length)
        for (const [i, event] of all.slice(0, -1).entries()) {
          const [next] = await store.readAll(event.position, 1)
          expect(next?.eventId).toBe(all[i + 1]?.eventId)
        }
      })

      it('returns an append position after which that append is not read again', async () => {
        const stream = streamId()
        const result = await store.appendToStream(stream, [newEvent(), newEvent()], 'no_stream')
        expect(await store.readAll(result.position, 10)).toEqual([])
        const later = newEvent()
        await store.appendToStream(stream, [later], 1)
        expect((await store.readAll(result.position, 10)).map((e) => e.eventId)).toEqual([later.eventId])
      })
    })

    describe('onAppended', () => {
      it('calls the listener after an append, with the events readable', async () => {
        const stream = streamId()
        const seen: number[] = []
        const unsubscribe = store.onAppended(() => {
          void store.readStream(stream).then((events) => seen.push(events.length))
        })
        await store.appendToStream(stream, [newEvent()], 'no_stream')
        await vi.waitFor(() => expect(seen).toContain(1), { timeout: 10_000 })
        unsubscribe()
      })

      it('stops calling a listener once it unsubscribed', async () => {
        let removedCalls = 0
        let keptCalls = 0
        const unsubscribe = store.onAppended(() => removedCalls++)
        const unsubscribeKept = store.onAppended(() => keptCalls++)
        unsubscribe()
        await store.appendToStream(streamId(), [newEvent()], 'no_stream')
        await vi.waitFor(() => expect(keptCalls).toBeGreaterThan(0), { timeout: 10_000 })
        expect(removedCalls).toBe(0)
        unsubscribeKept()
      })
    })
  })
}

function streamId(): string {
  return `contract-${randomUUID()}`
}

function newEvent(): NewEvent {
  return { eventId: randomUUID(), type: 'ContractTested', data: { nonce: randomUUID() } }
}

async function rejection(append: Promise<unknown>): Promise<WrongExpectedRevisionError> {
  const error = await append.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(WrongExpectedRevisionError)
  return error as WrongExpectedRevisionError
}

/** a0, b0, a1 a2 (one append), b1: returns the events in that order */
async function appendInterleaved(store: EventStore, a: string, b: string): Promise<NewEvent[]> {
  const events = Array.from({ length: 5 }, () => newEvent())
  const [a0, b0, a1, a2, b1] = events as [NewEvent, NewEvent, NewEvent, NewEvent, NewEvent]
  await store.appendToStream(a, [a0], 'no_stream')
  await store.appendToStream(b, [b0], 'no_stream')
  await store.appendToStream(a, [a1, a2], 0)
  await store.appendToStream(b, [b1], 0)
  return events
}

/** every event of `streams` in global order, paging through the whole store */
async function readAllOf(store: EventStore, streams: string[]): Promise<RecordedEvent[]> {
  const wanted = new Set(streams)
  const found: RecordedEvent[] = []
  let after: string | null = null
  for (;;) {
    const page: RecordedEvent[] = await store.readAll(after, 100)
    found.push(...page.filter((event) => wanted.has(event.streamId)))
    const last = page.at(-1)
    if (last === undefined) return found
    // an adapter that hands `after` back would otherwise page forever without ever yielding
    expect(last.position, 'readAll must move past `after`').not.toBe(after)
    after = last.position
  }
}
