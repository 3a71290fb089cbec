import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describePaymentDeadlineStoreContract } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqliteDeadlineStore } from './deadlines.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-deadlines-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqliteDeadlineStore(db),
  teardown: async () => db.close(),
})

describePaymentDeadlineStoreContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describePaymentDeadlineStoreContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteDeadlineStore', () => {
  const deadline = { paymentId: 'pay_1', network: 'TRON', expiresAt: '2030-01-01T00:30:00.000Z' }
  const dueBy = { expiredBy: '2030-01-01T01:00:00.000Z', now: '2030-01-01T01:00:00.000Z', limit: 10 }

  it('keeps deadlines, watch marks and retry state across closing and reopening the database file', async () => {
    const file = freshFile()
    const first = openSqliteDatabase(file)
    const store = createSqliteDeadlineStore(first)
    await store.upsert(deadline)
    await store.markWatched(deadline.paymentId, '2030-01-01T00:00:05.000Z')
    await store.retryLater(deadline.paymentId, '2030-01-01T00:59:00.000Z')
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteDeadlineStore(reopened)
      expect(await store.due(dueBy)).toEqual([{ ...deadline, attempts: 1 }])
    } finally {
      reopened.close()
    }
  })

  it('adds the retry columns to a table made before deadlines were retried, keeping its rows', async () => {
    const file = freshFile()
    const old = openSqliteDatabase(file)
    old.exec(`
      CREATE TABLE payment_deadlines (
        payment_id TEXT PRIMARY KEY, network TEXT NOT NULL, expires_at TEXT NOT NULL
      ) STRICT;
      INSERT INTO payment_deadlines VALUES ('pay_1', 'TRON', '2030-01-01T00:30:00.000Z');
    `)
    old.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteDeadlineStore(reopened)
      await store.markWatched(deadline.paymentId, '2030-01-01T00:00:05.000Z')
      expect(await store.due(dueBy)).toEqual([{ ...deadline, attempts: 0 }])
      await store.retryLater(deadline.paymentId, '2030-01-01T02:00:00.000Z')
      expect(await store.due(dueBy)).toEqual([])
    } finally {
      reopened.close()
    }
  })
})
