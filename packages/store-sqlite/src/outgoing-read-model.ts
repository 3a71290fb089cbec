// Refunds and payouts on the read side on SQLite (docs/architecture.md, "The refunds and payouts read
// model"): one row per refund or payout in table outgoing_read holding its fold as JSON, replaced only
// by a newer stream revision, with the listed fields in columns and an index per list: a merchant's
// (by kind, by status, by payment) and a network's for the offline procedure (by status and wallet).

import {
  type MerchantOutgoingQuery,
  type NetworkOutgoingQuery,
  type OutgoingDocument,
  type OutgoingReadModel,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { preparedStatements } from './prepared-statements.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

const TABLE = 'outgoing_read'

export const outgoingReadModelMigrations: readonly SqliteMigration[] = [
  {
    description: 'refunds and payouts: one row per item, listed by merchant and by network',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${TABLE} (
          kind TEXT NOT NULL,
          id TEXT NOT NULL,
          merchant_id TEXT NOT NULL,
          payment_id TEXT,
          network TEXT NOT NULL,
          status TEXT NOT NULL,
          wallet_id TEXT NOT NULL,
          created_at TEXT NOT NULL,
          revision INTEGER NOT NULL,
          item TEXT NOT NULL,
          PRIMARY KEY (kind, id)
        ) STRICT;
        CREATE INDEX IF NOT EXISTS ${TABLE}_listed ON ${TABLE} (merchant_id, kind, created_at, id);
        CREATE INDEX IF NOT EXISTS ${TABLE}_by_status ON ${TABLE} (merchant_id, kind, status, created_at, id);
        CREATE INDEX IF NOT EXISTS ${TABLE}_by_payment ON ${TABLE} (payment_id, created_at, id);
        CREATE INDEX IF NOT EXISTS ${TABLE}_by_network ON ${TABLE} (network, status, wallet_id, created_at, id);
      `),
  },
]

export function createSqliteOutgoingReadModel(db: DatabaseSync): OutgoingReadModel {
  migrateSqliteComponent(db, `read-model:${TABLE}`, outgoingReadModelMigrations)
  const select = db.prepare(`SELECT revision, item FROM ${TABLE} WHERE kind = ? AND id = ?`)
  // one statement decides and writes: no read-then-write window between two writers
  const upsert = db.prepare(`
    INSERT INTO ${TABLE} (kind, id, merchant_id, payment_id, network, status, wallet_id, created_at, revision, item)
    VALUES (:kind, :id, :merchantId, :paymentId, :network, :status, :walletId, :createdAt, :revision, :item)
    ON CONFLICT (kind, id) DO UPDATE SET
      status = excluded.status, revision = excluded.revision, item = excluded.item
    WHERE excluded.revision > ${TABLE}.revision
  `)
  const statement = preparedStatements(db)
  const run = ({ sql, parameters }: { sql: string; parameters: Array<string | number> }) =>
    statement(sql)
      .all(...parameters)
      .map(toDocument)
  return translateFailures(
    {
      async get(kind, id) {
        const row = select.get(kind, id)
        return row === undefined ? null : toDocument(row)
      },
      async save({ item, revision }) {
        const columns = {
          kind: item.kind,
          id: item.id,
          merchantId: item.merchantId,
          paymentId: item.paymentId,
          network: item.network,
          status: item.status,
          walletId: item.walletId,
          createdAt: item.createdAt,
          revision,
          item: JSON.stringify(item),
        }
        const { changes } = await groupCommitOf(db).run(() => upsert.run(columns))
        return Number(changes) === 1 ? 'applied' : 'stale'
      },
      async listForMerchant(query) {
        return run(merchantListing(query))
      },
      async listForNetwork(query) {
        return run(networkListing(query))
      },
    },
    translateSqliteFailure,
  )
}

function merchantListing(query: MerchantOutgoingQuery) {
  const conditions = ['merchant_id = ?', 'kind = ?']
  const parameters: Array<string | number> = [query.merchantId, query.kind]
  // the index whose leading columns the query pins: a payment's refunds, a status, or the merchant's
  let index = `${TABLE}_listed`
  if (query.paymentId !== undefined) {
    conditions.push('payment_id = ?')
    parameters.push(query.paymentId)
    index = `${TABLE}_by_payment`
  }
  if (query.statuses !== undefined && query.statuses.length > 0) {
    conditions.push(`status IN (${query.statuses.map(() => '?').join(', ')})`)
    parameters.push(...query.statuses)
    if (query.paymentId === undefined) index = `${TABLE}_by_status`
  }
  if (query.after !== undefined) {
    conditions.push('(created_at, id) < (?, ?)')
    parameters.push(query.after.createdAt, query.after.id)
  }
  parameters.push(query.limit)
  const sql = `
    SELECT revision, item FROM ${TABLE} INDEXED BY ${index}
    WHERE ${conditions.join(' AND ')}
    ORDER BY created_at DESC, id DESC
    LIMIT ?`
  return { sql, parameters }
}

function networkListing(query: NetworkOutgoingQuery) {
  const conditions = ['network = ?', `status IN (${query.statuses.map(() => '?').join(', ')})`]
  const parameters: Array<string | number> = [query.network, ...query.statuses]
  if (query.walletId !== undefined) {
    conditions.push('wallet_id = ?')
    parameters.push(query.walletId)
  }
  if (query.after !== undefined) {
    conditions.push('(created_at, id) > (?, ?)')
    parameters.push(query.after.createdAt, query.after.id)
  }
  parameters.push(query.limit)
  const sql = `
    SELECT revision, item FROM ${TABLE} INDEXED BY ${TABLE}_by_network
    WHERE ${conditions.join(' AND ')}
    ORDER BY created_at ASC, id ASC
    LIMIT ?`
  return { sql, parameters }
}

function toDocument(row: Record<string, unknown>): OutgoingDocument {
  return { revision: Number(row.revision), item: JSON.parse(row.item as string) as OutgoingDocument['item'] }
}
