import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeInvoiceReadModelContract } from '@chainpay/ports/testing'
import { afterEach } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqliteInvoiceReadModel } from './invoice-read-model.js'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-invoice-read-model-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
const opened = (db: DatabaseSync, table?: string) => ({
  store: createSqliteInvoiceReadModel(db, table ? { table } : {}),
  loseDatabase: async () => db.close(),
  teardown: async () => {
    if (db.isOpen) db.close()
  },
})

describeInvoiceReadModelContract('sqlite invoices_read', async () => opened(openSqliteDatabase(freshFile())))
describeInvoiceReadModelContract('sqlite notifier_invoices', async () =>
  opened(openSqliteDatabase(':memory:'), 'notifier_invoices'),
)
