// The invoices' read model on SQLite (docs/api.md, "Invoices"): one row per invoice in table
// invoices_read holding its fold as JSON, replaced only by a newer stream revision, with the listed
// fields in columns and one index for the keyset order of GET /invoices.

import {
  type InvoiceDocument,
  type InvoiceListQuery,
  type InvoiceReadModel,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { preparedStatements } from './prepared-statements.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the schema versions of one invoice read model table: invoices_read, or the notifier's copy */
export function invoiceReadModelMigrations(table: string): readonly SqliteMigration[] {
  return [
    {
      description: 'invoices: one row per invoice, listed by merchant newest first',
      apply: (db) =>
        db.exec(`
        CREATE TABLE IF NOT EXISTS ${table} (
          invoice_id TEXT PRIMARY KEY,
          merchant_id TEXT NOT NULL,
          revision INTEGER NOT NULL,
          state TEXT NOT NULL,
          created_at TEXT NOT NULL,
          status TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS ${table}_listed ON ${table} (merchant_id, created_at, invoice_id);
      `),
    },
  ]
}

export function createSqliteInvoiceReadModel(
  db: DatabaseSync,
  options: { table?: string } = {},
): InvoiceReadModel {
  const table = options.table ?? 'invoices_read'
  if (!/^[a-z_]+$/.test(table)) throw new Error(`invoice read model table name must match [a-z_]+: ${table}`)
  migrateSqliteComponent(db, `read-model:${table}`, invoiceReadModelMigrations(table))
  const select = db.prepare(
    `SELECT invoice_id, merchant_id, revision, state FROM ${table} WHERE invoice_id = ?`,
  )
  // one statement decides and writes: no read-then-write window between two writers
  const upsert = db.prepare(`
    INSERT INTO ${table} (invoice_id, merchant_id, revision, state, created_at, status)
    VALUES (:invoiceId, :merchantId, :revision, :state, :createdAt, :status)
    ON CONFLICT (invoice_id) DO UPDATE SET
      revision = excluded.revision, state = excluded.state, status = excluded.status
    WHERE excluded.revision > ${table}.revision
  `)
  const statement = preparedStatements(db)
  return translateFailures(
    {
      async get(invoiceId) {
        const row = select.get(invoiceId)
        return row === undefined ? null : toDocument(row)
      },
      async save(document) {
        const columns = {
          invoiceId: document.invoiceId,
          merchantId: document.merchantId,
          revision: document.revision,
          state: JSON.stringify(document.state),
          createdAt: document.state.created.createdAt,
          status: document.state.status,
        }
        const { changes } = await groupCommitOf(db).run(() => upsert.run(columns))
        return Number(changes) === 1 ? 'applied' : 'stale'
      },
      async list(query) {
        const { sql, parameters } = invoiceListing(table, query)
        return statement(sql)
          .all(...parameters)
          .map(toDocument)
      },
    },
    translateSqliteFailure,
  )
}

function invoiceListing(
  table: string,
  query: InvoiceListQuery,
): { sql: string; parameters: Array<string | number> } {
  const conditions = ['merchant_id = ?']
  const parameters: Array<string | number> = [query.merchantId]
  if (query.after !== undefined) {
    conditions.push('(created_at, invoice_id) < (?, ?)')
    parameters.push(query.after.createdAt, query.after.invoiceId)
  }
  if (query.createdFrom !== undefined) {
    conditions.push('created_at >= ?')
    parameters.push(query.createdFrom)
  }
  if (query.createdTo !== undefined) {
    conditions.push('created_at < ?')
    parameters.push(query.createdTo)
  }
  if (query.statuses !== undefined && query.statuses.length > 0) {
    conditions.push(`status IN (${query.statuses.map(() => '?').join(', ')})`)
    parameters.push(...query.statuses)
  }
  parameters.push(query.limit)
  const sql = `
    SELECT invoice_id, merchant_id, revision, state FROM ${table} INDEXED BY ${table}_listed
    WHERE ${conditions.join(' AND ')}
    ORDER BY created_at DESC, invoice_id DESC
    LIMIT ?`
  return { sql, parameters }
}

function toDocument(row: Record<string, unknown>): InvoiceDocument {
  return {
    invoiceId: row.invoice_id as string,
    merchantId: row.merchant_id as string,
    revision: Number(row.revision),
    state: JSON.parse(row.state as string) as InvoiceDocument['state'],
  }
}
