import { type AddressPoolStore, type PooledAddress, translateFailures } from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the address pool's schema versions (schema-versions.ts) */
export const addressPoolMigrations: readonly SqliteMigration[] = [
  {
    description: 'addresses derived ahead of need',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS address_pool (
          pool TEXT NOT NULL,
          address_index INTEGER NOT NULL,
          address TEXT NOT NULL,
          derivation_path TEXT NOT NULL,
          PRIMARY KEY (pool, address_index)
        ) STRICT
      `),
  },
]

/**
 * The address pool in table address_pool. A take deletes the row it returns in one statement, a
 * group commit (group-commit.ts) answered once durable: an address is handed out once, and one
 * taken by a create that then failed is lost with its index, never handed out again.
 */
export function createSqliteAddressPool(db: DatabaseSync): AddressPoolStore {
  migrateSqliteComponent(db, 'address-pool', addressPoolMigrations)
  const group = groupCommitOf(db)
  const insert = db.prepare(
    'INSERT INTO address_pool (pool, address_index, address, derivation_path) VALUES (?, ?, ?, ?)',
  )
  const takeLowest = db.prepare(`
    DELETE FROM address_pool WHERE (pool, address_index) = (
      SELECT pool, address_index FROM address_pool WHERE pool = ?1 ORDER BY address_index LIMIT 1)
    RETURNING address_index, address, derivation_path
  `)
  const count = db.prepare('SELECT COUNT(*) AS size FROM address_pool WHERE pool = ?')
  const removeBelow = db.prepare('DELETE FROM address_pool WHERE pool = ? AND address_index < ?')
  return translateFailures(
    {
      async add(pool, addresses) {
        await group.run(() => {
          for (const { index, address, derivationPath } of addresses)
            insert.run(pool, index, address, derivationPath)
        })
      },
      async take(pool) {
        const row = await group.run(() => takeLowest.get(pool))
        if (row === undefined) return null
        return {
          index: Number(row.address_index),
          address: String(row.address),
          derivationPath: String(row.derivation_path),
        } satisfies PooledAddress
      },
      async size(pool) {
        return Number(count.get(pool)?.size ?? 0)
      },
      async dropBelow(pool, index) {
        return await group.run(() => Number(removeBelow.run(pool, index).changes))
      },
    },
    translateSqliteFailure,
  )
}
