import type { ChainObservationMessage, TransferObservation } from '@chainpay/contracts'
import { Topics } from '@chainpay/ports'
import { createSqliteBus, createSqliteDeadlineStore } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createChainTimeTracker } from './chain-times.js'
import { createObservationConsumer } from './observation-consumer.js'
import { openSqliteCommandSide } from './testing/sqlite-command-side.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('createObservationConsumer', () => {
  it('records transfers on the payment and moves the chain time with progress reports', async () => {
    const side = openSqliteCommandSide()
    const bus = createSqliteBus(side.db, { logger: side.logger, pollIntervalMs: 20 })
    cleanups.push(
      () => side.close(),
      () => bus.close(),
    )
    const chainTimes = createChainTimeTracker()
    const consumer = createObservationConsumer({
      bus,
      handler: side.handler,
      deposits: side.deposits,
      chainTimes,
      deadlines: createSqliteDeadlineStore(side.db),
      logger: side.logger,
    })
    await consumer.start()
    cleanups.push(() => consumer.stop())

    const merchantId = 'merchant-1'
    await side.addMerchant(merchantId)
    const { payment } = await side.handler.createPayment({
      merchantId,
      request: { amount: '10.5', currency: 'USDT', network: 'TRON' },
    })
    const { paymentId, address } = payment.created
    const transfer = (confirmations: number): TransferObservation => ({
      kind: 'transfer',
      network: 'TRON',
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      address,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: new Date().toISOString(),
      confirmations,
      status: 'seen',
      dropReason: null,
      observedAt: new Date().toISOString(),
    })
    const progress = (blockTime: string): ChainObservationMessage => ({
      kind: 'progress',
      network: 'TRON',
      height: 120,
      blockTime,
      observedAt: blockTime,
    })
    const publish = (observations: ChainObservationMessage[]) =>
      bus.publish(
        Topics.chainObservations,
        observations.map((observation) => ({
          key: observation.kind === 'transfer' ? observation.paymentId : observation.network,
          value: JSON.stringify(observation),
          headers: {},
        })),
      )

    await publish([
      transfer(1),
      progress('2026-11-21T14:10:00.000Z'),
      transfer(20),
      progress('2026-11-21T14:09:00.000Z'),
    ])
    await vi.waitFor(
      async () => {
        const snapshot = await side.handler.getPayment({ merchantId, paymentId })
        expect(snapshot?.payment.status).toBe('confirmed')
      },
      { timeout: 10_000 },
    )
    await vi.waitFor(() => expect(chainTimes.get('TRON')).toBe('2026-11-21T14:10:00.000Z'), {
      timeout: 10_000,
    })
    expect(chainTimes.get('SOLANA')).toBeNull()
  })

  it('marks the deadline of a payment whose address the chain watcher reports watching', async () => {
    const side = openSqliteCommandSide()
    const bus = createSqliteBus(side.db, { logger: side.logger, pollIntervalMs: 20 })
    cleanups.push(
      () => side.close(),
      () => bus.close(),
    )
    const deadlines = createSqliteDeadlineStore(side.db)
    const consumer = createObservationConsumer({
      bus,
      handler: side.handler,
      deposits: side.deposits,
      chainTimes: createChainTimeTracker(),
      deadlines,
      logger: side.logger,
    })
    await consumer.start()
    cleanups.push(() => consumer.stop())
    const watching = (paymentId: string): ChainObservationMessage => ({
      kind: 'watching',
      network: 'TRON',
      paymentId,
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      observedAt: '2026-11-21T14:00:03.000Z',
    })
    await bus.publish(
      Topics.chainObservations,
      ['pay_watched', 'pay_watched'].map((paymentId) => ({
        key: paymentId,
        value: JSON.stringify(watching(paymentId)),
        headers: {},
      })),
    )
    // the deadline keeper, another consumer, may learn the deadline after the mark
    const expiresAt = '2026-11-21T14:30:00.000Z'
    await deadlines.upsert({ paymentId: 'pay_watched', network: 'TRON', expiresAt })
    await deadlines.upsert({ paymentId: 'pay_unwatched', network: 'TRON', expiresAt })
    const query = { expiredBy: expiresAt, now: expiresAt, limit: 10 }
    await vi.waitFor(
      async () =>
        expect(await deadlines.due(query)).toEqual([
          { paymentId: 'pay_watched', network: 'TRON', expiresAt, attempts: 0 },
        ]),
      { timeout: 10_000 },
    )
  })

  it('retries an observation whose recording failed inside the service, and never fails the payment for it', async () => {
    const side = openSqliteCommandSide()
    const bus = createSqliteBus(side.db, { logger: side.logger, pollIntervalMs: 20 })
    cleanups.push(
      () => side.close(),
      () => bus.close(),
    )
    let failures = 2
    const consumer = createObservationConsumer({
      bus,
      handler: {
        async recordObservation(observation) {
          if (failures-- > 0) throw new Error('SQLITE_BUSY: database is locked')
          return side.handler.recordObservation(observation)
        },
      },
      deposits: side.deposits,
      chainTimes: createChainTimeTracker(),
      deadlines: createSqliteDeadlineStore(side.db),
      logger: side.logger,
    })
    await consumer.start()
    cleanups.push(() => consumer.stop())

    const merchantId = 'merchant-1'
    await side.addMerchant(merchantId)
    const { payment } = await side.handler.createPayment({
      merchantId,
      request: { amount: '10.5', currency: 'USDT', network: 'TRON' },
    })
    const { paymentId, address } = payment.created
    const observation: TransferObservation = {
      kind: 'transfer',
      network: 'TRON',
      paymentId,
      txHash: 'tx-1',
      transferIndex: 0,
      address,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: new Date().toISOString(),
      confirmations: 20,
      status: 'seen',
      dropReason: null,
      observedAt: new Date().toISOString(),
    }
    await bus.publish(Topics.chainObservations, [
      { key: paymentId, value: JSON.stringify(observation), headers: {} },
    ])

    await vi.waitFor(
      async () => {
        const snapshot = await side.handler.getPayment({ merchantId, paymentId })
        expect(snapshot?.payment.status).toBe('confirmed')
      },
      { timeout: 10_000 },
    )
    expect(failures).toBe(-1)
    const types = (await side.eventStore.readStream(`payment-${paymentId}`)).map((event) => event.type)
    expect(types).toEqual(['PaymentCreated', 'TransferDetected', 'PaymentConfirmed'])
  })
})
