// The five deployables' builds as an operator starts them, with a configuration they cannot run
// with: each says what is wrong and exits, before it connects to anything (no servers needed).
// Their clean stop on SIGTERM is at the end of distributed-flow.e2e.test.ts, on a running cluster.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runToExit } from '@chainpay/service-kit/testing'
import { afterAll, describe, expect, it } from 'vitest'
import { mainScriptOf, type ServiceName } from './cluster-plan.js'

const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-deployables-'))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe('a deployable with a bad configuration', () => {
  it.concurrent.each<[ServiceName, string]>([
    ['payment-command', 'TRON_ACCOUNT_XPUB and SOLANA_SEED: required'],
    ['gateway', 'PAYMENT_COMMAND_URL: required'],
    ['chain-indexer', 'CHAIN_MODE: required'],
    ['projection', "HEALTH_PORT: expected an integer between 1 and 65535, got 'none'"],
    ['notifier', 'CHAINPAY_ENCRYPTION_KEY: required'],
  ])('%s says what is wrong and exits with 1, without a stack trace', async (name, problem) => {
    const { code, stdout, stderr } = await runToExit(mainScriptOf(name), {
      DATA_DIR: dataDir,
      HEALTH_PORT: 'none',
    })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`chainpay ${name} cannot start: invalid configuration:\n`)
    expect(stderr).toContain(`  - ${problem}`)
    expect(stderr).not.toMatch(/^\s+at /m)
  })
})

describe('a deployable whose internal API would listen off loopback without its token', () => {
  it.concurrent.each<[ServiceName, Record<string, string>, string[]]>([
    [
      'payment-command',
      { HOST: '0.0.0.0', METRICS_HOST: '0.0.0.0' },
      [
        'METRICS_TOKEN: required because METRICS_HOST (0.0.0.0)',
        'COMMAND_API_TOKEN: required because HOST (0.0.0.0)',
      ],
    ],
    ['projection', { METRICS_HOST: '10.0.0.7' }, ['METRICS_TOKEN: required because METRICS_HOST (10.0.0.7)']],
    ['chain-indexer', { METRICS_HOST: '::' }, ['METRICS_TOKEN: required because METRICS_HOST (::)']],
    ['notifier', { METRICS_HOST: '0.0.0.0' }, ['METRICS_TOKEN: required because METRICS_HOST (0.0.0.0)']],
    [
      'gateway',
      { METRICS_HOST: '0.0.0.0', PAYMENT_COMMAND_URL: 'http://payment-command.internal:8090' },
      [
        'METRICS_TOKEN: required because METRICS_HOST (0.0.0.0)',
        'COMMAND_API_TOKEN: required because PAYMENT_COMMAND_URL (payment-command.internal)',
      ],
    ],
  ])('%s refuses to start: %o', async (name, env, problems) => {
    const { code, stdout, stderr } = await runToExit(mainScriptOf(name), { DATA_DIR: dataDir, ...env })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain(`chainpay ${name} cannot start: invalid configuration:\n`)
    for (const problem of problems) expect(stderr).toContain(`  - ${problem}`)
  })
})
