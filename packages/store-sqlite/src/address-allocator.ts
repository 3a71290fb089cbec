import {
  type AddressIndexAllocator,
  allocationKey,
  networksCountedBefore,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the address allocator's schema versions (schema-versions.ts) */
export const addressAllocatorMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS address_counters (
          network TEXT PRIMARY KEY,
          next_index INTEGER NOT NULL
        ) STRICT
      `),
  },
  {
    // the old per-network counters stay, read by every allocation (see below)
    description: 'address indexes counted per chain family',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS address_family_counters (
          family TEXT PRIMARY KEY,
          next_index INTEGER NOT NULL
        ) STRICT
      `),
  },
]

/**
 * Address derivation indexes from table address_family_counters: one counter per key and address
 * family (a chain and every network on it; column `family` holds allocationKey's name), starting at
 * 0. An index is handed out by the same transaction that advances the counter, so a crash can skip
 * an index but never hand one out twice.
 *
 * Table address_counters holds the counters of before, one per network (mainnet and its test network
 * counted apart, and so handed out the same addresses); nothing writes it any more. A family's counter
 * never goes below the highest of its networks' old counters: every allocation takes them in, in the
 * same transaction, so an index one of them handed out is never handed out again, even for a network
 * that joins the family's registry entry only later.
 */
export function createSqliteAddressAllocator(db: DatabaseSync): AddressIndexAllocator {
  migrateSqliteComponent(db, 'address-allocator', addressAllocatorMigrations)
  // ?1 the family (its chain), ?2 its networks as a JSON array; the inserted row starts above the
  // old counters, an existing one goes to whichever is higher: itself plus one, or above them
  const advance = db.prepare(`
    INSERT INTO address_family_counters (family, next_index)
    SELECT ?1, coalesce(max(next_index), 0) + 1
    FROM address_counters WHERE network IN (SELECT value FROM json_each(?2))
    ON CONFLICT (family) DO UPDATE SET next_index = max(next_index + 1, excluded.next_index)
    RETURNING next_index
  `)

  const counter = db.prepare('SELECT next_index FROM address_family_counters WHERE family = ?')
  const raise = db.prepare(`
    INSERT INTO address_family_counters (family, next_index) VALUES (?1, ?2)
    ON CONFLICT (family) DO UPDATE SET next_index = max(next_index, excluded.next_index)
  `)

  return translateFailures(
    {
      async raiseTo(family, next, keyId) {
        if (!Number.isSafeInteger(next) || next < 0) throw new Error(`not an address index: ${next}`)
        const key = allocationKey(family, keyId)
        return await groupCommitOf(db).run(() => {
          const before = Number(counter.get(key)?.next_index ?? 0)
          if (next > before) raise.run(key, next)
          return before
        })
      },
      async allocate(family, keyId) {
        const key = allocationKey(family, keyId)
        const networks = JSON.stringify(networksCountedBefore(family, keyId))
        // one statement, with the other writes of this turn in one commit (group-commit.ts)
        return await groupCommitOf(db).run(() => {
          const row = advance.get(key, networks)
          if (row === undefined) throw new Error(`address counter of ${key} did not advance`)
          return Number(row.next_index) - 1
        })
      },
    },
    translateSqliteFailure,
  )
}
