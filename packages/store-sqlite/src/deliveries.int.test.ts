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
    await before.claimDue('2030-01-01T00:00:00.500Z', { limit: 10, leaseMs: 60_000, perTargetHost: 10 })
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
      const claimed = await store.claimDue('2030-01-01T00:00:31.000Z', {
        limit: 10,
        leaseMs: 60_000,
        perTargetHost: 10,
      })
      expect(claimed.map((item) => item.deliveryId)).toEqual(['evt_1'])
    } finally {
      reopened.close()
    }
  })

  it('gives the deliveries of a file made before the bound per target host their hosts, and bounds them', async () => {
    const file = freshFile()
    const old = openSqliteDatabase(file)
    old.exec(`
      CREATE TABLE webhook_deliveries (
        delivery_id TEXT PRIMARY KEY, payment_id TEXT NOT NULL, merchant_id TEXT NOT NULL,
        event_type TEXT NOT NULL, sequence INTEGER NOT NULL, payload TEXT NOT NULL, target_url TEXT,
        status TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at TEXT, created_at TEXT NOT NULL,
        delivered_at TEXT, last_error TEXT, leased_until TEXT
      ) STRICT;
    `)
    const insert = old.prepare(`
      INSERT INTO webhook_deliveries VALUES (?, ?, 'mer_1', 'payment.confirmed', 0, '{}', ?, 'pending', 0,
        '2030-01-01T00:00:00.000Z', ?, NULL, NULL, NULL)
    `)
    insert.run('evt_a0', 'pay_a0', 'https://a.example/hooks', '2030-01-01T00:00:00.000Z')
    insert.run('evt_a1', 'pay_a1', 'https://a.example:8443/hooks', '2030-01-01T00:00:01.000Z')
    insert.run('evt_b0', 'pay_b0', 'https://b.example/hooks', '2030-01-01T00:00:02.000Z')
    insert.run('evt_m0', 'pay_m0', null, '2030-01-01T00:00:03.000Z')
    old.close()

    const upgraded = openSqliteDatabase(file)
    try {
      const store = createSqliteDeliveryStore(upgraded)
      const hosts = upgraded
        .prepare('SELECT delivery_id, target_host FROM webhook_deliveries ORDER BY delivery_id')
        .all()
        .map((row) => [row.delivery_id, row.target_host])
      expect(hosts).toEqual([
        ['evt_a0', 'a.example'],
        ['evt_a1', 'a.example'],
        ['evt_b0', 'b.example'],
        ['evt_m0', 'merchant mer_1'],
      ])
      const claimed = await store.claimDue('2030-01-01T00:01:00.000Z', {
        limit: 10,
        leaseMs: 60_000,
        perTargetHost: 1,
      })
      expect(claimed.map((item) => item.deliveryId)).toEqual(['evt_a0', 'evt_b0', 'evt_m0'])
      // opening it again changes nothing
      createSqliteDeliveryStore(upgraded)
    } finally {
      upgraded.close()
    }
  })

  it('gives the finished deliveries of a file made before retention their finish, and prunes them by it', async () => {
    const file = freshFile()
    const old = openSqliteDatabase(file)
    old.exec(`
      CREATE TABLE webhook_deliveries (
        delivery_id TEXT PRIMARY KEY, payment_id TEXT NOT NULL, merchant_id TEXT NOT NULL,
        event_type TEXT NOT NULL, sequence INTEGER NOT NULL, payload TEXT NOT NULL, target_url TEXT,
        status TEXT NOT NULL, attempts INTEGER NOT NULL, next_attempt_at TEXT, created_at TEXT NOT NULL,
        delivered_at TEXT, last_error TEXT, leased_until TEXT, target_host TEXT
      ) STRICT;
      CREATE TABLE webhook_attempts (
        id INTEGER PRIMARY KEY AUTOINCREMENT, delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL,
        at TEXT NOT NULL, status_code INTEGER, duration_ms REAL NOT NULL, error TEXT
      ) STRICT;
    `)
    const insert = old.prepare(`
      INSERT INTO webhook_deliveries VALUES (?, ?, 'mer_1', 'payment.confirmed', 0, '{}', NULL, ?, 1,
        NULL, ?, ?, NULL, NULL, 'merchant mer_1')
    `)
    // created at minute 0: delivered at 1; failed, last attempt at 10; pending
    insert.run('evt_delivered', 'pay_1', 'delivered', at(0), at(1))
    insert.run('evt_failed', 'pay_2', 'failed', at(0), null)
    insert.run('evt_pending', 'pay_3', 'pending', at(0), null)
    old
      .prepare(
        "INSERT INTO webhook_attempts (delivery_id, attempt, at, duration_ms) VALUES ('evt_failed', 1, ?, 5)",
      )
      .run(at(10))
    old.close()

    const upgraded = openSqliteDatabase(file)
    try {
      const store = createSqliteDeliveryStore(upgraded)
      expect(await store.pruneFinished(at(5), 10)).toBe(1)
      expect(await store.get('evt_delivered')).toBeNull()
      expect(await store.get('evt_failed')).not.toBeNull()
      expect(await store.pruneFinished(at(11), 10)).toBe(1)
      expect(await store.listAttempts('evt_failed')).toEqual([])
      expect(await store.pruneFinished(at(1_000), 10)).toBe(0)
      expect((await store.get('evt_pending'))?.status).toBe('pending')
      createSqliteDeliveryStore(upgraded)
    } finally {
      upgraded.close()
    }
  })

  it('finds the deliveries to prune through an index, not by reading the log', async () => {
    const db = openSqliteDatabase(':memory:')
    try {
      createSqliteDeliveryStore(db)
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT delivery_id FROM webhook_deliveries
          WHERE finished_at < ? AND finished_at IS NOT NULL AND status <> 'pending' ORDER BY finished_at LIMIT 10`)
        .all(at(0))
        .map((row) => String(row.detail))
      expect(plan.join('\n')).toContain('USING INDEX webhook_deliveries_finished')
    } finally {
      db.close()
    }
  })
})

/** an instant `minutes` after a fixed origin */
const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()
