import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type PaymentEventMessage, paymentEventBusMessage } from '@chainpay/contracts'
import { paymentEventMessages } from '@chainpay/contracts/testing'
import { evolvePayment, initialPaymentState } from '@chainpay/domain'
import { at, canceledStream, confirmedStream } from '@chainpay/domain/testing'
import { createRootLogger } from '@chainpay/platform'
import {
  type Bus,
  type ConsumedMessage,
  deadLetterTopic,
  type PaymentDocument,
  type PaymentReadModel,
  Topics,
} from '@chainpay/ports'
import { createSqliteBus, createSqlitePaymentReadModel, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createProjectionService } from './projection-service.js'

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-projection-'))
  const db = openSqliteDatabase(join(dir, 'chainpay.sqlite'))
  const logger = createRootLogger({ service: 'projection-test', level: 'silent' })
  const bus = createSqliteBus(db, { logger, pollIntervalMs: 20 })
  const readModel = createSqlitePaymentReadModel(db)
  cleanups.push(
    () => rmSync(dir, { recursive: true, force: true }),
    () => db.close(),
    () => bus.close(),
  )
  const publish = (messages: PaymentEventMessage[]) =>
    bus.publish(Topics.paymentEvents, messages.map(paymentEventBusMessage))
  return { bus, readModel, logger, publish }
}

async function watchDeadLetters(bus: Bus): Promise<ConsumedMessage[]> {
  const deadLetters: ConsumedMessage[] = []
  const watcher = await bus.subscribe({
    topic: deadLetterTopic(Topics.paymentEvents),
    groupId: 'test',
    handle: async (message) => {
      deadLetters.push(message)
    },
  })
  cleanups.push(() => watcher.stop())
  return deadLetters
}

describe('createProjectionService', () => {
  it('builds each payment’s document through duplicates and a write-through that got ahead', async () => {
    const { bus, readModel, logger, publish } = setup()
    const service = createProjectionService({ bus, readModel, logger })
    await service.start()
    cleanups.push(() => service.stop())

    const paid = paymentEventMessages(confirmedStream('pay-confirmed'))
    const canceled = paymentEventMessages(canceledStream('pay-canceled'))
    const [paid0, paid1, paid2, paid3] = paid
    const [canceled0, canceled1, canceled2] = canceled
    if (!paid0 || !paid1 || !paid2 || !paid3 || !canceled0 || !canceled1 || !canceled2) {
      throw new Error('the streams are shorter than expected')
    }

    await publish([canceled0, paid0, canceled0, paid1])
    await vi.waitFor(async () => expect((await readModel.get('pay-confirmed'))?.revision).toBe(1), {
      timeout: 10_000,
    })
    // the gateway saves the canceled payment itself, before the projection sees the cancel
    const writeThrough: PaymentDocument = {
      paymentId: 'pay-canceled',
      merchantId: 'merchant-1',
      revision: 1,
      state: canceledStream('pay-canceled')
        .slice(0, 2)
        .reduce(evolvePayment, initialPaymentState) as PaymentDocument['state'],
      updatedAt: '2026-11-21T14:02:00.250Z',
    }
    expect(await readModel.save(writeThrough)).toBe('applied')
    await publish([paid1, paid2, canceled1, paid3])
    await vi.waitFor(async () => expect((await readModel.get('pay-confirmed'))?.revision).toBe(3), {
      timeout: 10_000,
    })
    // the cancel came before paid3 on the topic: it was skipped, the write-through stands as saved
    expect(await readModel.get('pay-canceled')).toEqual(writeThrough)

    await publish([paid2, canceled2, canceled1])
    await vi.waitFor(async () => expect((await readModel.get('pay-canceled'))?.revision).toBe(2), {
      timeout: 10_000,
    })
    expect(await readModel.get('pay-confirmed')).toEqual({
      paymentId: 'pay-confirmed',
      merchantId: 'merchant-1',
      revision: 3,
      state: confirmedStream('pay-confirmed').reduce(evolvePayment, initialPaymentState),
      updatedAt: at(3),
    })
    expect(await readModel.get('pay-canceled')).toEqual({
      paymentId: 'pay-canceled',
      merchantId: 'merchant-1',
      revision: 2,
      state: canceledStream('pay-canceled').reduce(evolvePayment, initialPaymentState),
      updatedAt: at(2),
    })
  })

  it('retries while the read model fails, for longer than a few attempts, and loses nothing', async () => {
    const { bus, readModel, logger, publish } = setup()
    const deadLetters = await watchDeadLetters(bus)
    // eight failed saves: more than the five attempts after which the bus used to give up
    let failures = 8
    const saved: number[] = []
    const flaky: PaymentReadModel = {
      get: (paymentId) => readModel.get(paymentId),
      list: (query) => readModel.list(query),
      listFunded: (query) => readModel.listFunded(query),
      async save(document) {
        if (failures > 0) {
          failures -= 1
          throw new Error('read model unavailable')
        }
        saved.push(document.revision)
        return readModel.save(document)
      },
    }
    const service = createProjectionService({
      bus,
      readModel: flaky,
      logger,
      retry: { retryDelayMs: 1, maxRetryDelayMs: 4 },
    })
    await service.start()
    cleanups.push(() => service.stop())

    await publish(paymentEventMessages(confirmedStream('pay-flaky')))
    await vi.waitFor(async () => expect((await readModel.get('pay-flaky'))?.revision).toBe(3), {
      timeout: 10_000,
    })
    expect(failures).toBe(0)
    expect(saved).toEqual([0, 1, 2, 3])
    expect((await readModel.get('pay-flaky'))?.state.status).toBe('confirmed')
    // a marker published now comes after any letter the projection wrote: it must be the only one
    await bus.publish(deadLetterTopic(Topics.paymentEvents), [{ key: 'marker', value: '{}', headers: {} }])
    await vi.waitFor(() => expect(deadLetters).toHaveLength(1), { timeout: 10_000 })
    expect(deadLetters[0]?.key).toBe('marker')
  })

  it('dead-letters an event that shows a gap at once, and goes on with the others', async () => {
    const { bus, readModel, logger, publish } = setup()
    const deadLetters = await watchDeadLetters(bus)
    const service = createProjectionService({ bus, readModel, logger })
    await service.start()
    cleanups.push(() => service.stop())

    const gapped = paymentEventMessages(confirmedStream('pay-gapped'))
    const whole = paymentEventMessages(canceledStream('pay-whole'))
    await publish([gapped[0], gapped[2], ...whole].filter((message) => message !== undefined))

    await vi.waitFor(() => expect(deadLetters).toHaveLength(1), { timeout: 10_000 })
    expect(JSON.parse(deadLetters[0]?.value ?? '{}')).toMatchObject({ paymentId: 'pay-gapped', revision: 2 })
    expect(deadLetters[0]?.headers['dead-letter-error']).toMatch(/revision 1 is missing/)
    await vi.waitFor(async () => expect((await readModel.get('pay-whole'))?.revision).toBe(2), {
      timeout: 10_000,
    })
    expect((await readModel.get('pay-gapped'))?.revision).toBe(0)
  })
})
