import type { PaymentDeadline, PaymentDeadlineStore } from '@chainpay/ports'
import type { DatabaseSync } from './database.js'

/** Expiry deadlines of open payments in table payment_deadlines, one row per payment. */
export function createSqliteDeadlineStore(db: DatabaseSync): PaymentDeadlineStore {
  db.exec(`
    CREATE TABLE IF NOT EXISTS payment_deadlines (
      payment_id TEXT PRIMARY KEY,
      network TEXT NOT NULL,
      expires_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX IF NOT EXISTS payment_deadlines_by_expiry ON payment_deadlines (expires_at, payment_id);
    CREATE INDEX IF NOT EXISTS payment_deadlines_by_network_expiry
      ON payment_deadlines (network, expires_at, payment_id);
  `)
  const upsert = db.prepare(`
    INSERT INTO payment_deadlines (payment_id, network, expires_at) VALUES (:paymentId, :network, :expiresAt)
    ON CONFLICT (payment_id) DO UPDATE SET network = excluded.network, expires_at = excluded.expires_at
  `)
  const remove = db.prepare('DELETE FROM payment_deadlines WHERE payment_id = ?')
  const selectDue = db.prepare(`
    SELECT payment_id, network, expires_at FROM payment_deadlines
    WHERE expires_at <= ? ORDER BY expires_at, payment_id LIMIT ?
  `)
  const selectDueOfNetwork = db.prepare(`
    SELECT payment_id, network, expires_at FROM payment_deadlines
    WHERE network = ? AND expires_at <= ? ORDER BY expires_at, payment_id LIMIT ?
  `)

  return {
    async upsert(deadline) {
      upsert.run({ paymentId: deadline.paymentId, network: deadline.network, expiresAt: deadline.expiresAt })
    },

    async remove(paymentId) {
      remove.run(paymentId)
    },

    async due(now, limit, network) {
      const rows =
        network === undefined ? selectDue.all(now, limit) : selectDueOfNetwork.all(network, now, limit)
      return rows.map(
        (row): PaymentDeadline => ({
          paymentId: row.payment_id as string,
          network: row.network as string,
          expiresAt: row.expires_at as string,
        }),
      )
    },
  }
}
