// Each merchant's received net per asset on SQLite (ports/received-net.ts; docs/capacity.md, "Refunds
// and payouts"): table received_net_payments holds what was counted of each payment and at which
// revision, table received_net the running totals; one count updates both in one savepoint of the
// group commit, so a total never holds a payment's net twice or half. Amounts are decimal strings,
// added as bigints: exact at any size.

import type { OpenPayment } from '@chainpay/domain'
import {
  type ReceivedNetCount,
  type ReceivedNetTotals,
  receivedNetCountOf,
  translateFailures,
} from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { createSqlitePaymentReadModel } from './read-model.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

const PAYMENTS_READ = 'payments_read'

export const receivedNetMigrations: readonly SqliteMigration[] = [
  {
    description:
      "received net per merchant and asset, counted from the payments' read model (docs/capacity.md)",
    apply: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS received_net (
          merchant_id TEXT NOT NULL,
          network TEXT NOT NULL,
          currency TEXT NOT NULL,
          decimals INTEGER NOT NULL,
          units TEXT NOT NULL,
          PRIMARY KEY (merchant_id, network, currency)
        ) STRICT;
        CREATE TABLE IF NOT EXISTS received_net_payments (
          payment_id TEXT PRIMARY KEY,
          merchant_id TEXT NOT NULL,
          network TEXT NOT NULL,
          currency TEXT NOT NULL,
          units TEXT NOT NULL,
          revision INTEGER NOT NULL
        ) STRICT;
      `)
      // an existing database: every payment the read model holds, counted once, in this transaction
      const exists = db
        .prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`)
        .get(PAYMENTS_READ)
      if (exists === undefined) return
      const count = countStatement(db)
      for (const row of db.prepare(`SELECT revision, state FROM ${PAYMENTS_READ}`).iterate()) {
        const state = JSON.parse(row.state as string) as OpenPayment
        count(receivedNetCountOf({ state, revision: Number(row.revision) }))
      }
    },
  },
]

/** one count, synchronous: to run inside a transaction */
function countStatement(db: DatabaseSync): (entry: ReceivedNetCount) => void {
  const counted = db.prepare('SELECT units, revision FROM received_net_payments WHERE payment_id = ?')
  const record = db.prepare(`
    INSERT INTO received_net_payments (payment_id, merchant_id, network, currency, units, revision)
    VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (payment_id) DO UPDATE SET units = excluded.units, revision = excluded.revision
  `)
  const total = db.prepare(
    'SELECT units FROM received_net WHERE merchant_id = ? AND network = ? AND currency = ?',
  )
  const setTotal = db.prepare(`
    INSERT INTO received_net (merchant_id, network, currency, decimals, units) VALUES (?, ?, ?, ?, ?)
    ON CONFLICT (merchant_id, network, currency) DO UPDATE SET units = excluded.units
  `)
  return (entry) => {
    const before = counted.get(entry.paymentId)
    if (before !== undefined && Number(before.revision) >= entry.revision) return
    const delta = entry.netUnits - BigInt((before?.units as string | undefined) ?? '0')
    record.run(
      entry.paymentId,
      entry.merchantId,
      entry.network,
      entry.currency,
      entry.netUnits.toString(),
      entry.revision,
    )
    if (delta === 0n) return
    const current = total.get(entry.merchantId, entry.network, entry.currency)
    const units = BigInt((current?.units as string | undefined) ?? '0') + delta
    setTotal.run(entry.merchantId, entry.network, entry.currency, entry.decimals, units.toString())
  }
}

export function createSqliteReceivedNetTotals(db: DatabaseSync): ReceivedNetTotals {
  // the payments' documents at their latest schema first: the first migration here counts them
  createSqlitePaymentReadModel(db)
  migrateSqliteComponent(db, 'received-net', receivedNetMigrations)
  const count = countStatement(db)
  const totals = db.prepare(
    'SELECT network, currency, decimals, units FROM received_net WHERE merchant_id = ? ORDER BY network, currency',
  )
  const counted = db.prepare('SELECT units FROM received_net_payments WHERE payment_id = ?')
  return translateFailures(
    {
      async count(entry) {
        await groupCommitOf(db).run(() => count(entry))
      },
      async totalsOf(merchantId, network) {
        return totals
          .all(merchantId)
          .filter((row) => network === undefined || row.network === network)
          .map((row) => ({
            network: row.network as string,
            currency: row.currency as string,
            decimals: Number(row.decimals),
            units: BigInt(row.units as string),
          }))
      },
      async countedOf(paymentId) {
        const row = counted.get(paymentId)
        return row === undefined ? 0n : BigInt(row.units as string)
      },
    },
    translateSqliteFailure,
  )
}
