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
  it('keeps deadlines across closing and reopening the database file', async () => {
    const file = freshFile()
    const deadline = { paymentId: 'pay_1', network: 'TRON', expiresAt: '2030-01-01T00:30:00.000Z' }
    const first = openSqliteDatabase(file)
    await createSqliteDeadlineStore(first).upsert(deadline)
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteDeadlineStore(reopened)
      expect(await store.due('2030-01-01T01:00:00.000Z', 10)).toEqual([deadline])
    } finally {
      reopened.close()
    }
  })
})
