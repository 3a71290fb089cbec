// Deposits on SQLite (docs/api.md, "Deposits"): one row per deposit in table deposits_read, the
// decider's state as JSON beside the columns the lists filter and order by; a save at a revision not
// newer than the stored one changes nothing, so a replay is harmless.

import type { OpenDeposit } from '@chainpay/domain'
import {
  type DepositListQuery,
  type DepositReadModel,
  type DepositRecord,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { preparedStatements } from './prepared-statements.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

const TABLE = 'deposits_read'

export const depositReadModelMigrations: readonly SqliteMigration[] = [
  {
    description: 'deposits at customers’ deposit addresses, listed by merchant newest first',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${TABLE} (
          deposit_id TEXT PRIMARY KEY,
          revision INTEGER NOT NULL,
          merchant_id TEXT NOT NULL,
          merchant_user_id TEXT NOT NULL,
          status TEXT NOT NULL,
          detected_at TEXT NOT NULL,
          state TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS ${TABLE}_listed ON ${TABLE} (merchant_id, detected_at, deposit_id);
        CREATE INDEX IF NOT EXISTS ${TABLE}_by_user ON ${TABLE} (merchant_id, merchant_user_id, detected_at, deposit_id);
      `),
  },
  {
    description: 'the network of each deposit, for the operator’s balances of confirmed deposits',
    apply: (db) =>
      db.exec(`
        ALTER TABLE ${TABLE} ADD COLUMN network TEXT NOT NULL DEFAULT '';
        UPDATE ${TABLE} SET network = json_extract(state, '$.detected.network');
        CREATE INDEX IF NOT EXISTS ${TABLE}_confirmed ON ${TABLE} (status, deposit_id);
      `),
  },
]

export function createSqliteDepositReadModel(db: DatabaseSync): DepositReadModel {
  migrateSqliteComponent(db, `read-model:${TABLE}`, depositReadModelMigrations)
  const select = db.prepare(`SELECT deposit_id, revision, state FROM ${TABLE} WHERE deposit_id = ?`)
  const upsert = db.prepare(`
    INSERT INTO ${TABLE} (deposit_id, revision, merchant_id, merchant_user_id, network, status, detected_at, state)
    VALUES (:depositId, :revision, :merchantId, :merchantUserId, :network, :status, :detectedAt, :state)
    ON CONFLICT (deposit_id) DO UPDATE SET revision = excluded.revision, status = excluded.status,
      state = excluded.state
    WHERE excluded.revision > ${TABLE}.revision
  `)
  const statement = preparedStatements(db)
  return translateFailures(
    {
      async save({ depositId, revision, state }) {
        await groupCommitOf(db).run(() =>
          upsert.run({
            depositId,
            revision,
            merchantId: state.detected.merchantId,
            merchantUserId: state.detected.merchantUserId,
            network: state.detected.network,
            status: state.status,
            detectedAt: state.detected.detectedAt,
            state: JSON.stringify(state),
          }),
        )
      },
      async get(depositId) {
        const row = select.get(depositId)
        return row === undefined ? null : toRecord(row)
      },
      async listConfirmed(query) {
        const conditions = ["status = 'confirmed'"]
        const parameters: Array<string | number> = []
        for (const [column, value] of [
          ['deposit_id >', query.afterDepositId],
          ['merchant_id =', query.merchantId],
          ['network =', query.network],
        ] as const) {
          if (value === undefined) continue
          conditions.push(`${column} ?`)
          parameters.push(value)
        }
        parameters.push(query.limit)
        return statement(`
          SELECT deposit_id, revision, state FROM ${TABLE} INDEXED BY ${TABLE}_confirmed
          WHERE ${conditions.join(' AND ')} ORDER BY deposit_id LIMIT ?`)
          .all(...parameters)
          .map(toRecord)
      },
      async list(query) {
        const { sql, parameters } = listing(query)
        return statement(sql)
          .all(...parameters)
          .map(toRecord)
      },
    },
    translateSqliteFailure,
  )
}

function listing(query: DepositListQuery): { sql: string; parameters: Array<string | number> } {
  const conditions = ['merchant_id = ?']
  const parameters: Array<string | number> = [query.merchantId]
  if (query.merchantUserId !== undefined) {
    conditions.push('merchant_user_id = ?')
    parameters.push(query.merchantUserId)
  }
  if (query.status !== undefined) {
    conditions.push('status = ?')
    parameters.push(query.status)
  }
  if (query.after !== undefined) {
    conditions.push('(detected_at, deposit_id) < (?, ?)')
    parameters.push(query.after.detectedAt, query.after.depositId)
  }
  parameters.push(query.limit)
  const index = query.merchantUserId === undefined ? `${TABLE}_listed` : `${TABLE}_by_user`
  const sql = `
    SELECT deposit_id, revision, state FROM ${TABLE} INDEXED BY ${index}
    WHERE ${conditions.join(' AND ')}
    ORDER BY detected_at DESC, deposit_id DESC
    LIMIT ?`
  return { sql, parameters }
}

function toRecord(row: Record<string, unknown>): DepositRecord {
  return {
    depositId: row.deposit_id as string,
    revision: Number(row.revision),
    state: JSON.parse(row.state as string) as OpenDeposit,
  }
}
