// The delivery pruner on the real SQLite delivery log and a manual clock: what it deletes, in how
// many batches, and that the clock (not real time) decides when it runs. Counts calls, never times.

import { type Clock, createManualClock, createRootLogger } from '@chainpay/platform'
import type { WebhookDelivery, WebhookDeliveryStore } from '@chainpay/ports'
import { createSqliteDeliveryStore, type DatabaseSync, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { createDeliveryPruner, type DeliveryPruner } from './delivery-pruner.js'

const DAY_MS = 24 * 60 * 60 * 1000
const logger = createRootLogger({ service: 'test', level: 'silent' })
const start = new Date('2030-01-01T00:00:00.000Z')

let db: DatabaseSync
let pruner: DeliveryPruner | undefined
afterEach(async () => {
  await pruner?.stop()
  pruner = undefined
  db?.close()
})

/** the real store, with its prune calls and their results counted */
function countedStore() {
  db = openSqliteDatabase(':memory:')
  const store = createSqliteDeliveryStore(db)
  const pruneResults: number[] = []
  const counted: WebhookDeliveryStore = {
    ...store,
    async pruneFinished(finishedBefore, limit) {
      const deleted = await store.pruneFinished(finishedBefore, limit)
      pruneResults.push(deleted)
      return deleted
    },
  }
  const rows = (table: string) => Number(db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n)
  return { store: counted, pruneResults, rows }
}

/** a clock whose looks are counted, so that a test can wait for the pruner to have looked */
function watchedClock(clock: Clock) {
  let looks = 0
  return {
    clock: {
      now() {
        looks += 1
        return clock.now()
      },
    },
    looks: () => looks,
  }
}

async function until(condition: () => boolean): Promise<void> {
  for (let round = 0; round < 2_000 && !condition(); round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  expect(condition()).toBe(true)
}

async function deliveredAt(store: WebhookDeliveryStore, id: string, at: Date): Promise<void> {
  const iso = at.toISOString()
  const delivery: WebhookDelivery = {
    deliveryId: id,
    paymentId: `pay_${id}`,
    merchantId: 'mer_1',
    eventType: 'payment.confirmed',
    sequence: 0,
    payload: {},
    targetUrl: 'https://shop.example/hooks',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: iso,
    createdAt: iso,
    deliveredAt: null,
    lastError: null,
  }
  await store.enqueue(delivery)
  await store.claimDue(iso, { limit: 100, leaseMs: 30_000, perTargetHost: 100 })
  await store.recordAttempt(
    { deliveryId: id, attempt: 1, at: iso, statusCode: 204, durationMs: 3, error: null },
    { status: 'delivered', deliveredAt: iso },
  )
}

describe('delivery pruner', () => {
  it('deletes what finished before the retention in batches of at most batchSize, until none is left', async () => {
    const { store, pruneResults, rows } = countedStore()
    const clock = createManualClock(start)
    for (let number = 0; number < 7; number += 1) await deliveredAt(store, `evt_${number}`, start)
    await deliveredAt(store, 'evt_recent', new Date(start.getTime() + 5 * DAY_MS))
    clock.advance(10 * DAY_MS)
    pruner = createDeliveryPruner({ deliveries: store, clock, logger, retentionMs: 7 * DAY_MS, batchSize: 3 })
    expect(await pruner.pruneNow()).toEqual({ batches: 3, deleted: 7 })
    expect(pruneResults).toEqual([3, 3, 1, 0])
    expect(rows('webhook_deliveries')).toBe(1)
    expect(rows('webhook_attempts')).toBe(1)
    expect(await store.get('evt_recent')).not.toBeNull()
  })

  it('runs on the injected clock: at its first look, then once the clock has passed the prune interval', async () => {
    const { store, pruneResults, rows } = countedStore()
    const manual = createManualClock(start)
    const { clock, looks } = watchedClock(manual)
    await deliveredAt(store, 'evt_1', start)
    pruner = createDeliveryPruner({
      deliveries: store,
      clock,
      logger,
      retentionMs: 30 * 60 * 1000,
      pruneIntervalMs: 60 * 60 * 1000,
      checkIntervalMs: 1,
    })
    await pruner.start()
    await until(() => pruneResults.length === 1)
    expect(rows('webhook_deliveries')).toBe(1)

    // past the retention by the clock, but within the interval since the last prune: many looks, no prune
    manual.advance(45 * 60 * 1000)
    const looked = looks()
    await until(() => looks() >= looked + 20)
    expect(pruneResults).toEqual([0])

    manual.advance(15 * 60 * 1000)
    await until(() => rows('webhook_deliveries') === 0)
    expect(pruneResults).toEqual([0, 1, 0])
    expect(rows('webhook_attempts')).toBe(0)
  })

  it('refuses a retention or batch size that is not a positive integer', () => {
    const { store } = countedStore()
    const clock = createManualClock(start)
    expect(() => createDeliveryPruner({ deliveries: store, clock, logger, retentionMs: 0 })).toThrow(
      RangeError,
    )
    expect(() =>
      createDeliveryPruner({ deliveries: store, clock, logger, retentionMs: DAY_MS, batchSize: 0 }),
    ).toThrow(RangeError)
  })
})
