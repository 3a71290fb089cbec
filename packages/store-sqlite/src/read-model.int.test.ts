import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describePaymentReadModelContract, samplePaymentDocument } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqlitePaymentReadModel } from './read-model.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-read-model-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqlitePaymentReadModel(db),
  loseDatabase: async () => db.close(),
  teardown: async () => {
    if (db.isOpen) db.close()
  },
})

describePaymentReadModelContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describePaymentReadModelContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqlitePaymentReadModel', () => {
  it('keeps documents across closing and reopening the database file', async () => {
    const file = freshFile()
    const document = samplePaymentDocument('pay_1', 4)
    const first = openSqliteDatabase(file)
    await createSqlitePaymentReadModel(first).save(document)
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqlitePaymentReadModel(reopened)
      expect(await store.get('pay_1')).toEqual(document)
      expect(await store.save(samplePaymentDocument('pay_1', 4))).toBe('stale')
    } finally {
      reopened.close()
    }
  })

  it('gives the states written before foreign funds an empty list of them (migration 2)', async () => {
    const db = openSqliteDatabase(freshFile())
    try {
      const document = samplePaymentDocument('pay_1', 4)
      await createSqlitePaymentReadModel(db).save(document)
      // as the build before foreign funds left it
      db.exec(`UPDATE payments_read SET state = json_remove(state, '$.foreignFunds')`)
      db.exec(`UPDATE schema_versions SET version = 1 WHERE component = 'read-model:payments_read'`)
      expect(
        JSON.parse(String(db.prepare('SELECT state FROM payments_read').get()?.state)),
      ).not.toHaveProperty('foreignFunds')

      expect(await createSqlitePaymentReadModel(db).get('pay_1')).toEqual(document)
    } finally {
      db.close()
    }
  })
})
