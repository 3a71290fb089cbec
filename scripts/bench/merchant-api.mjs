// Merchant API benchmark on standalone: create and GET throughput with p50/p99 latency, and in the
// same run the ceiling (a bare fastify route with only the HMAC check). Prints figures and the
// markdown rows for docs/benchmarks.md. Not a test: it asserts nothing.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { freeLoopbackPort } from '../../packages/local-servers/dist/ports.js'
import { apiAuthHeaders } from '../../packages/signing/dist/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const duration = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
// BENCH_ROWS=create: only the POST rows (the ceiling's and standalone's), for comparing settings
// that only writes feel, such as SQLITE_SYNCHRONOUS
const onlyCreates = process.env.BENCH_ROWS === 'create'
// passed on to standalone like every variable of this process; its default when unset
const synchronous = process.env.SQLITE_SYNCHRONOUS || 'FULL'
// the confirmation → webhook phase: payments paid one at a time, on a standalone of its own whose
// simulated TRON makes a block every BENCH_TRON_BLOCK_MS (as run-distributed's); 0 payments: none
const webhookPayments = Number(process.env.BENCH_WEBHOOK_PAYMENTS ?? 50)
const tronBlockMs = Number(process.env.BENCH_TRON_BLOCK_MS ?? 50)
// the API rows' standalone makes its simulated blocks at mainnet's rates (a TRON block every 3 s, a
// Solana slot every 400 ms), as the chains it will watch do; BENCH_BLOCK_RATES=development keeps
// standalone's own faster ones (TRON 300 ms, Solana 200 ms: each block a write and an fsync of the
// simulator's on the thread that answers the API)
const blockRates = process.env.BENCH_BLOCK_RATES === 'development' ? 'development' : 'mainnet'
const blockIntervals =
  blockRates === 'mainnet' ? { TRON_BLOCK_INTERVAL_MS: '3000', SOLANA_BLOCK_INTERVAL_MS: '400' } : {}
/** TRON's required confirmations (the asset registry's default) */
const TRON_REQUIRED = 20

/**
 * A process the benchmark needs: its last lines of stderr are kept, and `died` rejects, naming them,
 * if it exits before the benchmark stops it (a port taken, a crash), so that the run ends with why.
 */
function startProcess(name, script, env) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lastLines = []
  child.stderr.setEncoding('utf8').on('data', (text) => {
    lastLines.push(...text.split('\n').filter(Boolean))
    lastLines.splice(0, Math.max(0, lastLines.length - 30))
  })
  let stopping = false
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  const died = exited.then(({ code, signal }) => {
    if (stopping) return new Promise(() => {})
    throw new Error(
      `${name} exited (${signal ?? `code ${code}`}) before the benchmark ended; its last lines:\n${lastLines.join('\n')}`,
    )
  })
  // observed here, so that an early death is reported where it is awaited, not as unhandled
  died.catch(() => {})
  return {
    child,
    died,
    async stop() {
      stopping = true
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** `work`, or the death of any of `processes` first */
function whileAlive(processes, work) {
  return Promise.race([work, ...processes.map((started) => started.died)])
}

async function waitFor(url) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`not ready: ${url}`)
}

function signed(credentials, method, path, body = '') {
  const headers = apiAuthHeaders(credentials, { method, path, body }, Date.now())
  if (body) headers['content-type'] = 'application/json'
  return headers
}

async function load(title, url, requestFactory) {
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [{ setupRequest: (request) => ({ ...request, ...requestFactory() }) }],
  })
  const ok = result['2xx']
  const summary = {
    title,
    requests: result.requests.total,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    rps: Math.round(ok / duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
  }
  process.stdout.write(
    `${title}: ${summary.rps} req/s (2xx), p50 ${summary.p50} ms, p99 ${summary.p99} ms, non-2xx ${summary.non2xx}, errors ${summary.errors}\n`,
  )
  return summary
}

function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
  return { p50: at(50), p99: at(99) }
}

/** a local receiver of the payments' callbackUrl: when each payment.confirmed arrived */
async function startReceiver() {
  const confirmed = new Map()
  const server = createServer((request, response) => {
    const arrived = Date.now()
    const chunks = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      if (body.event === 'payment.confirmed' && !confirmed.has(body.payment.id))
        confirmed.set(body.payment.id, { arrived, txHash: body.payment.tx_hash })
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/webhooks`, confirmed, close: () => server.close() }
}

/**
 * From the block that gives a transfer its required confirmations (its time in the simulator's
 * tables, in standalone's SQLite file) to the payment.confirmed webhook at the receiver, one payment
 * at a time, split at payment-command's decision (confirmedAt), the notifier's record of the delivery
 * and the dispatcher's first attempt (webhook_deliveries, webhook_attempts).
 */
async function confirmationToWebhook() {
  const webhookDir = mkdtempSync(join(tmpdir(), 'chainpay-bench-webhooks-'))
  const [port, admin, metrics] = await Promise.all([1, 2, 3].map(() => freeLoopbackPort()))
  const fast = startProcess('standalone (webhook phase)', join(root, 'services/standalone/dist/main.js'), {
    PORT: String(port),
    ADMIN_PORT: String(admin),
    METRICS_PORT: String(metrics),
    HOST: '127.0.0.1',
    DATA_DIR: webhookDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
    TRON_BLOCK_INTERVAL_MS: String(tronBlockMs),
  })
  const receiver = await startReceiver()
  const base = `http://127.0.0.1:${port}`
  try {
    return await whileAlive([fast], measure())
  } finally {
    receiver.close()
    await fast.stop()
    rmSync(webhookDir, { recursive: true, force: true })
  }

  async function measure() {
    await waitFor(`${base}/readyz`)
    const credentials = JSON.parse(readFileSync(join(webhookDir, 'demo-merchant.json'), 'utf8'))
    const payments = []
    for (let i = 0; i < webhookPayments; i++) {
      const path = '/api/merchant/v1/payments'
      const body = JSON.stringify({
        amount: '10.5',
        currency: 'USDT',
        network: 'TRON',
        callbackUrl: receiver.url,
      })
      const res = await fetch(base + path, {
        method: 'POST',
        body,
        headers: signed(credentials, 'POST', path, body),
      })
      if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`)
      payments.push(await res.json())
    }
    const txHashes = new Map()
    for (const payment of payments) {
      const response = await fetch(`${base}/dev/chains/TRON/transfers`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ to: payment.generatedAddress, amount: payment.amount, currency: 'USDT' }),
      })
      if (response.status !== 201)
        throw new Error(`transfer answered ${response.status}: ${await response.text()}`)
      txHashes.set(payment.paymentId, (await response.json()).txHash)
      const deadline = Date.now() + 60_000
      while (!receiver.confirmed.has(payment.paymentId)) {
        if (Date.now() > deadline) throw new Error(`no payment.confirmed webhook for ${payment.paymentId}`)
        await sleep(5)
      }
    }
    const db = new DatabaseSync(join(webhookDir, 'chainpay.sqlite'), { readOnly: true })
    try {
      const heightOf = db.prepare(
        "SELECT block_height FROM sim_transfers WHERE network = 'TRON' AND tx_hash = ? LIMIT 1",
      )
      const timeOf = db.prepare("SELECT time FROM sim_blocks WHERE network = 'TRON' AND height = ?")
      const deliveryOf = db.prepare(
        "SELECT delivery_id, created_at FROM webhook_deliveries WHERE payment_id = ? AND event_type = 'payment.confirmed'",
      )
      const firstAttemptOf = db.prepare(
        'SELECT at FROM webhook_attempts WHERE delivery_id = ? AND attempt = 1',
      )
      const legs = {
        total: [],
        toDecision: [],
        decisionToRecorded: [],
        recordedToAttempt: [],
        attemptToWebhook: [],
      }
      for (const payment of payments) {
        const txHash = txHashes.get(payment.paymentId)
        const webhook = receiver.confirmed.get(payment.paymentId)
        if (webhook.txHash !== txHash)
          throw new Error(`webhook of ${payment.paymentId} names ${webhook.txHash}`)
        const height = Number(heightOf.get(txHash).block_height)
        const finalBlockAt = Date.parse(timeOf.get(height + TRON_REQUIRED - 1).time)
        const path = `/api/merchant/v1/payments/${payment.paymentId}`
        const read = await (await fetch(base + path, { headers: signed(credentials, 'GET', path) })).json()
        const decidedAt = Date.parse(read.confirmedAt)
        const delivery = deliveryOf.get(payment.paymentId)
        const recordedAt = Date.parse(delivery.created_at)
        const attemptAt = Date.parse(firstAttemptOf.get(delivery.delivery_id).at)
        legs.total.push(webhook.arrived - finalBlockAt)
        legs.toDecision.push(decidedAt - finalBlockAt)
        legs.decisionToRecorded.push(recordedAt - decidedAt)
        legs.recordedToAttempt.push(attemptAt - recordedAt)
        legs.attemptToWebhook.push(webhook.arrived - attemptAt)
      }
      return Object.fromEntries(Object.entries(legs).map(([leg, samples]) => [leg, percentiles(samples)]))
    } finally {
      db.close()
    }
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-bench-'))
// every port the benchmark's processes listen on is a free one, so that it runs beside anything else
const [standalonePort, adminPort, metricsPort] = await Promise.all([1, 2, 3].map(() => freeLoopbackPort()))
const standalone = startProcess('standalone', join(root, 'services/standalone/dist/main.js'), {
  PORT: String(standalonePort),
  ADMIN_PORT: String(adminPort),
  METRICS_PORT: String(metricsPort),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '100000000',
  // the load generator is one address: BENCH_CONNECTIONS above 100 would meet the cap per address
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1000',
  ...blockIntervals,
  // BENCH_CPU_PROFILE_DIR: standalone writes a V8 CPU profile of its run there (summarise a row's
  // window with scripts/bench/cpu-profile-summary.mjs)
  ...(process.env.BENCH_CPU_PROFILE_DIR
    ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir="${process.env.BENCH_CPU_PROFILE_DIR}"` }
    : {}),
})
const base = `http://127.0.0.1:${standalonePort}`
let ceiling
let exitCode = 0
try {
  await whileAlive([standalone], waitFor(`${base}/readyz`))
  const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8'))

  ceiling = startProcess('the ceiling server', join(root, 'scripts/bench/ceiling-server.mjs'), {
    PORT: '0',
    BENCH_CREDENTIALS: JSON.stringify(credentials),
  })
  const ceilingPort = await whileAlive(
    [ceiling],
    new Promise((resolve) => ceiling.child.stdout.once('data', (d) => resolve(JSON.parse(String(d)).port))),
  )
  const ceilingBase = `http://127.0.0.1:${ceilingPort}`
  const needed = [standalone, ceiling]

  // payments to read back
  const ids = []
  for (let i = 0; i < 200; i++) {
    const path = '/api/merchant/v1/payments'
    const body = JSON.stringify({ amount: '10.5', currency: 'USDT', network: 'TRON' })
    const res = await fetch(base + path, {
      method: 'POST',
      body,
      headers: signed(credentials, 'POST', path, body),
    })
    if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`)
    ids.push((await res.json()).paymentId)
  }
  let n = 0
  const getRequest = () => {
    const path = `/api/merchant/v1/payments/${ids[n++ % ids.length]}`
    return { method: 'GET', path, headers: signed(credentials, 'GET', path) }
  }
  const createRequest = () => {
    const path = '/api/merchant/v1/payments'
    const body = JSON.stringify({
      amount: '10.5',
      currency: 'USDT',
      network: 'TRON',
      idempotencyKey: `bench-${process.pid}-${n++}`,
    })
    return { method: 'POST', path, body, headers: signed(credentials, 'POST', path, body) }
  }

  const measure = (title, url, requestFactory) => whileAlive(needed, load(title, url, requestFactory))
  const ceilingGet = onlyCreates
    ? null
    : await measure('ceiling GET (HMAC check only)', ceilingBase, getRequest)
  const get = onlyCreates ? null : await measure('standalone GET /payments/:id', base, getRequest)
  const ceilingPost = await measure('ceiling POST (HMAC check only)', ceilingBase, createRequest)
  const create = await measure('standalone POST /payments', base, createRequest)
  await ceiling.stop()
  await standalone.stop()
  const webhook = webhookPayments > 0 ? await confirmationToWebhook() : null

  const ratio = (a, b) => `${Math.round((a.rps / b.rps) * 100)} %`
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  process.stdout.write(
    `\nmachine: ${machine}; load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(
        ' ',
      )}; date: ${new Date().toISOString().slice(0, 10)}; ${connections} connections, ${duration} s each; SQLITE_SYNCHRONOUS=${synchronous}; simulated blocks at ${blockRates} rates\n\n`,
  )
  process.stdout.write('| run | req/s | p50 ms | p99 ms | vs ceiling |\n|---|---|---|---|---|\n')
  const rows = [
    ...(ceilingGet && get
      ? [
          [ceilingGet, ceilingGet],
          [get, ceilingGet],
        ]
      : []),
    [ceilingPost, ceilingPost],
    [create, ceilingPost],
  ]
  for (const [row, ceil] of rows) {
    process.stdout.write(`| ${row.title} | ${row.rps} | ${row.p50} | ${row.p99} | ${ratio(row, ceil)} |\n`)
  }
  if (webhook !== null) {
    const labels = {
      total: `confirmation block → payment.confirmed webhook (${webhookPayments} payments, TRON blocks every ${tronBlockMs} ms)`,
      toDecision: "… of which block → payment-command's decision",
      decisionToRecorded: '… of which decision → the notifier recorded the delivery',
      recordedToAttempt: "… of which recorded → the dispatcher's attempt began",
      attemptToWebhook: '… of which attempt began → webhook arrival',
    }
    process.stdout.write('\n| path | p50 ms | p99 ms |\n|---|---|---|\n')
    for (const [leg, label] of Object.entries(labels))
      process.stdout.write(`| ${label} | ${webhook[leg].p50} | ${webhook[leg].p99} |\n`)
  }
} catch (error) {
  exitCode = 1
  process.stderr.write(`merchant API benchmark failed: ${error instanceof Error ? error.message : error}\n`)
} finally {
  await ceiling?.stop()
  await standalone.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
process.exit(exitCode)
