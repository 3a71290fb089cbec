import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { apiAuthHeaders } from '/work/wt-perf/packages/signing/dist/index.js'

const root = '/work/wt-perf'
const dataDir = mkdtempSync(join(tmpdir(), 'prof-'))
const port = 20000 + Math.floor(Math.random() * 1000)
const args = process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof/out'] : []
const child = spawn(process.execPath, [...args, join(root, 'services/standalone/dist/main.js')], {
  env: {
    ...process.env,
    PORT: String(port),
    ADMIN_PORT: String(port + 1),
    METRICS_PORT: String(port + 2),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '100000000',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
})
const base = `http://127.0.0.1:${port}`
for (;;) {
  try {
    if ((await fetch(base + '/readyz')).ok) break
  } catch {}
  await new Promise((r) => setTimeout(r, 100))
}
const credentials = JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8'))
let n = 0
const result = await autocannon({
  url: base,
  connections: 16,
  duration: Number(process.env.SECS ?? 5),
  requests: [
    {
      setupRequest: (r) => {
        const path = '/api/merchant/v1/payments'
        const body = JSON.stringify({
          amount: '10.5',
          currency: process.env.CUR ?? 'USDT',
          network: process.env.NET ?? 'TRON',
          idempotencyKey: `p-${n++}`,
        })
        const headers = apiAuthHeaders(credentials, { method: 'POST', path, body }, Date.now())
        headers['content-type'] = 'application/json'
        return { ...r, method: 'POST', path, body, headers }
      },
    },
  ],
})
console.log(
  'creates/s',
  Math.round(result['2xx'] / result.duration),
  'p50',
  result.latency.p50,
  'p99',
  result.latency.p99,
  'non2xx',
  result.non2xx,
)
child.kill('SIGTERM')
await new Promise((r) => child.once('exit', r))
