// Bounded growth (docs/operations.md, "Retention"): standalone in this process on a manual clock,
// under a steady load of payments, window after window, each window longer than every retention
// (WEBHOOK_RETENTION_DAYS=1, the 7-day late-funds window of the watched addresses). Once the first
// windows have passed, the rows of every table stay put from one window to the next, but for the
// record (the events and the payments' state), which grows by the same rows per payment. Counts rows,
// never times anything.

import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { createManualClock } from '@chainpay/platform'
import { startWebhookReceiver, type WebhookReceiver } from '@chainpay/service-kit/testing'
import { createMerchantClient } from '@chainpay/test-client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type PaymentBody, pay, waitForPayment } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'

const DAY_MS = 24 * 60 * 60 * 1000
/** longer than the webhook retention (1 day) and the late-funds window (7 days) */
const WINDOW_MS = 8 * DAY_MS
const WINDOWS = 5
const PAID_PER_WINDOW = 3
/** the SQLite bus keeps this many consumed messages per topic: reached within the first windows */
const BUS_KEPT_MESSAGES = 12

/** messages the SQLite bus reads per batch; it prunes once it handled that many, or when idle */
const SQLITE_BUS_READ_BATCH = 100

/** the record: one set of rows per payment, kept for good */
// (received_net_payments: what the running balance counted of each funded payment, docs/capacity.md)
const RECORD_TABLES = ['es_events', 'payments_read', 'notifier_payments', 'received_net_payments']
/** the simulated chain's own blocks and transfers: the chain, not chainpay's state */
const SIMULATED_CHAIN_TABLES = ['sim_blocks', 'sim_transfers']
/** ADDRESS_POOL_SIZE's default: addresses derived ahead per chain family (TRON and Solana here) */
const DEFAULT_ADDRESS_POOL_SIZE = 256
/** the tables the address pool fills when the process is idle, at most this many rows */
const POOL_BOUNDS: Record<string, number> = {
  address_pool: 2 * DEFAULT_ADDRESS_POOL_SIZE,
  address_family_counters: 2,
}

const clock = createManualClock(new Date())
let standalone: InProcessStandalone
let receiver: WebhookReceiver
let db: DatabaseSync

beforeAll(async () => {
  standalone = await startInProcessStandalone({
    clock,
    env: { WEBHOOK_RETENTION_DAYS: '1' },
    sqliteBusKeptMessages: BUS_KEPT_MESSAGES,
  })
  receiver = await startWebhookReceiver()
  db = new DatabaseSync(join(standalone.dataDir, 'chainpay.sqlite'), { readOnly: true })
})

afterAll(async () => {
  db?.close()
  await standalone?.stop()
  await receiver?.close()
})

function count(sql: string, ...params: string[]): number {
  return Number(db.prepare(sql).get(...params)?.n)
}

function rowsPerTable(): Record<string, number> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((row) => String(row.name))
  return Object.fromEntries(tables.map((table) => [table, count(`SELECT COUNT(*) AS n FROM "${table}"`)]))
}

function webhooksOf(paymentId: string, event: string): number {
  return receiver.received.filter((r) => r.body.payment.id === paymentId && r.body.event === event).length
}

describe('retention under a steady load', () => {
  it('stops every table but the record from growing once the retention has passed', async () => {
    const merchant = standalone.demoMerchant()
    // requests are signed on the clock the server checks them against
    const client = createMerchantClient({
      baseUrl: standalone.apiUrl,
      apiKey: merchant.apiKey,
      apiSecret: merchant.apiSecret,
      now: () => clock.now().getTime(),
    })
    const snapshots: Record<string, number>[] = []
    const busSnapshots: { published: number; consumedAndKept: number[] }[] = []
    const paymentsSoFar: number[] = []
    const confirmationCountsSoFar: number[] = []
    let unpaidBefore: string | undefined
    let payments = 0

    for (let window = 0; window < WINDOWS; window += 1) {
      const paid: string[] = []
      for (let n = 0; n < PAID_PER_WINDOW; n += 1) {
        const response = await client.createPayment({
          amount: '1',
          currency: 'TRX',
          network: 'TRON',
          expiresInMinutes: 60,
          callbackUrl: receiver.url,
        } as never)
        expect(response.status).toBe(201)
        const created = response.body as PaymentBody
        await pay(standalone, 'TRON', { to: created.generatedAddress, amount: '1', currency: 'TRX' })
        await waitForPayment(client, created.paymentId, (p) => p.status === 'confirmed', 60_000)
        paid.push(created.paymentId)
        // a minute between payments: the load is spread over time, and the chain indexer's prune
        // (once a minute of clock time, by the chain time of the blocks it has scanned) runs
        clock.advance(61_000)
      }
      // one left unpaid: it expires in the next window
      const unpaid = await client.createPayment({
        amount: '1',
        currency: 'TRX',
        network: 'TRON',
        expiresInMinutes: 60,
        callbackUrl: receiver.url,
      } as never)
      expect(unpaid.status).toBe(201)
      payments += PAID_PER_WINDOW + 1
      await vi.waitFor(
        () => {
          for (const paymentId of paid) expect(webhooksOf(paymentId, 'payment.confirmed')).toBe(1)
          if (unpaidBefore !== undefined) expect(webhooksOf(unpaidBefore, 'payment.expired')).toBe(1)
        },
        { timeout: 60_000, interval: 50 },
      )
      const unpaidId = (unpaid.body as PaymentBody).paymentId
      unpaidBefore = unpaidId

      // what the retention let go of is gone: the deliveries that finished before it, the addresses
      // whose late-funds window ended, the deadlines of the closed payments
      const now = clock.now()
      const cutoff = new Date(now.getTime() - DAY_MS).toISOString()
      await vi.waitFor(
        () => {
          expect(
            count(
              "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < ?",
              cutoff,
            ),
          ).toBe(0)
          expect(
            count(
              'SELECT COUNT(*) AS n FROM watched_addresses WHERE watch_until < ? AND watching_reported_at IS NOT NULL',
              now.toISOString(),
            ),
          ).toBe(0)
          // and what the window's unpaid payment set going has settled: its deadline's watch is
          // written once the watching is reported, and its payment.pending delivered, a moment after
          // the create
          expect(
            count('SELECT COUNT(*) AS n FROM payment_deadline_watches WHERE payment_id = ?', unpaidId),
          ).toBe(1)
          expect(count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'")).toBe(0)
        },
        { timeout: 60_000, interval: 50 },
      )
      // A transfer's confirmation counts are recorded as each scan meets them: one event per block
      // when every scan meets one new block, fewer when a scan meets several (docs/architecture.md,
      // "at most 32 events per transfer"). So they are the record's, bounded, but not the same
      // number every window; the rest of the record is.
      const confirmationCounts = count(
        "SELECT COUNT(*) AS n FROM es_events WHERE type = 'TransferConfirmationsUpdated'",
      )
      const rows = rowsPerTable()
      snapshots.push({ ...rows, es_events: (rows.es_events ?? 0) - confirmationCounts })
      confirmationCountsSoFar.push(confirmationCounts)
      busSnapshots.push({
        published: count("SELECT seq AS n FROM sqlite_sequence WHERE name = 'bus_messages'"),
        consumedAndKept: db
          .prepare(
            `SELECT topic, COUNT(*) AS n FROM bus_messages AS m
             WHERE position <= (SELECT MIN(position) FROM bus_offsets AS o WHERE o.topic = m.topic)
             GROUP BY topic`,
          )
          .all()
          .map((row) => Number(row.n)),
      })
      paymentsSoFar.push(payments)
      clock.advance(WINDOW_MS)
    }

    // TRON: 19 counts after the transfer's first block, per paid payment at most
    const countsPerWindow = confirmationCountsSoFar.map(
      (value, index) => value - (confirmationCountsSoFar[index - 1] ?? 0),
    )
    for (const counts of countsPerWindow) expect(counts).toBeLessThanOrEqual(PAID_PER_WINDOW * 19)
    // from the third window on, every retention has passed at least once
    const steady = snapshots.slice(2)
    const first = steady[0] ?? {}
    for (const [table, rows] of Object.entries(first)) {
      // the address pool fills in idle time, up to its size per chain family (TRON and Solana), and
      // the family's counter appears when it starts: both bounded, whenever they fill
      const bound = POOL_BOUNDS[table]
      if (bound !== undefined) {
        for (const value of steady.map((snapshot) => snapshot[table]))
          expect(value, table).toBeLessThanOrEqual(bound)
        continue
      }
      if (SIMULATED_CHAIN_TABLES.includes(table) || table === 'bus_messages') continue
      const series = steady.map((snapshot) => snapshot[table])
      if (RECORD_TABLES.includes(table)) {
        // the same rows per payment every window
        const perWindow = series.slice(1).map((value, index) => (value ?? 0) - (series[index] ?? 0))
        expect(new Set(perWindow).size, `${table}: ${series.join(', ')}`).toBe(1)
      } else {
        expect(series, `${table} grows`).toEqual(series.map(() => rows))
      }
    }
    // The bus is a log in motion (progress is published per block): what every group consumed is
    // deleted after each batch read but for the newest kept, so at any moment a topic holds at most
    // those and one batch read since, however much went through it.
    const steadyBus = busSnapshots.slice(2)
    for (const { consumedAndKept } of steadyBus) {
      for (const rows of consumedAndKept)
        expect(rows).toBeLessThanOrEqual(BUS_KEPT_MESSAGES + SQLITE_BUS_READ_BATCH)
    }
    const published = steadyBus.map((snapshot) => snapshot.published)
    expect((published.at(-1) ?? 0) - (published[0] ?? 0)).toBeGreaterThan(BUS_KEPT_MESSAGES * 4)
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining([...RECORD_TABLES, 'webhook_deliveries', 'bus_messages']),
    )
  }, 600_000)
})
