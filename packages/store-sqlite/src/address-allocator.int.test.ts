import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeAddressIndexAllocatorContract, SOLANA_FAMILY, TRON_FAMILY } from '@chainpay/ports/testing'
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

/**
 * What the allocator of before left in the file: table address_counters, its schema as it created it,
 * one row per network holding the next index (the advance was an upsert of next_index + 1)
 */
function handOutPerNetwork(db: DatabaseSync, network: string, count: number): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS address_counters (
      network TEXT PRIMARY KEY,
      next_index INTEGER NOT NULL
    ) STRICT;
  `)
  const advance = db.prepare(`
    INSERT INTO address_counters (network, next_index) VALUES (?, 1)
    ON CONFLICT (network) DO UPDATE SET next_index = next_index + 1
    RETURNING next_index
  `)
  for (let call = 0; call < count; call += 1) advance.get(network)
}

const opened = (db: DatabaseSync) => ({
  store: createSqliteAddressAllocator(db),
  handOutPerNetwork: async (network: string, count: number) => handOutPerNetwork(db, network, count),
  teardown: async () => db.close(),
})

describeAddressIndexAllocatorContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describeAddressIndexAllocatorContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteAddressAllocator', () => {
  it('starts at 0 and never reuses an index after closing and reopening the database file', async () => {
    const file = freshFile()
    const first = openSqliteDatabase(file)
    const before = createSqliteAddressAllocator(first)
    const handedOut = [await before.allocate(TRON_FAMILY), await before.allocate(TRON_FAMILY)]
    first.close()
    expect(handedOut).toEqual([0, 1])

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteAddressAllocator(reopened)
      expect(await store.allocate(TRON_FAMILY)).toBe(2)
      expect(await store.allocate(SOLANA_FAMILY)).toBe(0)
    } finally {
      reopened.close()
    }
  })

  it('goes on, in a file the per-network allocator wrote, right above the highest old counter of the family', async () => {
    const file = freshFile()
    const old = openSqliteDatabase(file)
    handOutPerNetwork(old, 'TRON', 4)
    handOutPerNetwork(old, 'TRON_NILE', 9)
    handOutPerNetwork(old, 'SOLANA', 3)
    old.close()

    const upgraded = openSqliteDatabase(file)
    try {
      const store = createSqliteAddressAllocator(upgraded)
      expect([await store.allocate(TRON_FAMILY), await store.allocate(TRON_FAMILY)]).toEqual([9, 10])
      expect(await store.allocate(SOLANA_FAMILY)).toBe(3)
      // the old counters are left as they were: nothing writes them any more
      expect(
        upgraded.prepare('SELECT network, next_index FROM address_counters ORDER BY network').all(),
      ).toEqual([
        { network: 'SOLANA', next_index: 3 },
        { network: 'TRON', next_index: 4 },
        { network: 'TRON_NILE', next_index: 9 },
      ])
    } finally {
      upgraded.close()
    }
  })
})
