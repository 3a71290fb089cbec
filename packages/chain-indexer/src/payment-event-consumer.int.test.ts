import { paymentEventMessage } from '@chainpay/contracts/testing'
import { defaultAssetRegistry, type PaymentEvent } from '@chainpay/domain'
import { at } from '@chainpay/domain/testing'
import { isPoisonMessage, Topics, type WatchedAddress } from '@chainpay/ports'
import { createSqliteChainIndexerStore } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createPaymentEventConsumer,
  DEFAULT_LATE_FUNDS_WINDOW_MS,
  type PaymentEventConsumer,
  watchedAddressOf,
} from './payment-event-consumer.js'
import {
  consumed,
  createIndexerHarness,
  type IndexerHarness,
  paymentCreated,
  testLogger,
} from './testing/indexer-harness.js'
import { createWatchSet, type WatchSet } from './watch-set.js'

let harness: IndexerHarness
let tron: WatchSet
let solana: WatchSet
let consumer: PaymentEventConsumer
let announced: WatchedAddress[]

beforeEach(async () => {
  harness = await createIndexerHarness()
  tron = createWatchSet({ network: 'TRON', store: harness.store })
  solana = createWatchSet({ network: 'SOLANA', store: harness.store })
  announced = []
  consumer = createPaymentEventConsumer({
    bus: harness.bus,
    registry: defaultAssetRegistry,
    watchSets: [tron, solana],
    logger: testLogger,
    lateFundsWindowMs: 60_000,
    onWatched: (address) => announced.push(address),
  })
})

afterEach(async () => {
  await consumer.stop()
  await harness.close()
})

describe('createPaymentEventConsumer', () => {
  it("watches a TRC20 payment address for the registry contract until its late funds window closes, with the payment's requirement", async () => {
    const payment = paymentCreated({
      network: 'TRON',
      currency: 'USDT',
      createdAt: '2026-11-21T14:00:00.000Z',
      expiresAt: '2026-11-21T14:30:00.000Z',
      requiredConfirmations: 25,
    })
    await consumer.handle(payment.message)

    const expected = {
      network: 'TRON',
      address: payment.address,
      paymentId: payment.paymentId,
      assetContract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      watchUntil: '2026-11-21T14:31:00.000Z',
      paymentCreatedAt: '2026-11-21T14:00:00.000Z',
      requiredConfirmations: 25,
      watchingReportedAt: null,
      closedAt: null,
    }
    expect(tron.get(payment.address)).toEqual(expected)
    expect(await harness.store.listWatched('TRON')).toEqual([expected])
    expect(announced).toEqual([expected])
  })

  it('watches an SPL payment by its address (the owner) and its token account, and a native payment with no contract', async () => {
    const usdc = paymentCreated({ network: 'SOLANA', currency: 'USDC' })
    const sol = paymentCreated({ network: 'SOLANA', currency: 'SOL' })
    await consumer.handle(usdc.message)
    await consumer.handle(sol.message)

    const entry = {
      paymentId: usdc.paymentId,
      address: usdc.tokenAccount,
      owner: usdc.address,
      assetContract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    }
    expect(solana.get(usdc.tokenAccount ?? '')).toMatchObject(entry)
    expect(solana.get(usdc.address)).toMatchObject(entry)
    expect(solana.get(sol.address)).toMatchObject({ paymentId: sol.paymentId, assetContract: null })
  })

  const settledData = { receivedUnits: '1', txHash: 'tx-1', confirmedAt: at(10) }
  it.each([
    ['PaymentConfirmed', settledData],
    ['PaymentOverpaid', settledData],
    ['PaymentUnderpaidFinalized', { receivedUnits: '1', finalizedAt: at(30) }],
    ['PaymentExpired', { expiredAt: at(30) }],
    ['PaymentCanceled', { canceledAt: at(3), canceledBy: 'merchant' }],
    ['PaymentFailed', { reason: 'TRANSFER_DROPPED', failedAt: at(32) }],
  ])(
    'closes the entry of a payment at %s (decisions 19), once, in whichever network watches it',
    async (type, data) => {
      const closedEntries: WatchedAddress[] = []
      const closing = createPaymentEventConsumer({
        bus: harness.bus,
        registry: defaultAssetRegistry,
        watchSets: [tron, solana],
        logger: testLogger,
        onClosed: (entry) => closedEntries.push(entry),
      })
      const payment = paymentCreated({ network: 'SOLANA', currency: 'USDC' })
      await closing.handle(payment.message)
      const event = consumed(
        paymentEventMessage({ type, data: { paymentId: payment.paymentId, ...data } } as PaymentEvent, 3),
      )
      await closing.handle(event)
      await closing.handle(event)
      const recordedAt = JSON.parse(event.value).recordedAt
      expect(solana.get(payment.address)?.closedAt).toBe(recordedAt)
      expect(closedEntries.map((entry) => [entry.paymentId, entry.closedAt])).toEqual([
        [payment.paymentId, recordedAt],
      ])
      expect((await harness.store.listWatched('SOLANA'))[0]?.closedAt).toBe(recordedAt)
      // delivered again, the creation leaves it closed
      await closing.handle(payment.message)
      expect(solana.get(payment.address)?.closedAt).toBe(recordedAt)
    },
  )

  it('keeps an underpaid payment open: it may still be completed', async () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    await consumer.handle(payment.message)
    await consumer.handle(
      consumed(
        paymentEventMessage(
          {
            type: 'PaymentUnderpaid',
            data: { paymentId: payment.paymentId, receivedUnits: '1', txHash: 'tx-1', confirmedAt: at(10) },
          },
          2,
        ),
      ),
    )
    expect(tron.get(payment.address)?.closedAt).toBeNull()
  })

  it('announces an address once, however often its event is delivered', async () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    await consumer.handle(payment.message)
    await consumer.handle(payment.message)
    expect(announced).toHaveLength(1)
    expect(tron.size).toBe(1)
  })

  it('ignores other event types and networks indexed elsewhere', async () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    const expired = consumed(
      paymentEventMessage(
        { type: 'PaymentExpired', data: { paymentId: payment.paymentId, expiredAt: at(30) } },
        1,
      ),
    )
    const elsewhere = createPaymentEventConsumer({
      bus: harness.bus,
      registry: defaultAssetRegistry,
      watchSets: [solana],
      logger: testLogger,
    })
    await consumer.handle(expired)
    await elsewhere.handle(payment.message)
    expect(tron.size + solana.size).toBe(0)
  })

  it('reads the event type from the message when the header is missing', async () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    await consumer.handle({ ...payment.message, headers: {} })
    expect(tron.get(payment.address)?.paymentId).toBe(payment.paymentId)
  })

  it.each([
    ['not JSON', () => '{"eventId":'],
    ['failing its schema', (value: string) => value.replace('"PER_PAYMENT"', '"X"')],
    ['of an asset this registry does not know', (value: string) => value.replace('"TRX"', '"DOGE"')],
  ])(
    'rejects a payment event %s as poison, so that the bus dead-letters it at once',
    async (_case, spoil) => {
      const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
      const error = await consumer.handle({ ...payment.message, value: spoil(payment.message.value) }).then(
        () => undefined,
        (rejection: unknown) => rejection,
      )
      expect(error).toBeInstanceOf(Error)
      expect(isPoisonMessage(error)).toBe(true)
      expect(tron.size).toBe(0)
    },
  )

  it('fails a payment event it cannot store with an error the bus retries, never as poison', async () => {
    const db = harness.reopen()
    const unavailable = createWatchSet({ network: 'TRON', store: createSqliteChainIndexerStore(db) })
    db.close()
    const failing = createPaymentEventConsumer({
      bus: harness.bus,
      registry: defaultAssetRegistry,
      watchSets: [unavailable],
      logger: testLogger,
    })
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    const error = await failing.handle(payment.message).then(
      () => undefined,
      (rejection: unknown) => rejection,
    )
    expect(error).toBeInstanceOf(Error)
    expect(isPoisonMessage(error)).toBe(false)
  })

  it('follows the payment event topic once started', async () => {
    await consumer.start()
    const payment = paymentCreated({ network: 'SOLANA', currency: 'SOL' })
    await harness.bus.publish(Topics.paymentEvents, [
      { key: payment.paymentId, value: payment.message.value, headers: payment.message.headers },
    ])
    await vi.waitFor(() => expect(solana.get(payment.address)).toBeDefined(), { timeout: 10_000 })
  })
})

describe('watchedAddressOf', () => {
  it('watches until expiry plus seven days by default', () => {
    const payment = paymentCreated({
      network: 'TRON',
      currency: 'TRX',
      expiresAt: '2026-11-21T14:30:00.000Z',
    })
    const created = JSON.parse(payment.message.value).data
    expect(watchedAddressOf(created, defaultAssetRegistry).watchUntil).toBe('2026-11-28T14:30:00.000Z')
    expect(DEFAULT_LATE_FUNDS_WINDOW_MS).toBe(7 * 24 * 3600 * 1000)
  })

  it('fails on an asset the registry does not know', () => {
    const payment = paymentCreated({ network: 'TRON', currency: 'TRX' })
    const created = { ...JSON.parse(payment.message.value).data, currency: 'DOGE' }
    expect(() => watchedAddressOf(created, defaultAssetRegistry)).toThrow(/unsupported asset DOGE/)
  })
})
