import {
  DELIVERY_ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type DeliveryStatus,
  finishedAtOf,
  finishedByAttempt,
  targetHostOf,
  translateFailures,
  type WebhookDelivery,
  type WebhookDeliveryStore,
} from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { groupCommitOf } from './group-commit.js'
import { columnsOf, migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

type Row = Record<string, unknown>

/** the delivery log's schema versions (schema-versions.ts) */
export const deliveryMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS webhook_deliveries (
          delivery_id TEXT PRIMARY KEY,
          payment_id TEXT NOT NULL,
          merchant_id TEXT NOT NULL,
          event_type TEXT NOT NULL,
          sequence INTEGER NOT NULL,
          payload TEXT NOT NULL,
          target_url TEXT,
          status TEXT NOT NULL,
          attempts INTEGER NOT NULL,
          next_attempt_at TEXT,
          created_at TEXT NOT NULL,
          delivered_at TEXT,
          last_error TEXT,
          leased_until TEXT
        ) STRICT;
        CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
        CREATE INDEX IF NOT EXISTS webhook_deliveries_by_payment ON webhook_deliveries (payment_id, sequence);
        CREATE TABLE IF NOT EXISTS webhook_attempts (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (delivery_id),
          attempt INTEGER NOT NULL,
          at TEXT NOT NULL,
          status_code INTEGER,
          duration_ms REAL NOT NULL,
          error TEXT
        ) STRICT;
        CREATE INDEX IF NOT EXISTS webhook_attempts_by_delivery ON webhook_attempts (delivery_id, attempt);
      `),
  },
  {
    // in the same transaction as the version: a column left half filled would hide deliveries
    // from the claim; every delivery recorded since has its host from the start. A file written
    // between that release and versioned storage has the column already, filled.
    description: 'deliveries bounded per target host: column target_host, filled',
    apply: (db) => {
      if (columnsOf(db, 'webhook_deliveries').has('target_host')) return
      db.exec('ALTER TABLE webhook_deliveries ADD COLUMN target_host TEXT')
      const setHost = db.prepare('UPDATE webhook_deliveries SET target_host = ? WHERE delivery_id = ?')
      const rows = db.prepare('SELECT delivery_id, target_url, merchant_id FROM webhook_deliveries').all()
      for (const row of rows) {
        const host = targetHostOf({
          targetUrl: row.target_url as string | null,
          merchantId: row.merchant_id as string,
        })
        setHost.run(host, row.delivery_id as string)
      }
    },
  },
  {
    // the deliveries in flight: few, however long the log (an attempt's recording clears its lease)
    description: 'index of the leased deliveries',
    apply: (db) =>
      db.exec(`
        CREATE INDEX IF NOT EXISTS webhook_deliveries_leased ON webhook_deliveries (leased_until)
          WHERE leased_until IS NOT NULL
      `),
  },
  {
    // Retention (pruneFinished) goes by when a delivery finished: finished_at, filled for the
    // finished deliveries already held (delivered: when; otherwise its last attempt, or its creation
    // when it had none), with a partial index over the finished ones; every delivery recorded since
    // keeps it up to date (docs/operations.md, "Retention: bounded growth")
    description: 'retention: column finished_at, filled, and its index',
    apply: (db) => {
      if (!columnsOf(db, 'webhook_deliveries').has('finished_at')) {
        db.exec(`
          ALTER TABLE webhook_deliveries ADD COLUMN finished_at TEXT;
          UPDATE webhook_deliveries AS d SET finished_at = COALESCE(d.delivered_at,
            (SELECT MAX(a.at) FROM webhook_attempts AS a WHERE a.delivery_id = d.delivery_id), d.created_at)
          WHERE d.status <> 'pending';
        `)
      }
      db.exec(`
        CREATE INDEX IF NOT EXISTS webhook_deliveries_finished ON webhook_deliveries (finished_at)
          WHERE finished_at IS NOT NULL
      `)
    },
  },
  {
    // Several targets per event (docs/api.md, "Webhooks"): the event id apart from the delivery's,
    // and the target, whose deliveries of a payment form a line of their own. Null on the
    // deliveries already held: their event id is their delivery id, and each payment had one target.
    description: 'several targets per event: columns event_id and endpoint_id',
    apply: (db) => {
      const columns = columnsOf(db, 'webhook_deliveries')
      if (!columns.has('event_id')) db.exec('ALTER TABLE webhook_deliveries ADD COLUMN event_id TEXT')
      if (!columns.has('endpoint_id')) db.exec('ALTER TABLE webhook_deliveries ADD COLUMN endpoint_id TEXT')
    },
  },
  {
    // a merchant's deliveries page by page, newest first (listByMerchant)
    description: "index of a merchant's deliveries by creation",
    apply: (db) =>
      db.exec(`
        CREATE INDEX IF NOT EXISTS webhook_deliveries_by_merchant
          ON webhook_deliveries (merchant_id, created_at, delivery_id)
      `),
  },
  {
    // where each attempt went: an endpoint's URL may change between attempts (docs/api.md,
    // "Webhook deliveries"); null on the attempts already held
    description: 'the URL of each attempt: column url of webhook_attempts',
    apply: (db) => {
      if (!columnsOf(db, 'webhook_attempts').has('url'))
        db.exec('ALTER TABLE webhook_attempts ADD COLUMN url TEXT')
    },
  },
]

/**
 * The webhook delivery log in tables webhook_deliveries and webhook_attempts. A claimed delivery
 * carries a lease (leased_until) so that concurrent workers never send it twice at once; a worker
 * that dies simply lets its lease run out. The unexpired leases are also what is in flight per
 * target host (target_host, targetHostOf), which a claim keeps under its bound.
 */
export function createSqliteDeliveryStore(db: DatabaseSync): WebhookDeliveryStore {
  migrateSqliteComponent(db, 'deliveries', deliveryMigrations)
  const insert = db.prepare(`
    INSERT INTO webhook_deliveries (delivery_id, payment_id, merchant_id, event_type, sequence, payload,
      target_url, target_host, status, attempts, next_attempt_at, created_at, delivered_at, last_error,
      finished_at, event_id, endpoint_id)
    VALUES (:deliveryId, :paymentId, :merchantId, :eventType, :sequence, :payload,
      :targetUrl, :targetHost, :status, :attempts, :nextAttemptAt, :createdAt, :deliveredAt, :lastError,
      :finishedAt, :eventId, :endpointId)
    ON CONFLICT (delivery_id) DO NOTHING
  `)
  // The attempts in flight per target host: the unexpired leases, of every worker on the file. The
  // partial index holds just the leased deliveries (an attempt's recording clears its lease); the
  // unary + keeps the planner from walking every pending delivery by status instead.
  const selectInFlight = db.prepare(`
    SELECT target_host, COUNT(*) AS in_flight FROM webhook_deliveries
    WHERE leased_until >= :now AND +status = 'pending'
    GROUP BY target_host
  `)
  // Head of line: a pending delivery with a lower sequence holds back the rest of its payment's line
  // to the same target, even while it waits for its own retry, so that one payment's webhooks arrive
  // at each target in event order; another target's line goes on. Hosts at
  // their bound are left out (fullHosts), so the claim goes on to other hosts' deliveries instead of
  // taking ones it cannot send yet; theirs stay due, in order.
  // The due deliveries, or those of them named (ClaimBounds.among): found by their primary key, the
  // unary + keeping the planner off the due index, which it would otherwise walk.
  const dueQuery = (named: boolean) => {
    const due = named
      ? "d.delivery_id IN (SELECT value FROM json_each(:among)) AND +d.status = 'pending' AND +d.next_attempt_at <= :now"
      : "d.status = 'pending' AND d.next_attempt_at <= :now"
    return db.prepare(`
      SELECT * FROM webhook_deliveries AS d
      WHERE ${due}
        AND (d.leased_until IS NULL OR d.leased_until < :now)
        AND d.target_host NOT IN (SELECT value FROM json_each(:fullHosts))
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries AS earlier
          WHERE earlier.payment_id = d.payment_id AND earlier.endpoint_id IS d.endpoint_id
            AND earlier.status = 'pending' AND earlier.sequence < d.sequence
        )
      ORDER BY d.next_attempt_at, d.created_at, d.sequence
      LIMIT :limit
    `)
  }
  const selectDue = dueQuery(false)
  const selectDueAmong = dueQuery(true)
  const lease = db.prepare('UPDATE webhook_deliveries SET leased_until = ? WHERE delivery_id = ?')
  const insertAttempt = db.prepare(`
    INSERT INTO webhook_attempts (delivery_id, attempt, at, status_code, duration_ms, error, url)
    VALUES (:deliveryId, :attempt, :at, :statusCode, :durationMs, :error, :url)
  `)
  // the delivery's latest DELIVERY_ATTEMPTS_KEPT attempts stay, the older ones go (at most one per call)
  const deleteOlderAttempts = db.prepare(`
    DELETE FROM webhook_attempts WHERE delivery_id = :deliveryId AND id <= (
      SELECT id FROM webhook_attempts WHERE delivery_id = :deliveryId ORDER BY id DESC LIMIT 1 OFFSET :kept
    )
  `)
  const moveOn = db.prepare(`
    UPDATE webhook_deliveries
    SET status = :status, attempts = attempts + 1, next_attempt_at = :nextAttemptAt,
      delivered_at = COALESCE(:deliveredAt, delivered_at), last_error = :lastError, leased_until = NULL,
      finished_at = :finishedAt
    WHERE delivery_id = :deliveryId
  `)
  const selectOne = db.prepare('SELECT * FROM webhook_deliveries WHERE delivery_id = ?')
  const selectByPayment = db.prepare(
    'SELECT * FROM webhook_deliveries WHERE payment_id = ? ORDER BY sequence, created_at',
  )
  // in the order they were made: a redelivery numbers its attempts from 1 again
  const selectAttempts = db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY id')
  const requeue = db.prepare(`
    UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, finished_at = NULL
    WHERE delivery_id = ?
  `)
  // oldest finish first, through the partial index webhook_deliveries_finished; the status check
  // only guards against a row whose finish was not cleared
  const selectFinished = db.prepare(`
    SELECT delivery_id FROM webhook_deliveries
    WHERE finished_at < :finishedBefore AND finished_at IS NOT NULL AND status <> 'pending'
    ORDER BY finished_at LIMIT :limit
  `)
  const deleteAttemptsOf = db.prepare(
    'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT value FROM json_each(?))',
  )
  const deleteDeliveries = db.prepare(
    'DELETE FROM webhook_deliveries WHERE delivery_id IN (SELECT value FROM json_each(?))',
  )

  // writes go with the other writes of this turn in one commit (group-commit.ts)
  const group = groupCommitOf(db)
  return translateFailures(
    {
      async enqueue(delivery) {
        const columns = {
          deliveryId: delivery.deliveryId,
          paymentId: delivery.paymentId,
          merchantId: delivery.merchantId,
          eventType: delivery.eventType,
          sequence: delivery.sequence,
          payload: JSON.stringify(delivery.payload),
          targetUrl: delivery.targetUrl,
          targetHost: targetHostOf(delivery),
          status: delivery.status,
          attempts: delivery.attempts,
          nextAttemptAt: delivery.nextAttemptAt,
          createdAt: delivery.createdAt,
          deliveredAt: delivery.deliveredAt,
          lastError: delivery.lastError,
          finishedAt: finishedAtOf(delivery),
          eventId: delivery.eventId ?? null,
          endpointId: delivery.endpointId ?? null,
        }
        const { changes } = await group.run(() => insert.run(columns))
        return Number(changes) === 1
      },

      async claimDue(now, { limit, leaseMs, perTargetHost, among }) {
        const leasedUntil = new Date(Date.parse(now) + leaseMs).toISOString()
        return await group.run(() => {
          const inFlight = new Map<string, number>()
          for (const row of selectInFlight.all({ now })) {
            inFlight.set(row.target_host as string, Number(row.in_flight))
          }
          const fullHosts = new Set(
            [...inFlight].filter(([, count]) => count >= perTargetHost).map(([host]) => host),
          )
          const claimed: WebhookDelivery[] = []
          // Each round reads the next due deliveries of the hosts with room and takes them in order;
          // once a host fills, the rest of its deliveries are passed over, and the next round leaves
          // them out. A row is passed over only for a host this round filled, so every round that
          // reads anything takes something: at most `limit` rounds, one in the usual case.
          while (claimed.length < limit) {
            const parameters = {
              now,
              fullHosts: JSON.stringify([...fullHosts]),
              limit: limit - claimed.length,
            }
            const rows =
              among === undefined
                ? selectDue.all(parameters)
                : selectDueAmong.all({ ...parameters, among: JSON.stringify(among) })
            if (rows.length === 0) break
            for (const row of rows) {
              const host = row.target_host as string
              if (fullHosts.has(host)) continue
              const hostInFlight = (inFlight.get(host) ?? 0) + 1
              inFlight.set(host, hostInFlight)
              if (hostInFlight >= perTargetHost) fullHosts.add(host)
              // leased at once: the next round no longer reads it
              lease.run(leasedUntil, row.delivery_id as string)
              claimed.push(toDelivery(row))
            }
          }
          return claimed
        })
      },

      async recordAttempt(attempt, outcome) {
        await group.run(() => {
          insertAttempt.run({
            deliveryId: attempt.deliveryId,
            attempt: attempt.attempt,
            at: attempt.at,
            statusCode: attempt.statusCode,
            durationMs: attempt.durationMs,
            error: attempt.error,
            url: attempt.url ?? null,
          })
          deleteOlderAttempts.run({ deliveryId: attempt.deliveryId, kept: DELIVERY_ATTEMPTS_KEPT })
          moveOn.run({
            deliveryId: attempt.deliveryId,
            status: outcome.status,
            nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
            deliveredAt: outcome.status === 'delivered' ? outcome.deliveredAt : null,
            lastError: attempt.error,
            finishedAt: finishedByAttempt(attempt.at, outcome),
          })
        })
      },

      async get(deliveryId) {
        const row = selectOne.get(deliveryId)
        return row === undefined ? null : toDelivery(row)
      },

      async listByPayment(paymentId) {
        return selectByPayment.all(paymentId).map(toDelivery)
      },

      async listByMerchant(merchantId, { paymentId, status, limit, after }) {
        const conditions = ['merchant_id = :merchantId']
        const parameters: Record<string, string | number> = { merchantId, limit }
        if (paymentId !== undefined) {
          conditions.push('payment_id = :paymentId')
          parameters.paymentId = paymentId
        }
        if (status !== undefined) {
          conditions.push('status = :status')
          parameters.status = status
        }
        if (after !== undefined) {
          conditions.push('(created_at, delivery_id) < (:afterCreatedAt, :afterId)')
          parameters.afterCreatedAt = after.createdAt
          parameters.afterId = after.deliveryId
        }
        const page = db.prepare(`
          SELECT * FROM webhook_deliveries WHERE ${conditions.join(' AND ')}
          ORDER BY created_at DESC, delivery_id DESC LIMIT :limit
        `)
        return page.all(parameters).map(toDelivery)
      },

      async listAttempts(deliveryId) {
        return selectAttempts.all(deliveryId).map(toAttempt)
      },

      async redeliver(deliveryId, now) {
        // attempts back to 0: the retry schedule starts over. The lease is left alone: a pending
        // delivery that a worker is sending right now stays its.
        const { changes } = requeue.run(now, deliveryId)
        return Number(changes) === 1
      },

      async pruneFinished(finishedBefore, limit) {
        return inTransaction(db, () => {
          const ids = selectFinished.all({ finishedBefore, limit }).map((row) => row.delivery_id as string)
          if (ids.length === 0) return 0
          const idList = JSON.stringify(ids)
          // the attempts first: they refer to their delivery
          deleteAttemptsOf.run(idList)
          deleteDeliveries.run(idList)
          return ids.length
        })
      },
    },
    translateSqliteFailure,
  )
}

function toDelivery(row: Row): WebhookDelivery {
  return {
    deliveryId: row.delivery_id as string,
    paymentId: row.payment_id as string,
    merchantId: row.merchant_id as string,
    eventType: row.event_type as string,
    sequence: Number(row.sequence),
    payload: JSON.parse(row.payload as string) as Record<string, unknown>,
    targetUrl: row.target_url as string | null,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    nextAttemptAt: row.next_attempt_at as string | null,
    createdAt: row.created_at as string,
    deliveredAt: row.delivered_at as string | null,
    lastError: row.last_error as string | null,
    ...(row.event_id === null || row.event_id === undefined ? {} : { eventId: row.event_id as string }),
    ...(row.endpoint_id === null || row.endpoint_id === undefined
      ? {}
      : { endpointId: row.endpoint_id as string }),
  }
}

function toAttempt(row: Row): DeliveryAttempt {
  return {
    deliveryId: row.delivery_id as string,
    attempt: Number(row.attempt),
    at: row.at as string,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    durationMs: Number(row.duration_ms),
    error: row.error as string | null,
    ...(typeof row.url === 'string' ? { url: row.url } : {}),
  }
}
