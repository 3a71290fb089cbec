// Runs the real standalone build as a child process, the way an operator runs it, so end-to-end
// tests exercise start-up, first-start files, restarts and kill -9 exactly as they happen.

import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const mainScript = fileURLToPath(new URL('../../dist/main.js', import.meta.url))

export interface DemoMerchant {
  merchantId: string
  apiKey: string
  apiSecret: string
  webhookSecret: string
}

export interface StandaloneProcess {
  readonly baseUrl: string
  readonly apiUrl: string
  readonly adminUrl: string
  readonly dataDir: string
  readonly output: () => string
  demoMerchant(): DemoMerchant
  adminToken(): string
  /** SIGTERM and wait for exit */
  stop(): Promise<number | null>
  /** SIGKILL and wait for exit */
  kill(): Promise<void>
}

export interface StartOptions {
  dataDir?: string
  port?: number
  adminPort?: number
  env?: Record<string, string>
}

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export function newDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'chainpay-e2e-'))
}

/** Fast blocks for tests; the required confirmations stay the real ones (TRON 20, SOLANA 32). */
export const fastChainEnv = {
  TRON_BLOCK_INTERVAL_MS: '40',
  SOLANA_BLOCK_INTERVAL_MS: '30',
}

export async function startStandalone(options: StartOptions = {}): Promise<StandaloneProcess> {
  const dataDir = options.dataDir ?? newDataDir()
  const port = options.port ?? (await freePort())
  const adminPort = options.adminPort ?? (await freePort())
  let output = ''
  const child: ChildProcess = spawn(process.execPath, [mainScript], {
    env: {
      ...process.env,
      ...fastChainEnv,
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const baseUrl = `http://127.0.0.1:${port}`
  await waitUntilReady(`${baseUrl}/readyz`, exited, () => output)
  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/merchant/v1`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    dataDir,
    output: () => output,
    demoMerchant: () => JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8')) as DemoMerchant,
    adminToken: () =>
      (JSON.parse(readFileSync(join(dataDir, 'standalone-secrets.json'), 'utf8')) as { adminToken: string })
        .adminToken,
    async stop() {
      if (child.exitCode !== null) return child.exitCode
      child.kill('SIGTERM')
      return await exited
    },
    async kill() {
      if (child.exitCode !== null) return
      child.kill('SIGKILL')
      await exited
    },
  }
}

async function waitUntilReady(
  url: string,
  exited: Promise<number | null>,
  output: () => string,
): Promise<void> {
  let done = false
  void exited.then(() => {
    done = true
  })
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (done) throw new Error(`standalone exited before it was ready:\n${output()}`)
    try {
      const response = await fetch(url)
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`standalone was not ready within 60 s:\n${output()}`)
}
