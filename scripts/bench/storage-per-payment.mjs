// Storage per payment (not a test): standalone in this process on a manual clock, N payments (default
// 1000) created, paid, confirmed and their webhooks delivered; then the SQLite file is copied with
// VACUUM INTO (the simulated chain's own tables dropped: they are the chain, not chainpay's state) and
// measured: before any payment, with every payment's webhooks still within WEBHOOK_RETENTION_DAYS,
// and after the retention passed (the clock moved past it and the pruner ran). Prints the figures for
// docs/operations.md, "Retention". Run after `pnpm -s tsc -b`:
//   node scripts/bench/storage-per-payment.mjs [payments]

import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { createManualClock } from '../../packages/platform/dist/index.js'
import { startWebhookReceiver } from '../../packages/service-kit/dist/testing/index.js'
import { pay, waitForPayment } from '../../packages/standalone/dist/testing/flow.js'
import { startInProcessStandalone } from '../../packages/standalone/dist/testing/standalone-in-process.js'
import { createMerchantClient } from '../../packages/test-client/dist/index.js'

const payments = Number(process.argv[2] ?? 1000)
const concurrency = 50
const DAY_MS = 24 * 60 * 60 * 1000
const RETENTION_DAYS = 90

const clock = createManualClock(new Date())
const standalone = await startInProcessStandalone({
  clock,
  env: { WEBHOOK_RETENTION_DAYS: String(RETENTION_DAYS) },
})
const receiver = await startWebhookReceiver()
const scratch = mkdtempSync(join(tmpdir(), 'chainpay-storage-'))
const live = new DatabaseSync(join(standalone.dataDir, 'chainpay.sqlite'), { readOnly: true })

function measure(label) {
  const copy = join(scratch, `${label}.sqlite`)
  live.exec(`VACUUM INTO '${copy}'`)
  const db = new DatabaseSync(copy)
  const rows = {}
  for (const { name } of db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all()) {
    rows[name] = Number(db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get().n)
  }
  db.exec('DROP TABLE IF EXISTS sim_blocks; DROP TABLE IF EXISTS sim_transfers; VACUUM')
  db.close()
  return { bytes: statSync(copy).size, rows }
}

try {
  const merchant = standalone.demoMerchant()
  const client = createMerchantClient({
    baseUrl: standalone.apiUrl,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
    now: () => clock.now().getTime(),
  })
  const empty = measure('empty')
  const ids = []
  for (let start = 0; start < payments; start += concurrency) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(concurrency, payments - start) }, async () => {
        const response = await client.createPayment({
          amount: '1',
          currency: 'TRX',
          network: 'TRON',
          callbackUrl: receiver.url,
          metadata: { orderId: `order-${Math.random().toString(36).slice(2, 10)}` },
        })
        if (response.status !== 201)
          throw new Error(`create: ${response.status} ${JSON.stringify(response.body)}`)
        await pay(standalone, 'TRON', { to: response.body.generatedAddress, amount: '1', currency: 'TRX' })
        return response.body.paymentId
      }),
    )
    for (const id of batch) await waitForPayment(client, id, (p) => p.status === 'confirmed', 120_000)
    ids.push(...batch)
    process.stderr.write(`${ids.length} payments confirmed\n`)
  }
  const confirmedWebhooks = () => receiver.received.filter((r) => r.body.event === 'payment.confirmed').length
  while (confirmedWebhooks() < payments) await new Promise((resolve) => setTimeout(resolve, 100))
  const withWebhooks = measure('within-retention')

  clock.advance((RETENTION_DAYS + 1) * DAY_MS)
  const finished = () => Number(live.prepare('SELECT COUNT(*) AS n FROM webhook_deliveries').get().n)
  while (finished() > 0) await new Promise((resolve) => setTimeout(resolve, 100))
  const afterRetention = measure('after-retention')

  const per = (m) => Math.round((m.bytes - empty.bytes) / payments)
  console.log(
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: `${cpus().length} x ${cpus()[0]?.model}`,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        payments,
        emptyBytes: empty.bytes,
        withinRetention: {
          bytes: withWebhooks.bytes,
          bytesPerPayment: per(withWebhooks),
          rows: withWebhooks.rows,
        },
        afterRetention: {
          bytes: afterRetention.bytes,
          bytesPerPayment: per(afterRetention),
          rows: afterRetention.rows,
        },
      },
      null,
      2,
    ),
  )
} finally {
  live.close()
  await standalone.stop()
  await receiver.close()
  rmSync(scratch, { recursive: true, force: true })
}
