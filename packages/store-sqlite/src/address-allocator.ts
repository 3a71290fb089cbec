import { type AddressIndexAllocator, translateFailures } from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/**
 * Address derivation indexes from table address_counters: one counter per network, starting at 0.
 * An index is handed out by the same transaction that advances the counter, so a crash can skip an
 * index but never hand one out twice.
 */
export function createSqliteAddressAllocator(db: DatabaseSync): AddressIndexAllocator {
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

  return translateFailures(
    {
      async allocate(network) {
        return inTransaction(db, () => {
          const row = advance.get(network)
          if (row === undefined) throw new Error(`address counter of ${network} did not advance`)
          return Number(row.next_index) - 1
        })
      },
    },
    translateSqliteFailure,
  )
}
