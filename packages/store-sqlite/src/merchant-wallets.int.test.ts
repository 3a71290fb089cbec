import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeMerchantWalletStoreContract } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type DatabaseSync, openSqliteDatabase } from './database.js'
import { createSqliteMerchantWalletStore } from './merchant-wallets.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-merchant-wallets-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqliteMerchantWalletStore(db),
  teardown: async () => db.close(),
})

describeMerchantWalletStoreContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describeMerchantWalletStoreContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteMerchantWalletStore', () => {
  it('keeps a wallet across closing and reopening the file, and writes only what it is given', async () => {
    const file = freshFile()
    const wallet = {
      merchantId: 'mer_1',
      walletId: 'w_0123456789abcdef0123',
      tronAccountXpub: 'xpub-1',
      tronAccountKeyFingerprint: 'tron-1',
      solanaAddress0: 'sol-1',
      sealedSolanaSeed: 'v2.0123456789abcdef.iv.ciphertext',
      setAt: '2030-01-01T00:00:00.000Z',
    }
    const first = openSqliteDatabase(file)
    await createSqliteMerchantWalletStore(first).setWallet(wallet)
    first.close()
    const second = openSqliteDatabase(file)
    expect(await createSqliteMerchantWalletStore(second).getWallet('mer_1')).toEqual(wallet)
    second.close()
    expect(readFileSync(file).includes('v2.0123456789abcdef.iv.ciphertext')).toBe(true)
  })
})
