import { randomUUID } from 'node:crypto'
import { createServer as createHttp2Server, type Http2Server } from 'node:http2'
import { createServer, type Socket } from 'node:net'
import { testEventStore } from '@chainpay/local-servers/testing'
import { createRootLogger } from '@chainpay/platform'
import { type NewEvent, StoreUnavailableError, WrongExpectedRevisionError } from '@chainpay/ports'
import { describeEventStoreContract } from '@chainpay/ports/testing'
import { binaryEvent, jsonEvent, KurrentDBClient } from '@kurrent/kurrentdb-client'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { releasable } from './client-release.js'
import { createKurrentEventStore } from './event-store.js'

const eventstore = testEventStore()
const url = eventstore.url ?? ''

// EventStoreDB only runs in Docker: where there is neither Docker nor EVENTSTORE_URL the suite is
// skipped, and the reason is in its name so that it shows in the test output
describe.skipIf(eventstore.url === null)(
  eventstore.url === null
    ? `EventStoreDB adapter (skipped: ${eventstore.skipReason})`
    : 'EventStoreDB adapter',
  () => {
    describeEventStoreContract('kurrentdb', async () => {
      const store = createKurrentEventStore({ connectionString: url })
      return { store, teardown: () => store.close() }
    })

    describe('createKurrentEventStore on a shared server', () => {
      let client: KurrentDBClient
      const stores: ReturnType<typeof createKurrentEventStore>[] = []
      const newStore = () => {
        const store = createKurrentEventStore({ connectionString: url })
        stores.push(store)
        return store
      }
      beforeEach(() => {
        client = KurrentDBClient.connectionString(url)
      })
      afterEach(async () => {
        await Promise.all(stores.splice(0).map((store) => store.close()))
        await client.dispose()
      })

      it('wakes listeners once its subscription is live, and for appends made through another client', async () => {
        const [listening, appending] = [newStore(), newStore()]
        let notified = 0
        const unsubscribe = listening.onAppended(() => notified++)
        // live from the end: what was appended before is for the listener to read, so it is woken
        await vi.waitFor(() => expect(notified).toBeGreaterThanOrEqual(1), { timeout: 15_000 })
        const live = notified
        await appending.appendToStream(streamId(), [newEvent()], 'no_stream')
        await vi.waitFor(() => expect(notified).toBeGreaterThan(live), { timeout: 15_000 })
        unsubscribe()
      })

      it('reads past events that are not its own without ending a page early', async () => {
        const store = newStore()
        const stream = streamId()
        const first = await store.appendToStream(stream, [newEvent()], 'no_stream')
        // binary events of another application in a stream of ours, more of them than the page size
        await client.appendToStream(
          stream,
          Array.from({ length: 5 }, () => binaryEvent({ type: 'Foreign', data: new Uint8Array([1, 2, 3]) })),
          { streamState: 0n },
        )
        const last = newEvent()
        await store.appendToStream(stream, [last], 5)
        // one event at a time, passing over whatever other tests append meanwhile
        let after = first.position
        for (;;) {
          const [next] = await store.readAll(after, 1)
          if (next === undefined) throw new Error('readAll ended before the event after the foreign ones')
          if (next.streamId === stream) {
            expect(next).toMatchObject({ revision: 6, eventId: last.eventId })
            break
          }
          after = next.position
        }
        await expect(store.readStream(stream)).rejects.toThrow(/revision 1: not an event of this store/)
      })

      it('reads a stream another client wrote, with metadata it did not write as {}', async () => {
        const store = newStore()
        const stream = streamId()
        const eventId = randomUUID()
        await client.appendToStream(stream, {
          id: eventId,
          contentType: 'application/json',
          type: 'PaymentCreated',
          data: { a: 1 },
          metadata: undefined,
        })
        const [event] = await store.readStream(stream)
        expect(event).toMatchObject({ eventId, revision: 0, data: { a: 1 }, metadata: {} })
        const error = await store.appendToStream(stream, [newEvent()], 'no_stream').catch((e: unknown) => e)
        expect(error).toBeInstanceOf(WrongExpectedRevisionError)
        expect(error).toMatchObject({ actual: 0 })
      })

      it('answers its readiness probe while the server is up, and not once the store is closed', async () => {
        const store = createKurrentEventStore({ connectionString: url })
        expect(await store.answers()).toBe(true)
        await store.close()
        expect(await store.answers()).toBe(false)
      })

      it('answers an empty append from the stream as it is', async () => {
        const store = newStore()
        const stream = streamId()
        expect(await store.appendToStream(stream, [], 'no_stream')).toMatchObject({
          nextExpectedRevision: -1,
        })
        const appended = await store.appendToStream(stream, [newEvent(), newEvent()], 'no_stream')
        expect(await store.appendToStream(stream, [], 1)).toEqual(appended)
        await expect(store.appendToStream(stream, [], 0)).rejects.toMatchObject({ actual: 1 })
      })
    })
  },
)

describe('createKurrentEventStore without a reachable server', () => {
  let connectionString: string
  beforeEach(async () => {
    connectionString = `kurrentdb://127.0.0.1:${await closedPort()}?tls=false`
  })

  it('rejects reads and appends with the port’s StoreUnavailableError, the client’s error as its cause', async () => {
    const store = createKurrentEventStore({ connectionString })
    const unavailable = { name: 'StoreUnavailableError', cause: { type: 'unavailable' } }
    await expect(store.readStream(streamId())).rejects.toMatchObject(unavailable)
    await expect(store.readAll(null, 10)).rejects.toMatchObject(unavailable)
    const append = store.appendToStream(streamId(), [newEvent()], 'no_stream')
    await expect(append).rejects.toBeInstanceOf(StoreUnavailableError)
    await expect(append).rejects.not.toBeInstanceOf(WrongExpectedRevisionError)
    await store.close()
  })

  it('answers its readiness probe with false, within the probe’s timeout, never a rejection', async () => {
    const store = createKurrentEventStore({ connectionString })
    expect(await store.answers()).toBe(false)
    await store.close()
  })

  it('keeps trying to subscribe for listeners, logging each failure, and stops once they are gone', async () => {
    const warnings: { msg: string; failures: number; retryInMs: number }[] = []
    const logger = createRootLogger({
      service: 'event-store-kurrent-test',
      level: 'warn',
      destination: { write: (line: string) => void warnings.push(JSON.parse(line)) },
    })
    const store = createKurrentEventStore({
      connectionString,
      logger,
      resubscribeDelays: { initialMs: 10, maxMs: 40 },
    })
    const unsubscribe = store.onAppended(() => {})
    await vi.waitFor(() => expect(warnings.length).toBeGreaterThanOrEqual(4), { timeout: 15_000 })
    expect(warnings.slice(0, 4).map((w) => [w.failures, w.retryInMs])).toEqual([
      [1, 10],
      [2, 20],
      [3, 40],
      [4, 40],
    ])
    expect(warnings[0]?.msg).toMatch(/\$all subscription failed/)
    unsubscribe()
    const afterUnsubscribe = warnings.length
    // many times the longest wait: a pending attempt would have reported by then
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(warnings.length).toBe(afterUnsubscribe)
    await store.close()
  })
})

describe('createKurrentEventStore close()', () => {
  // an HTTP/2 server that takes every call and never answers one: a connection stays open until the
  // client ends it
  let server: Http2Server
  let open: Set<Socket>
  let accepted: number
  let connectionString: string
  beforeEach(async () => {
    open = new Set()
    accepted = 0
    server = createHttp2Server()
    server.on('connection', (socket: Socket) => {
      accepted++
      open.add(socket)
      socket.on('error', () => {})
      socket.on('close', () => open.delete(socket))
    })
    server.on('stream', () => {})
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    connectionString = `kurrentdb://127.0.0.1:${address.port}?tls=false`
  })
  afterEach(async () => {
    for (const socket of open) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })

  // grpc-js keeps the connection of a closed channel in its shared pool until its next sweep (every
  // 10 s), then ends it; a channel left open (what dispose() alone leaves) keeps it for good
  const POOL_SWEEP = { timeout: 30_000, interval: 200 }

  it('ends the connection of its $all subscription', { timeout: 60_000 }, async () => {
    const store = createKurrentEventStore({ connectionString })
    store.onAppended(() => {})
    await vi.waitFor(() => expect(open.size).toBeGreaterThan(0), { timeout: 10_000 })
    await store.close()
    await vi.waitFor(() => expect(open.size).toBe(0), POOL_SWEEP)
    await expect(store.readStream(streamId())).rejects.toBeInstanceOf(StoreUnavailableError)
  })

  it('ends the gRPC connection of an append still under way', { timeout: 60_000 }, async () => {
    const held = releasable(KurrentDBClient.connectionString(connectionString))
    // an append through gRPC that the server never answers
    const append = held.client.appendToStream(streamId(), [jsonEvent({ type: 'KurrentTested', data: {} })])
    append.catch(() => {})
    await vi.waitFor(() => expect(open.size).toBeGreaterThan(0), { timeout: 10_000 })
    await held.release()
    await vi.waitFor(() => expect(open.size).toBe(0), POOL_SWEEP)
    await expect(append).rejects.toBeDefined()
    expect(accepted).toBeGreaterThan(0)
  })

  it('releases a client that never connected without connecting it', async () => {
    await releasable(KurrentDBClient.connectionString(connectionString)).release()
    const store = createKurrentEventStore({ connectionString })
    await store.close()
    expect(accepted).toBe(0)
  })
})

function streamId(): string {
  return `kurrent-test-${randomUUID()}`
}

function newEvent(): NewEvent {
  return { eventId: randomUUID(), type: 'KurrentTested', data: { nonce: randomUUID() } }
}

/** a loopback port nothing listens on */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}
