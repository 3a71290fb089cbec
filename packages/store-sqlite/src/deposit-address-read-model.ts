// Customers' deposit addresses on SQLite (docs/api.md, "Deposit addresses"): one row per address in
// table deposit_addresses_read, written once (an address never changes, so a replay or a
// write-through changes nothing), with one index for the keyset order of GET /deposit-addresses.

import {
  type DepositAddressListQuery,
  type DepositAddressReadModel,
  type DepositAddressView,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { preparedStatements } from './prepared-statements.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

const TABLE = 'deposit_addresses_read'

export const depositAddressReadModelMigrations: readonly SqliteMigration[] = [
  {
    description: "customers' deposit addresses, listed by merchant newest first",
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${TABLE} (
          address TEXT PRIMARY KEY,
          merchant_id TEXT NOT NULL,
          merchant_user_id TEXT NOT NULL,
          chain TEXT NOT NULL,
          derivation_path TEXT NOT NULL,
          wallet_id TEXT NOT NULL,
          created_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS ${TABLE}_listed ON ${TABLE} (merchant_id, created_at, address);
        CREATE INDEX IF NOT EXISTS ${TABLE}_by_user ON ${TABLE} (merchant_id, merchant_user_id, created_at, address);
      `),
  },
]

export function createSqliteDepositAddressReadModel(db: DatabaseSync): DepositAddressReadModel {
  migrateSqliteComponent(db, `read-model:${TABLE}`, depositAddressReadModelMigrations)
  const columns = 'address, merchant_id, merchant_user_id, chain, derivation_path, wallet_id, created_at'
  const select = db.prepare(`SELECT ${columns} FROM ${TABLE} WHERE address = ?`)
  const insert = db.prepare(`
    INSERT INTO ${TABLE} (${columns})
    VALUES (:address, :merchantId, :merchantUserId, :chain, :derivationPath, :walletId, :createdAt)
    ON CONFLICT (address) DO NOTHING
  `)
  const statement = preparedStatements(db)
  return translateFailures(
    {
      async save(view) {
        const { merchantId, merchantUserId, chain, address, derivationPath, walletId, createdAt } = view
        await groupCommitOf(db).run(() =>
          insert.run({ address, merchantId, merchantUserId, chain, derivationPath, walletId, createdAt }),
        )
      },
      async get(address) {
        const row = select.get(address)
        return row === undefined ? null : toView(row)
      },
      async list(query) {
        const { sql, parameters } = listing(query, columns)
        return statement(sql)
          .all(...parameters)
          .map(toView)
      },
    },
    translateSqliteFailure,
  )
}

function listing(
  query: DepositAddressListQuery,
  columns: string,
): { sql: string; parameters: string[] | Array<string | number> } {
  const conditions = ['merchant_id = ?']
  const parameters: Array<string | number> = [query.merchantId]
  if (query.merchantUserId !== undefined) {
    conditions.push('merchant_user_id = ?')
    parameters.push(query.merchantUserId)
  }
  if (query.after !== undefined) {
    conditions.push('(created_at, address) < (?, ?)')
    parameters.push(query.after.createdAt, query.after.address)
  }
  parameters.push(query.limit)
  const index = query.merchantUserId === undefined ? `${TABLE}_listed` : `${TABLE}_by_user`
  const sql = `
    SELECT ${columns} FROM ${TABLE} INDEXED BY ${index}
    WHERE ${conditions.join(' AND ')}
    ORDER BY created_at DESC, address DESC
    LIMIT ?`
  return { sql, parameters }
}

function toView(row: Record<string, unknown>): DepositAddressView {
  return {
    merchantId: row.merchant_id as string,
    merchantUserId: row.merchant_user_id as string,
    chain: row.chain as DepositAddressView['chain'],
    address: row.address as string,
    derivationPath: row.derivation_path as string,
    walletId: row.wallet_id as string,
    createdAt: row.created_at as string,
  }
}
