// scripts/fuzz-api: schemathesis against the merchant API that standalone serves, every request
// signed with the demo merchant's key (scripts/lib/signing-proxy.mjs), then against the customer's
// page (the document's `checkout` tag, public, at the origin's root, with a real payment's token),
// checking that no generated request, valid or not, gets a 5xx. docs/security.md records the last run.
//
// FUZZ_MAX_EXAMPLES (default 200) cases per operation and phase; FUZZ_SCHEMATHESIS is the `st`
// executable (scripts/fuzz-api installs a pinned one).
import { spawn } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startStandalone } from '../../packages/standalone/dist/testing/standalone-process.js'
import { startSigningProxy } from './signing-proxy.mjs'

const schemathesis = process.env.FUZZ_SCHEMATHESIS ?? 'st'
const maxExamples = process.env.FUZZ_MAX_EXAMPLES ?? '200'

const standalone = await startStandalone({
  // so that the per-key limit does not turn most cases into 429s
  env: { RATE_LIMIT_MAX: '1000000', LOG_LEVEL: 'error' },
})
const proxy = await startSigningProxy(standalone.baseUrl, standalone.demoMerchant())
const report = join(standalone.dataDir, 'schemathesis')
let exitCode = 1
/** one schemathesis run; its exit code */
const runSchemathesis = (args) => {
  process.stdout.write(`${schemathesis} ${args.join(' ')}\n`)
  return new Promise((resolve, reject) => {
    // in the run's own directory: schemathesis keeps a cache where it runs
    const child = spawn(schemathesis, args, { stdio: 'inherit', cwd: standalone.dataDir })
    child.on('error', reject)
    child.on('exit', (code) => resolve(code ?? 1))
  })
}
const common = [
  '--checks',
  'not_a_server_error',
  '--max-examples',
  maxExamples,
  '--workers',
  '2',
  '--seed',
  process.env.FUZZ_SEED ?? '1',
  '--report',
  'junit',
]
try {
  // the merchant API, signed, under /api/merchant/v1
  const merchantApi = await runSchemathesis([
    'run',
    `${proxy.url}/api/merchant/v1/openapi.json`,
    '--url',
    `${proxy.url}/api/merchant/v1`,
    '--exclude-tag',
    'checkout',
    '--phases',
    'examples,coverage,fuzzing,stateful',
    ...common,
    '--report-dir',
    join(report, 'merchant-api'),
  ])
  // the customer's page (tag checkout): public, at the origin's root (/pay/..., /favicon.ico), with
  // the token of a real payment so that the cases reach the pages rather than the 404
  const created = await fetch(`${proxy.url}/api/merchant/v1/payments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      amount: '10',
      currency: 'USDT',
      network: 'TRON',
      description: 'fuzz',
      cancelRedirectUrl: 'https://shop.example/cart',
    }),
  })
  if (created.status !== 201)
    throw new Error(`creating the checkout's payment: ${created.status} ${await created.text()}`)
  const token = new URL((await created.json()).checkoutUrl).pathname.split('/')[2]
  const config = join(standalone.dataDir, 'schemathesis-checkout.toml')
  writeFileSync(config, `[parameters]\n"path.token" = "${token}"\n`)
  const checkout = await runSchemathesis([
    '--config-file',
    config,
    'run',
    `${standalone.baseUrl}/api/merchant/v1/openapi.json`,
    '--url',
    standalone.baseUrl,
    '--include-tag',
    'checkout',
    '--phases',
    'examples,coverage,fuzzing',
    ...common,
    '--report-dir',
    join(report, 'checkout'),
  ])
  exitCode = merchantApi || checkout
  const errors = standalone
    .output()
    .split('\n')
    .filter((line) => line.includes('"level":"error"') || line.includes('"level":"fatal"'))
  process.stdout.write(`standalone logged ${errors.length} error-level lines\n`)
  for (const line of errors.slice(0, 20)) process.stdout.write(`  ${line}\n`)
  if (errors.length > 0) exitCode = exitCode || 1
} finally {
  await proxy.close()
  await standalone.stop()
  rmSync(standalone.dataDir, { recursive: true, force: true })
}
process.exit(exitCode)
