import { join } from 'node:path'
import { PaymentEventHeaders, parsePaymentEventMessage } from '@chainpay/contracts'
import type { CreatePaymentRequest } from '@chainpay/domain'
import {
  type Bus,
  type CheckpointStore,
  type ConsumedMessage,
  type EventStore,
  Topics,
} from '@chainpay/ports'
import {
  createSqliteBus,
  createSqliteCheckpointStore,
  createSqliteEventStore,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createEventRelay, type EventRelayMetrics, toPaymentEventMessage } from './relay.js'
import { openSqliteCommandSide, type SqliteCommandSide } from './testing/sqlite-command-side.js'

const HOUR_MS = 3_600_000
const merchantId = 'merchant-1'
const request = (idempotencyKey: string): CreatePaymentRequest => ({
  amount: '10.5',
  currency: 'USDT',
  network: 'TRON',
  idempotencyKey,
})

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup() {
  const side = openSqliteCommandSide()
  await side.addMerchant(merchantId)
  const bus = createSqliteBus(side.db, { logger: side.logger, pollIntervalMs: 20 })
  const checkpoints = createSqliteCheckpointStore(side.db)
  cleanups.push(
    () => side.close(),
    () => bus.close(),
  )
  return { side, bus, checkpoints }
}

/** every message on the payment events topic, as a consumer group of its own receives them */
async function collect(bus: Bus): Promise<ConsumedMessage[]> {
  const received: ConsumedMessage[] = []
  const subscription = await bus.subscribe({
    topic: Topics.paymentEvents,
    groupId: `test-${crypto.randomUUID()}`,
    handle: async (message) => {
      received.push(message)
    },
  })
  cleanups.push(() => subscription.stop())
  return received
}

/** a few payments, one canceled, one a replay: events in several streams */
async function makeEvents(side: SqliteCommandSide, keys: string[]): Promise<void> {
  for (const key of keys) {
    const { payment } = await side.handler.createPayment({ merchantId, request: request(key) })
    await side.handler.createPayment({ merchantId, request: request(key) })
    if (key.endsWith('!'))
      await side.handler.cancelPayment({ merchantId, paymentId: payment.created.paymentId })
  }
}

async function paymentEventIds(side: SqliteCommandSide): Promise<string[]> {
  const all = await side.eventStore.readAll(null, 1000)
  return all.filter((event) => event.streamId.startsWith('payment-')).map((event) => event.eventId)
}

describe('createEventRelay', () => {
  it('publishes every payment event once, in order, across a restart from the same checkpoint', async () => {
    const { side, bus, checkpoints } = await setup()
    const received = await collect(bus)
    await makeEvents(side, ['a', 'b!', 'c'])
    // a stream that is not a payment's is not relayed, but the relay moves past it
    await side.eventStore.appendToStream(
      'merchant-m1',
      [{ eventId: crypto.randomUUID(), type: 'MerchantNoted', data: {} }],
      'no_stream',
    )

    const first = createEventRelay({ ...side, bus, checkpoints, batchSize: 2, pollIntervalMs: 20 })
    await first.start()
    await vi.waitFor(() => expect(received).toHaveLength(4), { timeout: 10_000 })
    await first.stop()

    await makeEvents(side, ['d!', 'e'])
    const second = createEventRelay({ ...side, bus, checkpoints, batchSize: 2, pollIntervalMs: 20 })
    await second.start()
    await vi.waitFor(() => expect(received).toHaveLength(7), { timeout: 10_000 })
    await makeEvents(side, ['f'])
    await vi.waitFor(() => expect(received).toHaveLength(8), { timeout: 10_000 })
    await second.stop()

    expect(received.map((message) => JSON.parse(message.value).eventId)).toEqual(await paymentEventIds(side))
    const last = (await side.eventStore.readAll(null, 1000)).at(-1)
    expect(await checkpoints.load('relay:payment-events')).toBe(last?.position)
  })

  it('publishes the stored event as a keyed PaymentEventMessage with its headers', async () => {
    const { side, bus, checkpoints } = await setup()
    const received = await collect(bus)
    await makeEvents(side, ['a!'])
    const relay = createEventRelay({ ...side, bus, checkpoints, pollIntervalMs: 20 })
    await relay.start()
    await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 10_000 })
    await relay.stop()

    const stored = await side.eventStore.readAll(null, 10)
    const [created, canceled] = received
    const paymentId = stored[0]?.streamId.slice('payment-'.length)
    expect(created?.key).toBe(paymentId)
    expect(canceled?.headers).toEqual({
      [PaymentEventHeaders.eventId]: stored[1]?.eventId,
      [PaymentEventHeaders.eventType]: 'PaymentCanceled',
      [PaymentEventHeaders.streamRevision]: '1',
    })
    const parsed = parsePaymentEventMessage(created?.value ?? '')
    expect(parsed).toEqual({
      eventId: stored[0]?.eventId,
      paymentId,
      streamId: `payment-${paymentId}`,
      revision: 0,
      schemaVersion: 4,
      recordedAt: stored[0]?.recordedAt,
      type: 'PaymentCreated',
      data: stored[0]?.data,
    })
    expect(parsed).toEqual(toPaymentEventMessage(stored[0] ?? expect.fail('no stored event')))
  })

  it('is woken by an append rather than waiting for its poll', async () => {
    const { side, bus, checkpoints } = await setup()
    const received = await collect(bus)
    const relay = createEventRelay({ ...side, bus, checkpoints, pollIntervalMs: 600_000 })
    await relay.start()
    cleanups.push(() => relay.stop())
    await makeEvents(side, ['a'])
    await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 10_000 })
  })

  describe('woken by appends, with a poll interval of an hour', () => {
    // Every test here finishes in far less than the poll interval, so whatever was published was
    // published because an append woke the relay; its reads are counted to show it did not poll.

    /** `store`, counting the relay's reads */
    function countingReads(store: EventStore) {
      const reads = { count: 0 }
      const eventStore: EventStore = {
        ...store,
        readAll(after, limit) {
          reads.count += 1
          return store.readAll(after, limit)
        },
      }
      return { eventStore, reads }
    }

    it('publishes an appended event: the append wakes it', async () => {
      const { side, bus, checkpoints } = await setup()
      const received = await collect(bus)
      const { eventStore, reads } = countingReads(side.eventStore)
      const relay = createEventRelay({ ...side, eventStore, bus, checkpoints, pollIntervalMs: HOUR_MS })
      await relay.start()
      cleanups.push(() => relay.stop())
      await expect.poll(() => reads.count).toBe(1)

      await makeEvents(side, ['a'])

      await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 10_000 })
      await relay.stop()
      // at start; woken by the append: the event, then nothing more
      expect(reads.count).toBe(3)
      expect(received.map((message) => JSON.parse(message.value).eventId)).toEqual(
        await paymentEventIds(side),
      )
    })

    it('publishes an event appended through another connection to its SQLite file, when its store polls for those', async () => {
      const { side, bus, checkpoints } = await setup()
      const received = await collect(bus)
      // as a relay in another process than the writer's would open the file: only the store's own
      // poll of the highest position sees appends made through another connection
      const connection = openSqliteDatabase(join(side.dir, 'chainpay.sqlite'))
      const watching = createSqliteEventStore(connection, { pollIntervalMs: 20 })
      cleanups.push(async () => {
        await watching.close()
        connection.close()
      })
      const { eventStore, reads } = countingReads(watching)
      const relay = createEventRelay({ ...side, eventStore, bus, checkpoints, pollIntervalMs: HOUR_MS })
      await relay.start()
      cleanups.push(() => relay.stop())
      await expect.poll(() => reads.count).toBe(1)

      await makeEvents(side, ['a', 'b'])

      await vi.waitFor(() => expect(received).toHaveLength(2), { timeout: 10_000 })
      await relay.stop()
      expect(received.map((message) => JSON.parse(message.value).eventId)).toEqual(
        await paymentEventIds(side),
      )
      // woken once or twice (the store may see both appends at once), each time reading until empty
      expect(reads.count).toBeLessThanOrEqual(5)
    })
  })

  it('stores its checkpoint once per interval while events come one at a time, and the last one once idle', async () => {
    const { side, bus, checkpoints } = await setup()
    const received = await collect(bus)
    const stores: string[] = []
    const counting: CheckpointStore = {
      load: (name) => checkpoints.load(name),
      async store(name, position) {
        stores.push(position)
        await checkpoints.store(name, position)
      },
    }
    // woken by each append, never by its poll: each event is a batch of its own
    const relay = createEventRelay({
      ...side,
      bus,
      checkpoints: counting,
      pollIntervalMs: HOUR_MS,
      checkpointIntervalMs: 60_000,
    })
    await relay.start()
    cleanups.push(() => relay.stop())
    const keys = Array.from({ length: 30 }, (_, index) => `one-at-a-time-${index}`)
    for (const [index, key] of keys.entries()) {
      await makeEvents(side, [key])
      await vi.waitFor(() => expect(received).toHaveLength(index + 1), { timeout: 10_000 })
    }
    // 30 batches, and no store within the interval
    expect(stores).toEqual([])
    await relay.stop()
    const last = (await side.eventStore.readAll(null, 1000)).at(-1)
    expect(stores).toEqual([last?.position])

    // an idle relay stores what it published once the interval has passed, without a poll or a stop
    const idle = createEventRelay({
      ...side,
      bus,
      checkpoints: counting,
      pollIntervalMs: HOUR_MS,
      checkpointIntervalMs: 200,
    })
    await idle.start()
    cleanups.push(() => idle.stop())
    await makeEvents(side, ['after-the-stop'])
    await vi.waitFor(() => expect(received).toHaveLength(31), { timeout: 10_000 })
    const newest = (await side.eventStore.readAll(null, 1000)).at(-1)
    await vi.waitFor(() => expect(stores.at(-1)).toBe(newest?.position), { timeout: 10_000 })
    expect(stores).toHaveLength(2)
  })

  it('republishes only the batch whose checkpoint was not stored', async () => {
    const { side, bus, checkpoints } = await setup()
    const received = await collect(bus)
    await makeEvents(side, ['a!', 'b!', 'c'])
    let failures = 1
    // the crash window: the batch is on the bus, its checkpoint is not
    const flaky: CheckpointStore = {
      load: (name) => checkpoints.load(name),
      async store(name, position) {
        if (position === (await side.eventStore.readAll(null, 4)).at(-1)?.position && failures-- > 0) {
          throw new Error('disk full')
        }
        await checkpoints.store(name, position)
      },
    }
    const relay = createEventRelay({
      ...side,
      bus,
      checkpoints: flaky,
      batchSize: 2,
      pollIntervalMs: 20,
      checkpointIntervalMs: 0,
    })
    await relay.start()
    await vi.waitFor(() => expect(received).toHaveLength(7), { timeout: 10_000 })
    await relay.stop()

    const ids = await paymentEventIds(side)
    const expected = [...ids.slice(0, 4), ...ids.slice(2, 4), ...ids.slice(4)]
    expect(received.map((message) => JSON.parse(message.value).eventId)).toEqual(expected)
  })

  it('tells its metrics how far behind it is, also while the bus is down, and what it published', async () => {
    const { side, bus, checkpoints } = await setup()
    const received = await collect(bus)
    await makeEvents(side, ['a!', 'b'])
    const stored = await side.eventStore.readAll(null, 10)
    expect(stored).toHaveLength(3)
    const reports: Array<[string, ...unknown[]]> = []
    const metrics: EventRelayMetrics = {
      behind: (oldestRecordedAt) => reports.push(['behind', oldestRecordedAt]),
      published: (count, newestRecordedAt) => reports.push(['published', count, newestRecordedAt]),
    }
    let busDown = true
    const flakyBus: Bus = {
      ...bus,
      async publish(topic, messages) {
        if (busDown) throw new Error('broker unavailable')
        await bus.publish(topic, messages)
      },
    }
    const relay = createEventRelay({
      ...side,
      bus: flakyBus,
      checkpoints,
      batchSize: 2,
      pollIntervalMs: 20,
      metrics,
    })
    await relay.start()
    cleanups.push(() => relay.stop())

    // each failed try says again that the oldest event is not on the bus
    await vi.waitFor(() => expect(reports.length).toBeGreaterThanOrEqual(3), { timeout: 10_000 })
    expect(new Set(reports.map((report) => JSON.stringify(report)))).toEqual(
      new Set([JSON.stringify(['behind', stored[0]?.recordedAt])]),
    )

    busDown = false
    await vi.waitFor(() => expect(received).toHaveLength(3), { timeout: 10_000 })
    const published = reports.filter(([kind]) => kind === 'published')
    expect(published).toEqual([
      ['published', 2, stored[1]?.recordedAt],
      ['published', 1, stored[2]?.recordedAt],
    ])
    expect(reports.slice(-3)).toEqual([
      ['published', 2, stored[1]?.recordedAt],
      ['behind', stored[2]?.recordedAt],
      ['published', 1, stored[2]?.recordedAt],
    ])
  })
})
