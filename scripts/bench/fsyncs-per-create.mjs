// fsyncs per create on standalone (docs/capacity.md, "Commits per create"): strace counts the
// process's fsync and fdatasync calls while it is idle (5 s), then while it answers 50 creates one at a
// time and 320 with 16 in flight, each set followed by 3 s for its consumers; prints the calls per
// create net of the idle rate. Not a test: it asserts nothing. Needs strace; run after a build
// (`pnpm exec tsc -b`) as `node scripts/bench/fsyncs-per-create.mjs` from the repository root.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { apiAuthHeaders } from '../../packages/signing/dist/index.js'

const dataDir = mkdtempSync(join(tmpdir(), 'fsync-'))
const trace = join(dataDir, 'strace.txt')
const port = 21000 + Math.floor(Math.random() * 1000)
const child = spawn(
  'strace',
  [
    '-f',
    '-qq',
    '--seccomp-bpf',
    '-e',
    'trace=fsync,fdatasync',
    '-ttt',
    '-o',
    trace,
    process.execPath,
    'services/standalone/dist/main.js',
  ],
  {
    env: {
      ...process.env,
      PORT: String(port),
      ADMIN_PORT: String(port + 1),
      METRICS_PORT: String(port + 2),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '100000000',
      ...(process.env.POOL ? { ADDRESS_POOL_SIZE: process.env.POOL } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  },
)
const base = `http://127.0.0.1:${port}`
for (;;) {
  try {
    if ((await fetch(`${base}/readyz`)).ok) break
  } catch {}
  await sleep(100)
}
const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8'))
await sleep(5000)
const count = (from, to) =>
  readFileSync(trace, 'utf8')
    .split('\n')
    .filter((l) => /fsync|fdatasync/.test(l) && !/resumed/.test(l))
    .map((l) => Number(l.split(/\s+/)[1]))
    .filter((t) => t >= from && t < to).length
const t0 = Date.now() / 1000
await sleep(5000)
const t1 = Date.now() / 1000
const idleRate = count(t0, t1) / (t1 - t0)
const create = async () => {
  const path = '/api/merchant/v1/payments'
  const body = JSON.stringify({ amount: '10.5', currency: 'USDT', network: 'TRON' })
  const headers = apiAuthHeaders(credentials, { method: 'POST', path, body }, Date.now())
  headers['content-type'] = 'application/json'
  const r = await fetch(base + path, { method: 'POST', body, headers })
  if (r.status !== 201) throw new Error(String(r.status))
  await r.text()
}
for (const [label, inFlight, total] of [
  ['one at a time', 1, 50],
  ['16 in flight', 16, 320],
]) {
  const from = Date.now() / 1000
  let left = total
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (left-- > 0) await create()
    }),
  )
  await sleep(3000) // the consumers catch up
  const to = Date.now() / 1000
  const net = count(from, to) - idleRate * (to - from)
  console.log(
    `${label}: ${total} creates, ${(net / total).toFixed(2)} fsyncs per create net of ${idleRate.toFixed(1)}/s idle`,
  )
}
child.kill('SIGTERM')
await new Promise((r) => child.once('exit', r))
