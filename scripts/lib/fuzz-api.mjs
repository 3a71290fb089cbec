// scripts/fuzz-api: schemathesis against the merchant API that standalone serves, every request
// signed with the demo merchant's key (scripts/lib/signing-proxy.mjs), checking that no generated
// request, valid or not, gets a 5xx. docs/security.md records the last run.
//
// FUZZ_MAX_EXAMPLES (default 200) cases per operation and phase; FUZZ_SCHEMATHESIS is the `st`
// executable (scripts/fuzz-api installs a pinned one).
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
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
try {
  const args = [
    'run',
    `${proxy.url}/api/merchant/v1/openapi.json`,
    '--url',
    `${proxy.url}/api/merchant/v1`,
    '--checks',
    'not_a_server_error',
    '--max-examples',
    maxExamples,
    '--phases',
    'examples,coverage,fuzzing,stateful',
    '--workers',
    '2',
    '--seed',
    process.env.FUZZ_SEED ?? '1',
    '--report',
    'junit',
    '--report-dir',
    report,
  ]
  process.stdout.write(`${schemathesis} ${args.join(' ')}\n`)
  exitCode = await new Promise((resolve, reject) => {
    // in the run's own directory: schemathesis keeps a cache where it runs
    const child = spawn(schemathesis, args, { stdio: 'inherit', cwd: standalone.dataDir })
    child.on('error', reject)
    child.on('exit', (code) => resolve(code ?? 1))
  })
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
