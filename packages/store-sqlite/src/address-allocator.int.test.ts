import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeAddressIndexAllocatorContract } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { createSqliteAddressAllocator } from './address-allocator.js'
import { type DatabaseSync, openSqliteDatabase } from './database.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-address-allocator-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqliteAddressAllocator(db),
  teardown: async () => db.close(),
})

describeAddressIndexAllocatorContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describeAddressIndexAllocatorContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteAddressAllocator', () => {
  it('starts at 0 and never reuses an index after closing and reopening the database file', async () => {
    const file = freshFile()
    const first = openSqliteDatabase(file)
    const before = createSqliteAddressAllocator(first)
    const handedOut = [await before.allocate('TRON'), await before.allocate('TRON')]
    first.close()
    expect(handedOut).toEqual([0, 1])

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteAddressAllocator(reopened)
      expect(await store.allocate('TRON')).toBe(2)
      expect(await store.allocate('SOLANA')).toBe(0)
    } finally {
      reopened.close()
    }
  })
})
