import { type PaymentDocument, type PaymentReadModel, translateFailures } from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the schema versions of one read model table (schema-versions.ts) */
export function readModelMigrations(table: string): readonly SqliteMigration[] {
  return [
    {
      description: 'the schema of the release before versioned storage (b991541)',
      apply: (db) =>
        db.exec(`
          CREATE TABLE IF NOT EXISTS ${table} (
            payment_id TEXT PRIMARY KEY,
            merchant_id TEXT NOT NULL,
            revision INTEGER NOT NULL,
            state TEXT NOT NULL,
            updated_at TEXT NOT NULL
          ) STRICT;
          CREATE INDEX IF NOT EXISTS ${table}_by_merchant ON ${table} (merchant_id, updated_at);
        `),
    },
    {
      // docs/api.md, "Foreign funds": every payment state has the list, empty before this version
      description: 'payment states record foreign funds',
      apply: (db) =>
        db.exec(`
          UPDATE ${table} SET state = json_set(state, '$.foreignFunds', json('[]'))
          WHERE json_type(state, '$.foreignFunds') IS NULL
        `),
    },
  ]
}

export interface SqliteReadModelOptions {
  /** table name; the notifier keeps its own copy of payment state in another table */
  table?: string
}

/**
 * A payment read model in one table (default payments_read): one row per payment holding the
 * aggregate state as JSON, replaced only by a newer stream revision.
 */
export function createSqlitePaymentReadModel(
  db: DatabaseSync,
  options: SqliteReadModelOptions = {},
): PaymentReadModel {
  const table = options.table ?? 'payments_read'
  if (!/^[a-z_]+$/.test(table)) throw new Error(`read model table name must match [a-z_]+: ${table}`)
  // each table is a component of its own: the gateway's and the notifier's copies migrate apart
  migrateSqliteComponent(db, `read-model:${table}`, readModelMigrations(table))
  const select = db.prepare(
    `SELECT payment_id, merchant_id, revision, state, updated_at FROM ${table} WHERE payment_id = ?`,
  )
  // One statement decides and writes, so there is no read-then-write window between two writers.
  const upsert = db.prepare(`
    INSERT INTO ${table} (payment_id, merchant_id, revision, state, updated_at)
    VALUES (:paymentId, :merchantId, :revision, :state, :updatedAt)
    ON CONFLICT (payment_id) DO UPDATE SET
      merchant_id = excluded.merchant_id,
      revision = excluded.revision,
      state = excluded.state,
      updated_at = excluded.updated_at
    WHERE excluded.revision > ${table}.revision
  `)

  return translateFailures(
    {
      async get(paymentId) {
        const row = select.get(paymentId)
        if (row === undefined) return null
        return {
          paymentId: row.payment_id as string,
          merchantId: row.merchant_id as string,
          revision: Number(row.revision),
          state: JSON.parse(row.state as string) as PaymentDocument['state'],
          updatedAt: row.updated_at as string,
        }
      },

      async save(document) {
        const { changes } = upsert.run({
          paymentId: document.paymentId,
          merchantId: document.merchantId,
          revision: document.revision,
          state: JSON.stringify(document.state),
          updatedAt: document.updatedAt,
        })
        return Number(changes) === 1 ? 'applied' : 'stale'
      },
    },
    translateSqliteFailure,
  )
}
