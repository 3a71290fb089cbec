// Merchant API benchmark on standalone: create and GET throughput with p50/p99 latency, and in the
// same run the ceiling (a bare fastify route with only the HMAC check). Prints figures and the
// markdown rows for docs/benchmarks.md. Not a test: it asserts nothing.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { apiAuthHeaders } from '../../packages/signing/dist/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const duration = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
// BENCH_ROWS=create: only the POST rows (the ceiling's and standalone's), for comparing settings
// that only writes feel, such as SQLITE_SYNCHRONOUS
const onlyCreates = process.env.BENCH_ROWS === 'create'
// passed on to standalone like every variable of this process; its default when unset
const synchronous = process.env.SQLITE_SYNCHRONOUS || 'FULL'

function startProcess(script, env) {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  return child
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

const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-bench-'))
const standalonePort = 18080 + Math.floor(Math.random() * 1000)
const standalone = startProcess(join(root, 'services/standalone/dist/main.js'), {
  PORT: String(standalonePort),
  ADMIN_PORT: String(standalonePort + 1000),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '100000000',
})
const base = `http://127.0.0.1:${standalonePort}`
try {
  await waitFor(`${base}/readyz`)
  const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8'))

  const ceiling = startProcess(join(root, 'scripts/bench/ceiling-server.mjs'), {
    PORT: '0',
    BENCH_CREDENTIALS: JSON.stringify(credentials),
  })
  const ceilingPort = await new Promise((resolve) =>
    ceiling.stdout.once('data', (d) => resolve(JSON.parse(String(d)).port)),
  )
  const ceilingBase = `http://127.0.0.1:${ceilingPort}`

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

  const ceilingGet = onlyCreates ? null : await load('ceiling GET (HMAC check only)', ceilingBase, getRequest)
  const get = onlyCreates ? null : await load('standalone GET /payments/:id', base, getRequest)
  const ceilingPost = await load('ceiling POST (HMAC check only)', ceilingBase, createRequest)
  const create = await load('standalone POST /payments', base, createRequest)
  ceiling.kill('SIGTERM')

  const ratio = (a, b) => `${Math.round((a.rps / b.rps) * 100)} %`
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  process.stdout.write(
    `\nmachine: ${machine}; load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(
        ' ',
      )}; date: ${new Date().toISOString().slice(0, 10)}; ${connections} connections, ${duration} s each; SQLITE_SYNCHRONOUS=${synchronous}\n\n`,
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
} finally {
  standalone.kill('SIGTERM')
  await new Promise((r) => standalone.once('exit', r))
  rmSync(dataDir, { recursive: true, force: true })
}
