import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeMerchantStoreContract } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqliteMerchantStore } from './merchants.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-merchants-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqliteMerchantStore(db),
  teardown: async () => db.close(),
})

describeMerchantStoreContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describeMerchantStoreContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteMerchantStore', () => {
  it('keeps merchants and keys across closing and reopening the database file', async () => {
    const file = freshFile()
    const merchant = {
      merchantId: 'mer_1',
      name: 'Shop',
      webhookUrl: null,
      webhookSecret: 'sealed:webhook',
      feePolicy: { feeBps: 150, fixedFees: { 'TRON:USDT': '1' } },
      createdAt: '2030-01-01T00:00:00.000Z',
      updatedAt: '2030-01-01T00:00:00.000Z',
    }
    const key = {
      apiKey: 'key_1',
      merchantId: 'mer_1',
      secret: 'sealed:secret',
      createdAt: '2030-01-01T00:00:00.000Z',
      revokedAt: null,
    }
    const first = openSqliteDatabase(file)
    const before = createSqliteMerchantStore(first)
    await before.createMerchant(merchant, key)
    await before.revokeApiKey('mer_1', 'key_1', '2030-01-02T00:00:00.000Z')
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteMerchantStore(reopened)
      expect(await store.getMerchant('mer_1')).toEqual(merchant)
      expect(await store.findApiKey('key_1')).toEqual({ ...key, revokedAt: '2030-01-02T00:00:00.000Z' })
    } finally {
      reopened.close()
    }
  })
})
