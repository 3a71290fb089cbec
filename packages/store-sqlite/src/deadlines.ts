import { type DueDeadline, type PaymentDeadlineStore, translateFailures } from '@chainpay/ports'
import type { DatabaseSync } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { columnsOf, migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

/** the deadline store's schema versions (schema-versions.ts) */
export const deadlineMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) => {
      db.exec(`
        CREATE TABLE IF NOT EXISTS payment_deadlines (
          payment_id TEXT PRIMARY KEY,
          network TEXT NOT NULL,
          expires_at TEXT NOT NULL,
          attempts INTEGER NOT NULL DEFAULT 0,
          retry_at TEXT
        ) STRICT;
        CREATE INDEX IF NOT EXISTS payment_deadlines_by_expiry ON payment_deadlines (expires_at, payment_id);
        CREATE INDEX IF NOT EXISTS payment_deadlines_by_network_expiry
          ON payment_deadlines (network, expires_at, payment_id);
        CREATE TABLE IF NOT EXISTS payment_deadline_watches (
          payment_id TEXT PRIMARY KEY,
          watched_at TEXT NOT NULL
        ) STRICT;
      `)
      // that release already had them; a file from before deadlines were retried gets them here
      const columns = columnsOf(db, 'payment_deadlines')
      if (!columns.has('attempts'))
        db.exec('ALTER TABLE payment_deadlines ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0')
      if (!columns.has('retry_at')) db.exec('ALTER TABLE payment_deadlines ADD COLUMN retry_at TEXT')
    },
  },
]

/**
 * Expiry deadlines of open payments in table payment_deadlines, one row per payment, with the
 * watcher's marks in payment_deadline_watches: a mark can arrive before its deadline.
 */
export function createSqliteDeadlineStore(db: DatabaseSync): PaymentDeadlineStore {
  migrateSqliteComponent(db, 'deadlines', deadlineMigrations)
  const upsert = db.prepare(`
    INSERT INTO payment_deadlines (payment_id, network, expires_at) VALUES (:paymentId, :network, :expiresAt)
    ON CONFLICT (payment_id) DO UPDATE SET network = excluded.network, expires_at = excluded.expires_at
  `)
  const removeDeadline = db.prepare('DELETE FROM payment_deadlines WHERE payment_id = ?')
  const removeWatch = db.prepare('DELETE FROM payment_deadline_watches WHERE payment_id = ?')
  const markWatched = db.prepare(`
    INSERT INTO payment_deadline_watches (payment_id, watched_at) VALUES (?, ?)
    ON CONFLICT (payment_id) DO NOTHING
  `)
  const retryLater = db.prepare(
    'UPDATE payment_deadlines SET attempts = attempts + 1, retry_at = ? WHERE payment_id = ?',
  )
  const dueWhere = `
    d.expires_at <= :expiredBy AND (d.retry_at IS NULL OR d.retry_at <= :now)
    AND EXISTS (SELECT 1 FROM payment_deadline_watches w WHERE w.payment_id = d.payment_id)`
  const selectDue = db.prepare(`
    SELECT payment_id, network, expires_at, attempts FROM payment_deadlines d
    WHERE ${dueWhere} ORDER BY expires_at, payment_id LIMIT :limit
  `)
  const selectDueOfNetwork = db.prepare(`
    SELECT payment_id, network, expires_at, attempts FROM payment_deadlines d
    WHERE d.network = :network AND ${dueWhere} ORDER BY expires_at, payment_id LIMIT :limit
  `)

  const group = groupCommitOf(db)
  return translateFailures(
    {
      // each write with the other writes of this turn in one commit (group-commit.ts)
      async upsert(deadline) {
        const { paymentId, network, expiresAt } = deadline
        await group.run(() => upsert.run({ paymentId, network, expiresAt }))
      },

      async remove(paymentId) {
        await group.run(() => {
          removeDeadline.run(paymentId)
          removeWatch.run(paymentId)
        })
      },

      async markWatched(paymentId, at) {
        await group.run(() => markWatched.run(paymentId, at))
      },

      async retryLater(paymentId, retryAt) {
        await group.run(() => retryLater.run(retryAt, paymentId))
      },

      async due({ expiredBy, now, limit, network }) {
        const rows =
          network === undefined
            ? selectDue.all({ expiredBy, now, limit })
            : selectDueOfNetwork.all({ network, expiredBy, now, limit })
        return rows.map(
          (row): DueDeadline => ({
            paymentId: row.payment_id as string,
            network: row.network as string,
            expiresAt: row.expires_at as string,
            attempts: Number(row.attempts),
          }),
        )
      },
    },
    translateSqliteFailure,
  )
}
