// The operator's first day with the repository's scripts, run as an operator runs them: an instance
// on ports and a data directory of its own (not 8080, 8081, ./data), and scripts/admin and
// scripts/wallet started from the operator's directory with the same environment. They must find
// that instance (ADMIN_HOST, ADMIN_PORT), its admin token (DATA_DIR), and the files named relative to
// the caller's directory (docs/operations.md, "Standalone"; docs/treasury.md).

import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newDataDir, type StandaloneProcess, startStandalone } from './testing/standalone-process.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))

interface ScriptRun {
  code: number | null
  stdout: string
  stderr: string
}

/** scripts/<name> with `args`, from `cwd`, with the operator's environment plus `env` */
async function runScript(
  name: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<ScriptRun> {
  // whatever the test runner's environment holds about an admin API is not the operator's
  const { CHAINPAY_ADMIN_URL, CHAINPAY_ADMIN_TOKEN, DATA_DIR, ADMIN_PORT, ADMIN_HOST, ...inherited } =
    process.env
  const child = spawn(join(root, 'scripts', name), args, { cwd, env: { ...inherited, ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  return { code, stdout, stderr }
}

let operatorDir: string
let standalone: StandaloneProcess
/** the instance's own settings, as the operator exports them for scripts/start and the clients */
let instanceEnv: Record<string, string>

beforeAll(async () => {
  operatorDir = newDataDir()
  const dataDir = join(operatorDir, 'instance')
  mkdirSync(dataDir)
  // the admin API on every interface: warned about, and reached on loopback by the scripts
  standalone = await startStandalone({ dataDir, env: { ADMIN_HOST: '0.0.0.0', LOG_LEVEL: 'warn' } })
  const adminPort = new URL(standalone.adminUrl).port
  instanceEnv = { ADMIN_HOST: '0.0.0.0', ADMIN_PORT: adminPort, DATA_DIR: 'instance' }
})

afterAll(async () => {
  await standalone?.stop()
  rmSync(operatorDir, { recursive: true, force: true })
})

describe('standalone at start', () => {
  it('logs no error (no ECONNREFUSED from a watcher calling the port before it listens) and no [redacted] network', () => {
    const lines = standalone
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
    expect(lines.filter((line) => line.level === 'error' || line.level === 'fatal')).toEqual([])
    expect(standalone.output()).not.toContain('[redacted]')
  })

  it('warns that ADMIN_HOST=0.0.0.0 exposes the admin API beyond this machine, and says what to do', () => {
    const port = new URL(standalone.adminUrl).port
    expect(standalone.output()).toContain(
      `"msg":"the admin API listens on 0.0.0.0:${port} (ADMIN_HOST), reachable from other machines`,
    )
    expect(standalone.output()).toContain('Keep ADMIN_HOST=127.0.0.1')
  })
})

describe('scripts/admin', () => {
  it("finds the instance by ADMIN_HOST and ADMIN_PORT, and its admin token in DATA_DIR, taken from the caller's directory", async () => {
    const run = await runScript('admin', ['merchants', 'list'], operatorDir, instanceEnv)
    expect(run.stderr).not.toContain('error:')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`${standalone.demoMerchant().merchantId}  Demo merchant`)
  })

  it("reads a relative file argument from the caller's directory, not the repository's", async () => {
    const wallet = createDevelopmentWallet()
    writeFileSync(join(operatorDir, 'merchant-seed.hex'), wallet.solanaSeed, { mode: 0o600 })
    const { merchantId } = standalone.demoMerchant()
    const set = await runScript(
      'admin',
      [
        'merchants',
        'wallet',
        'set',
        merchantId,
        '--tron-xpub',
        wallet.tronAccountXpub,
        '--solana-seed-file',
        'merchant-seed.hex',
      ],
      operatorDir,
      instanceEnv,
    )
    expect(set.stderr).toBe('')
    expect(set.code).toBe(0)
    const shown = await runScript(
      'admin',
      ['merchants', 'wallet', 'show', merchantId],
      operatorDir,
      instanceEnv,
    )
    expect(shown.stdout).toContain(wallet.tronAccountXpub)
  })
})

describe('scripts/wallet', () => {
  it('plans against the same instance, with its token from DATA_DIR, writing --out in the caller’s directory', async () => {
    const run = await runScript(
      'wallet',
      [
        'plan',
        '--network',
        'TRON',
        '--treasury',
        'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
        '--treasury-external',
        '--rpc-url',
        `${standalone.baseUrl}/chains/TRON`,
        '--out',
        'tron.plan.json',
      ],
      operatorDir,
      instanceEnv,
    )
    expect(run.stderr).not.toContain('error:')
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('plan tron.plan.json:')
    expect(JSON.parse(readFileSync(join(operatorDir, 'tron.plan.json'), 'utf8'))).toMatchObject({
      network: 'TRON',
    })
  })
})

describe('scripts/start --help', () => {
  it('prints the usage and does nothing else: no instance, no data directory, no secrets', async () => {
    const run = await runScript('start', ['--help'], operatorDir, { DATA_DIR: 'never-created' })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('Usage: scripts/start')
    expect(existsSync(join(operatorDir, 'never-created'))).toBe(false)
  })
})
