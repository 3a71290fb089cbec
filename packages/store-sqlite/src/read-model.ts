import { hasReceivedFunds, type Metadata, type OpenPayment, paymentWalletId } from '@chainpay/domain'
import {
  type FundedPaymentQuery,
  type PaymentDocument,
  type PaymentListQuery,
  type PaymentReadModel,
  type PaymentSearch,
  paymentMetadataValues,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { preparedStatements } from './prepared-statements.js'
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
      // GET /payments (docs/api.md): the listed fields in columns of their own, one index for the
      // keyset order; and the fee policy PaymentCreated records since its schema version 2, set on
      // the older documents as its upcaster sets it on their events (packages/contracts).
      description:
        'payment lists: created_at, status, network, currency and their index; recorded fee policy',
      apply: (db) =>
        db.exec(`
          ALTER TABLE ${table} ADD COLUMN created_at TEXT NOT NULL DEFAULT '';
          ALTER TABLE ${table} ADD COLUMN status TEXT NOT NULL DEFAULT '';
          ALTER TABLE ${table} ADD COLUMN network TEXT NOT NULL DEFAULT '';
          ALTER TABLE ${table} ADD COLUMN currency TEXT NOT NULL DEFAULT '';
          UPDATE ${table} SET state = json_set(state,
            '$.created.feeBps', 0,
            '$.created.fixedFeeUnits', json_extract(state, '$.created.feeUnits'))
          WHERE json_type(state, '$.created.feeBps') IS NULL;
          UPDATE ${table} SET
            created_at = json_extract(state, '$.created.createdAt'),
            status = json_extract(state, '$.status'),
            network = json_extract(state, '$.created.network'),
            currency = json_extract(state, '$.created.currency');
          CREATE INDEX ${table}_listed ON ${table} (merchant_id, created_at, payment_id);
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
    {
      // docs/api.md, "Balances and sweeps": every payment state has its sweeps, empty before this
      // version; the wallet its address derives from and whether it received funds in columns, with
      // an index of the funded payments alone
      description:
        'balances: sweeps in payment states, wallet_id and funded columns, index of funded payments',
      apply: (db) => {
        db.exec(`
          ALTER TABLE ${table} ADD COLUMN wallet_id TEXT NOT NULL DEFAULT 'operator';
          ALTER TABLE ${table} ADD COLUMN funded INTEGER NOT NULL DEFAULT 0;
          UPDATE ${table} SET state = json_set(state, '$.sweeps', json('[]'))
          WHERE json_type(state, '$.sweeps') IS NULL;
          CREATE INDEX ${table}_funded ON ${table} (merchant_id, payment_id) WHERE funded = 1;
        `)
        // which payments received funds is the domain's rule (paymentBalances), not SQL's
        const update = db.prepare(`UPDATE ${table} SET wallet_id = ?, funded = ? WHERE payment_id = ?`)
        for (const row of db.prepare(`SELECT payment_id, state FROM ${table}`).iterate()) {
          const { walletId, funded } = balanceColumns(JSON.parse(row.state as string) as OpenPayment)
          update.run(walletId, funded, row.payment_id as string)
        }
      },
    },
    {
      // docs/dashboard.md, "Finding a payment": the address and the latest tx hash, per merchant
      description: "support's search: indexes of the receiving address and the latest tx hash",
      apply: (db) =>
        db.exec(`
          CREATE INDEX IF NOT EXISTS ${table}_by_address ON ${table} (merchant_id, ${ADDRESS_EXPRESSION});
          CREATE INDEX IF NOT EXISTS ${table}_by_tx_hash ON ${table} (merchant_id, ${TX_HASH_EXPRESSION});
        `),
    },
    {
      // docs/dashboard.md, "Finding a payment": each payment's metadata values, per merchant, in a
      // table of their own written with the row; filled here for the payments already kept
      description: "support's search: a side table of the payments' metadata values, by merchant",
      apply: (db) => {
        db.exec(`
          CREATE TABLE IF NOT EXISTS ${table}_metadata (
            merchant_id TEXT NOT NULL,
            value TEXT NOT NULL,
            payment_id TEXT NOT NULL,
            PRIMARY KEY (merchant_id, value, payment_id)
          ) STRICT, WITHOUT ROWID;
        `)
        // which values are kept is the port's rule (paymentMetadataValues), not SQL's
        const insert = metadataInsert(db, table)
        for (const row of db.prepare(`SELECT payment_id, merchant_id, state FROM ${table}`).iterate()) {
          const state = JSON.parse(row.state as string) as OpenPayment
          insert(row.merchant_id as string, row.payment_id as string, state.created.metadata)
        }
      },
    },
  ]
}

/** writes a payment's metadata values into the side table; once written, writing again changes nothing */
function metadataInsert(
  db: DatabaseSync,
  table: string,
): (merchantId: string, paymentId: string, metadata: Metadata | undefined) => void {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO ${table}_metadata (merchant_id, value, payment_id) VALUES (?, ?, ?)`,
  )
  return (merchantId, paymentId, metadata) => {
    for (const value of paymentMetadataValues(metadata)) insert.run(merchantId, value, paymentId)
  }
}

// written as the indexes are, so that SQLite uses them
const ADDRESS_EXPRESSION = "json_extract(state, '$.created.address')"
const TX_HASH_EXPRESSION = "json_extract(state, '$.txHash')"

/**
 * Support's search over a read model table (PaymentSearch): the receiving address, the tx hash of
 * the latest counted transfer, or a metadata value (side table `<table>_metadata`), each through an
 * index that begins with the merchant.
 */
export function createSqlitePaymentSearch(
  db: DatabaseSync,
  options: SqliteReadModelOptions = {},
): PaymentSearch {
  const table = options.table ?? 'payments_read'
  if (!/^[a-z_]+$/.test(table)) throw new Error(`read model table name must match [a-z_]+: ${table}`)
  migrateSqliteComponent(db, `read-model:${table}`, readModelMigrations(table))
  const matching = `
    SELECT payment_id FROM ${table} WHERE merchant_id = :merchantId AND ${ADDRESS_EXPRESSION} = :reference
    UNION
    SELECT payment_id FROM ${table} WHERE merchant_id = :merchantId AND ${TX_HASH_EXPRESSION} = :reference
    UNION
    SELECT payment_id FROM ${table}_metadata WHERE merchant_id = :merchantId AND value = :reference`
  const find = (position: string) =>
    db.prepare(`
      SELECT payment_id, merchant_id, revision, state, updated_at FROM ${table}
      WHERE payment_id IN (${matching}) ${position}
      ORDER BY created_at DESC, payment_id DESC
      LIMIT :limit
    `)
  const first = find('')
  const following = find('AND (created_at, payment_id) < (:createdAt, :paymentId)')
  return translateFailures(
    {
      async findByReference(merchantId, reference, limit, after) {
        const rows =
          after === undefined
            ? first.all({ merchantId, reference, limit })
            : following.all({
                merchantId,
                reference,
                limit,
                createdAt: after.createdAt,
                paymentId: after.paymentId,
              })
        return rows.map(toDocument)
      },
    },
    translateSqliteFailure,
  )
}

/** the columns of the funded payments' index, from the state */
function balanceColumns(state: OpenPayment): { walletId: string; funded: number } {
  return { walletId: paymentWalletId(state.created), funded: hasReceivedFunds(state) ? 1 : 0 }
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
    INSERT INTO ${table} (payment_id, merchant_id, revision, state, updated_at, created_at, status, network, currency, wallet_id, funded)
    VALUES (:paymentId, :merchantId, :revision, :state, :updatedAt, :createdAt, :status, :network, :currency, :walletId, :funded)
    ON CONFLICT (payment_id) DO UPDATE SET
      merchant_id = excluded.merchant_id,
      revision = excluded.revision,
      state = excluded.state,
      updated_at = excluded.updated_at,
      status = excluded.status,
      funded = excluded.funded
    WHERE excluded.revision > ${table}.revision
  `)
  const insertMetadata = metadataInsert(db, table)
  const listing = sqlitePaymentListing(table)
  // one statement per combination of filters, prepared once
  const statement = preparedStatements(db)

  return translateFailures(
    {
      async get(paymentId) {
        const row = select.get(paymentId)
        return row === undefined ? null : toDocument(row)
      },

      async list(query) {
        const { sql, parameters } = listing(query)
        return statement(sql)
          .all(...parameters)
          .map(toDocument)
      },

      async listFunded(query) {
        const { sql, parameters } = fundedListing(table, query)
        return statement(sql)
          .all(...parameters)
          .map(toDocument)
      },

      async save(document) {
        const columns = {
          paymentId: document.paymentId,
          merchantId: document.merchantId,
          revision: document.revision,
          state: JSON.stringify(document.state),
          updatedAt: document.updatedAt,
          createdAt: document.state.created.createdAt,
          status: document.state.status,
          network: document.state.created.network,
          currency: document.state.created.currency,
          ...balanceColumns(document.state),
        }
        // with the other writes of this turn in one commit (group-commit.ts); the metadata values
        // with the row they belong to, in its savepoint
        const changes = await groupCommitOf(db).run(() => {
          const applied = Number(upsert.run(columns).changes)
          if (applied === 1)
            insertMetadata(document.merchantId, document.paymentId, document.state.created.metadata)
          return applied
        })
        return changes === 1 ? 'applied' : 'stale'
      },
    },
    translateSqliteFailure,
  )
}

function toDocument(row: Record<string, unknown>): PaymentDocument {
  return {
    paymentId: row.payment_id as string,
    merchantId: row.merchant_id as string,
    revision: Number(row.revision),
    state: JSON.parse(row.state as string) as PaymentDocument['state'],
    updatedAt: row.updated_at as string,
  }
}

/**
 * The statement of one page: a range of the (merchant_id, created_at, payment_id) index walked
 * backwards from the position, so SQLite reads the page's rows and no others when nothing is
 * filtered out (read-model.int.test.ts checks the plan). Filters on status, network and currency
 * are checked on the rows the walk meets.
 */
export function sqlitePaymentListing(
  table: string,
): (query: PaymentListQuery) => { sql: string; parameters: Array<string | number> } {
  return (query) => {
    const conditions = ['merchant_id = ?']
    const parameters: Array<string | number> = [query.merchantId]
    if (query.after !== undefined) {
      conditions.push('(created_at, payment_id) < (?, ?)')
      parameters.push(query.after.createdAt, query.after.paymentId)
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
    if (query.network !== undefined) {
      conditions.push('network = ?')
      parameters.push(query.network)
    }
    if (query.currency !== undefined) {
      conditions.push('currency = ?')
      parameters.push(query.currency)
    }
    parameters.push(query.limit)
    const sql = `
      SELECT payment_id, merchant_id, revision, state, updated_at FROM ${table} INDEXED BY ${table}_listed
      WHERE ${conditions.join(' AND ')}
      ORDER BY created_at DESC, payment_id DESC
      LIMIT ?`
    return { sql, parameters }
  }
}

/**
 * The statement of one page of funded payments: the partial index of funded payments, walked in
 * payment_id order from the position (docs/api.md, "Balances and sweeps").
 */
function fundedListing(
  table: string,
  query: FundedPaymentQuery,
): { sql: string; parameters: Array<string | number> } {
  const conditions = ['funded = 1']
  const parameters: Array<string | number> = []
  const filters = [
    ['merchant_id', query.merchantId],
    ['payment_id >', query.afterPaymentId],
    ['network', query.network],
    ['wallet_id', query.walletId],
  ] as const
  for (const [column, value] of filters) {
    if (value === undefined) continue
    conditions.push(column.includes(' ') ? `${column} ?` : `${column} = ?`)
    parameters.push(value)
  }
  parameters.push(query.limit)
  const sql = `
    SELECT payment_id, merchant_id, revision, state, updated_at FROM ${table}
    WHERE ${conditions.join(' AND ')}
    ORDER BY payment_id
    LIMIT ?`
  return { sql, parameters }
}
