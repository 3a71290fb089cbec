import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { WebhookDelivery } from '@chainpay/ports'
import { describeWebhookDeliveryStoreContract } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqliteDeliveryStore } from './deliveries.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-deliveries-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqliteDeliveryStore(db),
  teardown: async () => db.close(),
})

describeWebhookDeliveryStoreContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describeWebhookDeliveryStoreContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteDeliveryStore', () => {
  it('keeps deliveries, attempts and the retry schedule across closing and reopening the file', async () => {
    const file = freshFile()
    const delivery: WebhookDelivery = {
      deliveryId: 'evt_1',
      paymentId: 'pay_1',
      merchantId: 'mer_1',
      eventType: 'payment.confirmed',
      sequence: 0,
      payload: { paymentId: 'pay_1', status: 'confirmed' },
      targetUrl: 'https://shop.example/hooks',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: '2030-01-01T00:00:00.000Z',
      createdAt: '2030-01-01T00:00:00.000Z',
      deliveredAt: null,
      lastError: null,
    }
    const attempt = {
      deliveryId: 'evt_1',
      attempt: 1,
      at: '2030-01-01T00:00:01.000Z',
      statusCode: 503,
      durationMs: 12.5,
      error: 'HTTP 503',
    }
    const first = openSqliteDatabase(file)
    const before = createSqliteDeliveryStore(first)
    await before.enqueue(delivery)
    await before.claimDue('2030-01-01T00:00:00.500Z', 10, 60_000)
    await before.recordAttempt(attempt, { status: 'pending', nextAttemptAt: '2030-01-01T00:00:31.000Z' })
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteDeliveryStore(reopened)
      expect(await store.get('evt_1')).toEqual({
        ...delivery,
        attempts: 1,
        nextAttemptAt: '2030-01-01T00:00:31.000Z',
        lastError: 'HTTP 503',
      })
      expect(await store.listAttempts('evt_1')).toEqual([attempt])
      const claimed = await store.claimDue('2030-01-01T00:00:31.000Z', 10, 60_000)
      expect(claimed.map((item) => item.deliveryId)).toEqual(['evt_1'])
    } finally {
      reopened.close()
    }
  })
})
