// GET /payments benchmark (not a test: it asserts nothing): pages per second and p99 latency of the
// merchant API's list on standalone's SQLite store holding 1,000 and then 100,000 payments of one
// merchant (beside 10 % of another's). The payments are written through the read model's own API
// (save) in one transaction, which is what the projection stores; the pages are served by the
// gateway's app in this process (signature check, query parsing, the store's page, serialization;
// no socket). Each row is one kind of page, requested one after the other: the first page, a page
// from a cursor halfway down the list, and a page filtered on a status that one payment in ten has.
// The cost of a page must not grow with the store (docs/benchmarks.md, "Listing payments").
// Run after `pnpm -s tsc -b`:
//   node scripts/bench/payment-list.mjs [pages per row, default 2000]

import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { createApiKeyAuthenticator, createMerchant } from '../../packages/admin-api/dist/index.js'
import { paymentCreatedData } from '../../packages/domain/dist/testing/index.js'
import { buildGatewayApp } from '../../packages/gateway/dist/index.js'
import {
  createRootLogger,
  createSecretBox,
  generateSecretKey,
  systemClock,
} from '../../packages/platform/dist/index.js'
import { apiAuthHeaders } from '../../packages/signing/dist/index.js'
import {
  createSqliteMerchantStore,
  createSqlitePaymentReadModel,
  openSqliteDatabase,
} from '../../packages/store-sqlite/dist/index.js'

const pagesPerRow = Number(process.argv[2] ?? 2000)
const sizes = [1_000, 100_000]
const PATH = '/api/merchant/v1/payments'

const scratch = mkdtempSync(join(tmpdir(), 'chainpay-list-bench-'))
const db = openSqliteDatabase(join(scratch, 'chainpay.sqlite'))
const readModel = createSqlitePaymentReadModel(db)
const merchants = createSqliteMerchantStore(db)
const secretBox = createSecretBox(generateSecretKey())
const deps = { merchants, secretBox, clock: systemClock }
const shop = await createMerchant(deps, { name: 'Bench shop' })
const other = await createMerchant(deps, { name: 'Another shop' })
const app = await buildGatewayApp({
  commands: new Proxy({}, { get: () => () => Promise.reject(new Error('no commands in this benchmark')) }),
  readModel,
  authenticator: createApiKeyAuthenticator(deps),
  clock: systemClock,
  logger: createRootLogger({ service: 'bench', level: 'silent' }),
  rateLimit: { max: 1e9, windowMs: 60_000, perAddressMax: 1e9 },
})

const start = Date.parse('2026-01-01T00:00:00.000Z')
let seeded = 0
/** payments seeded + 1 .. size, one a second; every tenth another merchant's, every tenth of the rest confirmed */
async function seedUpTo(size) {
  db.exec('BEGIN')
  for (let n = seeded + 1; n <= size; n++) {
    const merchant = n % 10 === 0 ? other : shop
    const paymentId = `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`
    const createdAt = new Date(start + n * 1000).toISOString()
    const created = paymentCreatedData({
      paymentId,
      merchantId: merchant.merchant.merchantId,
      createdAt,
      expiresAt: new Date(start + n * 1000 + 30 * 60_000).toISOString(),
      metadata: { orderId: `order-${n}` },
    })
    await readModel.save({
      paymentId,
      merchantId: created.merchantId,
      revision: 0,
      state: {
        status: n % 10 === 3 ? 'confirmed' : 'pending',
        created,
        transfers: [],
        lateTransfers: [],
        txHash: null,
        receivedUnits: null,
        confirmedAt: null,
        closedAt: null,
        failureReason: null,
      },
      updatedAt: createdAt,
    })
  }
  db.exec('COMMIT')
  seeded = size
}

async function get(path) {
  const headers = apiAuthHeaders(shop, { method: 'GET', path, body: '' }, Date.now())
  const response = await app.inject({ method: 'GET', url: path, headers })
  if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode} ${response.body}`)
  return JSON.parse(response.body)
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function row(size, kind, path) {
  for (let i = 0; i < 50; i++) await get(path) // warm up
  const latencies = []
  const began = process.hrtime.bigint()
  for (let i = 0; i < pagesPerRow; i++) {
    const t0 = process.hrtime.bigint()
    const page = await get(path)
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6)
    if (page.data.length !== 20) throw new Error(`${path}: a page of ${page.data.length}`)
  }
  const seconds = Number(process.hrtime.bigint() - began) / 1e9
  latencies.sort((a, b) => a - b)
  return {
    payments: size,
    page: kind,
    pagesPerSecond: Math.round(pagesPerRow / seconds),
    p50ms: percentile(latencies, 50).toFixed(2),
    p99ms: percentile(latencies, 99).toFixed(2),
  }
}

try {
  const rows = []
  for (const size of sizes) {
    const seedStart = Date.now()
    await seedUpTo(size)
    process.stderr.write(`${size} payments seeded in ${Date.now() - seedStart} ms\n`)
    // the cursor of a page halfway down the merchant's list
    let cursor = null
    const halfway = Math.floor((size * 0.9) / 2 / 100)
    for (let page = 0; page < halfway; page++) {
      cursor = (await get(`${PATH}?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).nextCursor
    }
    rows.push(await row(size, 'first page', `${PATH}?limit=20`))
    rows.push(await row(size, 'halfway (cursor)', `${PATH}?limit=20&cursor=${cursor}`))
    rows.push(await row(size, 'status=confirmed', `${PATH}?limit=20&status=confirmed`))
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${loadavg()[0].toFixed(2)}`
  console.log(`GET /payments on standalone's SQLite store, ${new Date().toISOString()}, ${machine}`)
  console.log(`${pagesPerRow} pages of 20 per row, one at a time, gateway app in process (no socket)\n`)
  console.log('| payments in the store | page | pages/s | p50 | p99 |')
  console.log('| ---: | --- | ---: | ---: | ---: |')
  for (const r of rows) {
    console.log(
      `| ${r.payments.toLocaleString('en')} | ${r.page} | ${r.pagesPerSecond} | ${r.p50ms} ms | ${r.p99ms} ms |`,
    )
  }
} finally {
  await app.close()
  db.close()
  rmSync(scratch, { recursive: true, force: true })
}
