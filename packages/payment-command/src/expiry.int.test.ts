import type { WatchingObservation } from '@chainpay/contracts'
import { createManualClock } from '@chainpay/platform'
import { type PaymentDeadlineStore, Topics } from '@chainpay/ports'
import {
  createSqliteBus,
  createSqliteCheckpointStore,
  createSqliteDeadlineStore,
} from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createChainTimeTracker } from './chain-times.js'
import type { PaymentCommandHandler } from './command-handler.js'
import { createDeadlineKeeper, createExpiryScheduler } from './expiry.js'
import { createObservationConsumer } from './observation-consumer.js'
import { loadPayment } from './payment-stream.js'
import { createEventRelay } from './relay.js'
import { openSqliteCommandSide } from './testing/sqlite-command-side.js'

const merchantId = 'merchant-1'
const END_OF_TIME = '9999-12-31T23:59:59.999Z'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** payment-command's relay and deadline keeper on one SQLite file, with a clock the test moves */
async function setup() {
  const clock = createManualClock('2026-11-21T14:00:00.000Z')
  const side = openSqliteCommandSide({ clock })
  await side.addMerchant(merchantId)
  const bus = createSqliteBus(side.db, { logger: side.logger, pollIntervalMs: 20 })
  const deadlines = createSqliteDeadlineStore(side.db)
  const relay = createEventRelay({
    ...side,
    bus,
    checkpoints: createSqliteCheckpointStore(side.db),
    pollIntervalMs: 20,
  })
  const keeper = createDeadlineKeeper({
    bus,
    deadlines,
    paymentState: async (paymentId) => (await loadPayment(side.eventStore, paymentId)).state,
    logger: side.logger,
  })
  await relay.start()
  await keeper.start()
  cleanups.push(
    () => side.close(),
    () => bus.close(),
    () => relay.stop(),
    () => keeper.stop(),
  )
  /** a payment whose address the chain watcher reports watching, unless told otherwise */
  const create = async (idempotencyKey: string, { watched = true } = {}) => {
    const request = { amount: '10.5', currency: 'USDT', network: 'TRON', idempotencyKey }
    const created = (await side.handler.createPayment({ merchantId, request })).payment.created
    if (watched) await deadlines.markWatched(created.paymentId, created.createdAt)
    return created
  }
  const statusOf = async (paymentId: string) =>
    (await side.handler.getPayment({ merchantId, paymentId }))?.payment.status
  return { clock, side, bus, deadlines, create, statusOf }
}

/** every watched deadline, whenever it expires */
const dueDeadlines = (deadlines: PaymentDeadlineStore) =>
  deadlines.due({ expiredBy: END_OF_TIME, now: END_OF_TIME, limit: 10 })

describe('createDeadlineKeeper', () => {
  it('keeps the deadline of every open payment, with a transfer too, and drops it once closed', async () => {
    const { side, deadlines, create } = await setup()
    const open = await create('open')
    const canceled = await create('canceled')
    await side.handler.cancelPayment({ merchantId, paymentId: canceled.paymentId })
    const paid = await create('paid')
    await side.handler.recordObservation({
      kind: 'transfer',
      network: 'TRON',
      paymentId: paid.paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      address: paid.address,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: '2026-11-21T14:05:00.000Z',
      confirmations: 1,
      status: 'seen',
      dropReason: null,
      observedAt: '2026-11-21T14:05:00.000Z',
    })
    const later = await create('later')

    await vi.waitFor(
      async () =>
        expect(await dueDeadlines(deadlines)).toEqual(
          [
            {
              paymentId: open.paymentId,
              network: 'TRON',
              expiresAt: '2026-11-21T14:30:00.000Z',
              attempts: 0,
            },
            {
              paymentId: later.paymentId,
              network: 'TRON',
              expiresAt: '2026-11-21T14:30:00.000Z',
              attempts: 0,
            },
            // an underpaid payment becomes final at its deadline
            {
              paymentId: paid.paymentId,
              network: 'TRON',
              expiresAt: '2026-11-21T14:30:00.000Z',
              attempts: 0,
            },
          ].sort((a, b) => a.paymentId.localeCompare(b.paymentId)),
        ),
      { timeout: 10_000 },
    )
  })
})

describe('createDeadlineKeeper after a dropped transfer', () => {
  it('gives the payment its deadline back, watched, once the chain dropped its only transfer', async () => {
    const { side, deadlines, create } = await setup()
    const paid = await create('dropped')
    const observation = {
      kind: 'transfer' as const,
      network: 'TRON',
      paymentId: paid.paymentId,
      txHash: 'ab'.repeat(32),
      transferIndex: 0,
      address: paid.address,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: '2026-11-21T14:05:00.000Z',
      confirmations: 1,
      status: 'seen' as const,
      dropReason: null,
      observedAt: '2026-11-21T14:05:00.000Z',
    }
    const deadline = {
      paymentId: paid.paymentId,
      network: 'TRON',
      expiresAt: '2026-11-21T14:30:00.000Z',
      attempts: 0,
    }
    await side.handler.recordObservation(observation)
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toEqual([deadline]), {
      timeout: 10_000,
    })
    // as if the scheduler had let it go meanwhile: the drop gives it back all the same
    await deadlines.remove(paid.paymentId)

    await side.handler.recordObservation({ ...observation, status: 'in_doubt' })
    await side.handler.recordObservation({ ...observation, status: 'dropped', dropReason: 'EXPIRED' })

    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toEqual([deadline]), {
      timeout: 10_000,
    })
  })
})

describe('createExpiryScheduler', () => {
  it('expires a payment only once its deadline passed on the clock and on the chain', async () => {
    const { clock, side, deadlines, create, statusOf } = await setup()
    const chainTimes = createChainTimeTracker()
    const scheduler = createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes,
      clock,
      logger: side.logger,
      intervalMs: 10,
    })
    const { paymentId } = await create('order-1')
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(1), {
      timeout: 10_000,
    })

    // before the deadline, whatever the chain says
    chainTimes.update('TRON', '2026-11-21T14:40:00.000Z')
    clock.set('2026-11-21T14:29:59.999Z')
    await scheduler.tick()
    expect(await statusOf(paymentId)).toBe('pending')

    // past the deadline, but no chain report yet
    const behind = createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes: createChainTimeTracker(),
      clock,
      logger: side.logger,
    })
    clock.set('2026-11-21T14:31:00.000Z')
    await behind.tick()
    expect(await statusOf(paymentId)).toBe('pending')

    // past the deadline on the chain, but the watcher holds this payment before it (a transaction
    // on its address it could not read yet: docs/chains.md, "Solana by address")
    const holding = createChainTimeTracker()
    holding.update('TRON', '2026-11-21T14:40:00.000Z', [{ paymentId, before: '2026-11-21T14:29:59.000Z' }])
    await createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes: holding,
      clock,
      logger: side.logger,
    }).tick()
    expect(await statusOf(paymentId)).toBe('pending')

    // past the deadline, the chain scanned only up to just before it
    const lagging = createChainTimeTracker()
    lagging.update('TRON', '2026-11-21T14:29:59.000Z')
    await createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes: lagging,
      clock,
      logger: side.logger,
    }).tick()
    expect(await statusOf(paymentId)).toBe('pending')
    expect(await dueDeadlines(deadlines)).toHaveLength(1)

    // both past: the running scheduler expires it on its own timer and drops the deadline, once the
    // hold's recheck is due
    clock.set('2026-11-21T14:31:05.000Z')
    await scheduler.start()
    cleanups.push(() => scheduler.stop())
    await vi.waitFor(async () => expect(await statusOf(paymentId)).toBe('expired'), { timeout: 10_000 })
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toEqual([]), {
      timeout: 10_000,
    })
  })

  it('makes an underpaid payment final at its deadline, asking again while its last transfer confirms', async () => {
    const { clock, side, deadlines, create, statusOf } = await setup()
    const chainTimes = createChainTimeTracker()
    const scheduler = createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes,
      clock,
      logger: side.logger,
      settlingRecheckMs: 60_000,
    })
    const payment = await create('order-short')
    const seen = (txHash: string, amountUnits: string, confirmations: number) =>
      side.handler.recordObservation({
        kind: 'transfer',
        network: 'TRON',
        paymentId: payment.paymentId,
        txHash,
        transferIndex: 0,
        address: payment.address,
        amountUnits,
        blockHeight: 100,
        blockTime: '2026-11-21T14:05:00.000Z',
        confirmations,
        status: 'seen',
        dropReason: null,
        observedAt: clock.now().toISOString(),
      })
    await seen('tx-1', '10000000', payment.requiredConfirmations)
    await seen('tx-2', '100000', 1)
    expect(await statusOf(payment.paymentId)).toBe('underpaid')
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(1), { timeout: 10_000 })

    // past the deadline, tx-2 still confirms: asked again after settlingRecheckMs, not before
    chainTimes.update('TRON', '2026-11-21T14:31:00.000Z')
    clock.set('2026-11-21T14:31:00.000Z')
    await scheduler.tick()
    expect(await side.handler.getPayment({ merchantId, paymentId: payment.paymentId })).toMatchObject({
      payment: { status: 'underpaid', closedAt: null },
    })
    expect(
      await deadlines.due({
        expiredBy: clock.now().toISOString(),
        now: clock.now().toISOString(),
        limit: 10,
      }),
    ).toEqual([])

    await seen('tx-2', '100000', payment.requiredConfirmations)
    clock.set('2026-11-21T14:32:00.001Z')
    await scheduler.tick()
    expect(await side.handler.getPayment({ merchantId, paymentId: payment.paymentId })).toMatchObject({
      payment: { status: 'underpaid', closedAt: '2026-11-21T14:32:00.001Z', receivedUnits: '10100000' },
    })
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toEqual([]), { timeout: 10_000 })
  })

  it('expires the due payments of a network while more than a batch of deadlines wait on a lagging one', async () => {
    const { clock, side, deadlines, statusOf } = await setup()
    const createOn = async (network: string, currency: string, expiresInMinutes: number, key: string) => {
      const request = { amount: '1', currency, network, expiresInMinutes, idempotencyKey: key }
      const created = (await side.handler.createPayment({ merchantId, request })).payment.created
      await deadlines.markWatched(created.paymentId, created.createdAt)
      return created
    }
    // the earliest deadlines are TRON's, more of them than a batch holds
    const onTron = [
      await createOn('TRON', 'USDT', 5, 'tron-1'),
      await createOn('TRON', 'USDT', 6, 'tron-2'),
      await createOn('TRON', 'USDT', 7, 'tron-3'),
    ]
    const onSolana = await createOn('SOLANA', 'USDC', 10, 'solana-1')
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(4), {
      timeout: 10_000,
    })
    // TRON's watcher is stuck before every TRON deadline; Solana's has scanned past its deadline
    const chainTimes = createChainTimeTracker()
    chainTimes.update('TRON', '2026-11-21T14:01:00.000Z')
    chainTimes.update('SOLANA', '2026-11-21T14:20:00.000Z')
    clock.set('2026-11-21T14:15:00.000Z')
    const scheduler = createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes,
      clock,
      logger: side.logger,
      batchSize: 2,
    })

    await scheduler.tick()
    expect(await statusOf(onSolana.paymentId)).toBe('expired')
    for (const payment of onTron) expect(await statusOf(payment.paymentId)).toBe('pending')

    // once TRON's watcher catches up, its payments expire too, a batch per tick
    chainTimes.update('TRON', '2026-11-21T14:10:00.000Z')
    await scheduler.tick()
    await scheduler.tick()
    for (const payment of onTron) expect(await statusOf(payment.paymentId)).toBe('expired')
    expect(await dueDeadlines(deadlines)).toEqual([])
  })

  it('drops the deadline of a payment that closed, and retries one whose expiry failed', async () => {
    const { clock, side, deadlines, create, statusOf } = await setup()
    const chainTimes = createChainTimeTracker()
    chainTimes.update('TRON', '2026-11-21T15:00:00.000Z')
    const flaky = await create('flaky')
    let failures = 1
    const handler: Pick<PaymentCommandHandler, 'expire'> = {
      async expire(paymentId, chainTime) {
        if (paymentId === flaky.paymentId && failures-- > 0) throw new Error('event store unavailable')
        return side.handler.expire(paymentId, chainTime)
      },
    }
    const closed = await create('closed')
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(2), {
      timeout: 10_000,
    })
    // a deadline the keeper has not dropped yet (its consumer is behind) for a payment already canceled
    await side.handler.cancelPayment({ merchantId, paymentId: closed.paymentId })
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(1), {
      timeout: 10_000,
    })
    await deadlines.upsert({ paymentId: closed.paymentId, network: 'TRON', expiresAt: closed.expiresAt })
    await deadlines.markWatched(closed.paymentId, closed.createdAt)

    const scheduler = createExpiryScheduler({
      deadlines,
      handler,
      chainTimes,
      clock,
      logger: side.logger,
      retryInitialMs: 5_000,
    })
    clock.set('2026-11-21T14:45:00.000Z')
    await scheduler.tick()
    expect(await statusOf(flaky.paymentId)).toBe('pending')
    expect(await dueDeadlines(deadlines)).toEqual([
      { paymentId: flaky.paymentId, network: 'TRON', expiresAt: flaky.expiresAt, attempts: 1 },
    ])
    // not before its retry time
    clock.set('2026-11-21T14:45:04.999Z')
    await scheduler.tick()
    expect(await statusOf(flaky.paymentId)).toBe('pending')
    clock.set('2026-11-21T14:45:05.000Z')
    await scheduler.tick()
    expect(await statusOf(flaky.paymentId)).toBe('expired')
    expect(await statusOf(closed.paymentId)).toBe('canceled')
    expect(await dueDeadlines(deadlines)).toEqual([])
  })
  it('is not ready after a pass that failed as a whole, and ready after one that worked; a failed expiry is not such a pass', async () => {
    const { clock, side, deadlines, create } = await setup()
    const chainTimes = createChainTimeTracker()
    chainTimes.update('TRON', '2026-11-21T15:00:00.000Z')
    await create('refused')
    const handler: Pick<PaymentCommandHandler, 'expire'> = {
      async expire() {
        throw new Error('event store unavailable')
      },
    }
    // ticks only when the test asks
    const scheduler = createExpiryScheduler({
      deadlines,
      handler,
      chainTimes,
      clock,
      logger: side.logger,
      intervalMs: 600_000,
    })
    await scheduler.start()
    cleanups.push(() => scheduler.stop())
    clock.set('2026-11-21T14:45:00.000Z')
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(1), { timeout: 10_000 })
    await scheduler.tick()
    expect(scheduler.notReadyReason()).toBeUndefined()

    side.db.exec('ALTER TABLE payment_deadlines RENAME TO payment_deadlines_away')
    await scheduler.tick()
    expect(scheduler.notReadyReason()).toBe('its latest pass failed')

    side.db.exec('ALTER TABLE payment_deadlines_away RENAME TO payment_deadlines')
    await scheduler.tick()
    expect(scheduler.notReadyReason()).toBeUndefined()
  })

  it('steps a deadline the chain watcher holds aside, so that held payments cannot fill the batch', async () => {
    const { clock, side, deadlines, create, statusOf } = await setup()
    const held = [await create('held-1'), await create('held-2')]
    clock.set('2026-11-21T14:00:01.000Z')
    const next = await create('next')
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(3), {
      timeout: 10_000,
    })
    // a transaction on each held payment's account that the node did not return yet
    const chainTimes = createChainTimeTracker()
    chainTimes.update(
      'TRON',
      '2026-11-21T15:00:00.000Z',
      held.map(({ paymentId }) => ({ paymentId, before: '2026-11-21T14:20:00.000Z' })),
    )
    const scheduler = createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes,
      clock,
      logger: side.logger,
      batchSize: 2,
      settlingRecheckMs: 60_000,
    })
    clock.set('2026-11-21T14:45:00.000Z')
    await scheduler.tick()
    await scheduler.tick()
    expect(await statusOf(next.paymentId)).toBe('expired')
    for (const { paymentId } of held) expect(await statusOf(paymentId)).toBe('pending')
    // the watcher read them: asked again once their recheck is due, and expired
    chainTimes.update('TRON', '2026-11-21T15:00:00.000Z')
    clock.set('2026-11-21T14:46:00.000Z')
    await scheduler.tick()
    for (const { paymentId } of held) expect(await statusOf(paymentId)).toBe('expired')
  })

  it('steps a deadline whose expiry keeps failing aside, so that it cannot hold back the next ones', async () => {
    const { clock, side, deadlines, create, statusOf } = await setup()
    const chainTimes = createChainTimeTracker()
    chainTimes.update('TRON', '2026-11-21T15:00:00.000Z')
    const broken = await create('broken')
    clock.set('2026-11-21T14:00:01.000Z')
    const next = await create('next')
    let brokenAttempts = 0
    const handler: Pick<PaymentCommandHandler, 'expire'> = {
      async expire(paymentId, chainTime) {
        if (paymentId === broken.paymentId) {
          brokenAttempts++
          throw new Error('stream does not parse')
        }
        return side.handler.expire(paymentId, chainTime)
      },
    }
    await vi.waitFor(async () => expect(await dueDeadlines(deadlines)).toHaveLength(2), {
      timeout: 10_000,
    })
    const scheduler = createExpiryScheduler({
      deadlines,
      handler,
      chainTimes,
      clock,
      logger: side.logger,
      batchSize: 1,
      retryInitialMs: 60_000,
      retryMaxMs: 120_000,
    })

    clock.set('2026-11-21T14:45:00.000Z')
    await scheduler.tick()
    expect(await statusOf(next.paymentId)).toBe('pending')
    await scheduler.tick()
    expect(await statusOf(next.paymentId)).toBe('expired')
    expect(brokenAttempts).toBe(1)

    // retried after its backoff, which doubles per failure up to the maximum
    const retries: string[] = []
    for (const minute of ['46', '47', '48', '49', '50']) {
      clock.set(`2026-11-21T14:${minute}:00.000Z`)
      const before = brokenAttempts
      await scheduler.tick()
      if (brokenAttempts > before) retries.push(minute)
    }
    expect(retries).toEqual(['46', '48', '50'])
    expect(await statusOf(broken.paymentId)).toBe('pending')
    expect(await dueDeadlines(deadlines)).toEqual([
      { paymentId: broken.paymentId, network: 'TRON', expiresAt: broken.expiresAt, attempts: 4 },
    ])
  })

  it('never expires a payment whose address the chain watcher has not reported watching', async () => {
    const { clock, side, bus, deadlines, create, statusOf } = await setup()
    const chainTimes = createChainTimeTracker()
    const consumer = createObservationConsumer({
      bus,
      handler: side.handler,
      deposits: side.deposits,
      chainTimes,
      deadlines,
      logger: side.logger,
    })
    await consumer.start()
    cleanups.push(() => consumer.stop())
    const scheduler = createExpiryScheduler({
      deadlines,
      handler: side.handler,
      chainTimes,
      clock,
      logger: side.logger,
    })
    const unwatched = await create('unwatched', { watched: false })
    const reported = await create('reported', { watched: false })
    const watching: WatchingObservation = {
      kind: 'watching',
      network: 'TRON',
      paymentId: reported.paymentId,
      address: reported.address,
      observedAt: '2026-11-21T14:00:02.000Z',
    }
    await bus.publish(Topics.chainObservations, [
      { key: reported.paymentId, value: JSON.stringify(watching), headers: {} },
    ])
    await vi.waitFor(
      async () =>
        expect((await dueDeadlines(deadlines)).map((deadline) => deadline.paymentId)).toEqual([
          reported.paymentId,
        ]),
      { timeout: 10_000 },
    )

    // long past the deadline, on the clock and on the chain
    chainTimes.update('TRON', '2026-11-21T18:00:00.000Z')
    clock.set('2026-11-21T18:00:00.000Z')
    await scheduler.tick()
    expect(await statusOf(reported.paymentId)).toBe('expired')
    expect(await statusOf(unwatched.paymentId)).toBe('pending')
  })
})
