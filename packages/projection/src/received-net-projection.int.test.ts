// The payments' projection keeps each merchant's received net (docs/capacity.md, "Refunds and
// payouts"): every payment counted once at its newest revision, through redeliveries, a write-through
// that got ahead of the projection, and a count that failed after its document was saved.

import { type PaymentEventMessage, paymentEventBusMessage } from '@chainpay/contracts'
import { paymentEventMessages } from '@chainpay/contracts/testing'
import { evolvePayment, initialPaymentState, type OpenPayment, paymentFinalFunds } from '@chainpay/domain'
import { confirmedStream } from '@chainpay/domain/testing'
import { createRootLogger } from '@chainpay/platform'
import { type ReceivedNetTotals, Topics } from '@chainpay/ports'
import {
  createSqliteBus,
  createSqlitePaymentReadModel,
  createSqliteReceivedNetTotals,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createProjectionService } from './projection-service.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('the received net the projection counts', () => {
  it("reads the totals only for the events that move a payment's net, not for every confirmation count", async () => {
    const db = openSqliteDatabase(':memory:')
    const logger = createRootLogger({ service: 'projection-test', level: 'silent' })
    const bus = createSqliteBus(db, { logger, pollIntervalMs: 20 })
    const totals = createSqliteReceivedNetTotals(db)
    cleanups.push(
      () => db.close(),
      () => bus.close(),
    )
    const counted: bigint[] = []
    const receivedNet: ReceivedNetTotals = {
      count: async (entry) => {
        counted.push(entry.netUnits)
        return totals.count(entry)
      },
      totalsOf: (merchantId, network) => totals.totalsOf(merchantId, network),
      countedOf: (paymentId) => totals.countedOf(paymentId),
    }
    const service = createProjectionService({
      bus,
      readModel: createSqlitePaymentReadModel(db),
      receivedNet,
      logger,
    })
    await service.start()
    cleanups.push(() => service.stop())
    const events = paymentEventMessages(confirmedStream('pay-1'))
    await bus.publish(Topics.paymentEvents, events.map(paymentEventBusMessage))
    const net = paymentFinalFunds(
      confirmedStream('pay-1').reduce(evolvePayment, initialPaymentState) as OpenPayment,
    ).netUnits
    await vi.waitFor(async () => expect(await totals.countedOf('pay-1')).toBe(net), { timeout: 10_000 })
    // the created payment (nothing) and each change of its net, no more
    expect(new Set(counted).size).toBe(counted.length)
    expect(counted.length).toBeLessThan(events.length)
  })

  it('counts each payment once at its newest revision, though a count failed and a write-through got ahead', async () => {
    const db = openSqliteDatabase(':memory:')
    const logger = createRootLogger({ service: 'projection-test', level: 'silent' })
    const bus = createSqliteBus(db, { logger, pollIntervalMs: 20 })
    const readModel = createSqlitePaymentReadModel(db)
    const totals = createSqliteReceivedNetTotals(db)
    cleanups.push(
      () => db.close(),
      () => bus.close(),
    )
    // the first count fails after its document was saved: the redelivery must count it
    let failures = 1
    const receivedNet: ReceivedNetTotals = {
      ...totals,
      count: async (entry) => {
        if (failures > 0) {
          failures -= 1
          throw new Error('database is locked')
        }
        return totals.count(entry)
      },
      totalsOf: (merchantId, network) => totals.totalsOf(merchantId, network),
      countedOf: (paymentId) => totals.countedOf(paymentId),
    }
    const service = createProjectionService({
      bus,
      readModel,
      receivedNet,
      logger,
      retry: { retryDelayMs: 10, maxRetryDelayMs: 20 },
    })
    await service.start()
    cleanups.push(() => service.stop())
    const publish = (messages: PaymentEventMessage[]) =>
      bus.publish(Topics.paymentEvents, messages.map(paymentEventBusMessage))

    const first = paymentEventMessages(confirmedStream('pay-1'))
    const second = paymentEventMessages(confirmedStream('pay-2'))
    const final = (paymentId: string) =>
      confirmedStream(paymentId).reduce(evolvePayment, initialPaymentState) as OpenPayment
    const net = paymentFinalFunds(final('pay-1')).netUnits
    expect(net).toBeGreaterThan(0n)
    // the gateway wrote pay-2's final state through before the projection saw any of its events
    await readModel.save({
      paymentId: 'pay-2',
      merchantId: 'merchant-1',
      revision: second.length - 1,
      state: final('pay-2'),
      updatedAt: '2026-11-21T14:02:00.250Z',
    })
    await publish([...first, ...second, ...first])
    await vi.waitFor(async () => expect(await totals.countedOf('pay-2')).toBe(net), { timeout: 10_000 })
    await vi.waitFor(async () => expect(await totals.countedOf('pay-1')).toBe(net), { timeout: 10_000 })
    const [total] = await totals.totalsOf('merchant-1')
    expect(total?.units).toBe(2n * net)
    expect(failures).toBe(0)
  })
})
