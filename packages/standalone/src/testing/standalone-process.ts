// Runs the real standalone build as a child process, the way an operator runs it, so end-to-end
// tests exercise start-up, first-start files, restarts and kill -9 exactly as they happen.

import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, nodeProcess } from '@chainpay/service-kit/testing'

// the deployable's build, as an operator runs it (services/standalone)
const mainScript = fileURLToPath(new URL('../../../../services/standalone/dist/main.js', import.meta.url))

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
  /** where /metrics is (METRICS_PORT) */
  readonly metricsUrl: string
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
  metricsPort?: number
  env?: Record<string, string>
}

/** the credentials standalone wrote on its first start */
export function readDemoMerchant(dataDir: string): DemoMerchant {
  return JSON.parse(readFileSync(join(dataDir, 'demo-merchant.json'), 'utf8')) as DemoMerchant
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
  // never the default 9464: tests run side by side
  const metricsPort = options.metricsPort ?? (await freePort())
  const baseUrl = `http://127.0.0.1:${port}`
  const standalone = nodeProcess({
    name: 'standalone',
    mainScript,
    env: {
      ...process.env,
      // the simulator's block intervals: with real chains (CHAIN_MODE=rpc) there is no simulator
      ...(options.env?.CHAIN_MODE === 'rpc' ? {} : fastChainEnv),
      PORT: String(port),
      ADMIN_PORT: String(adminPort),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    readyUrl: `${baseUrl}/readyz`,
  })
  await standalone.start()
  const readJson = <T>(file: string) => JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as T
  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/merchant/v1`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    dataDir,
    output: standalone.output,
    demoMerchant: () => readDemoMerchant(dataDir),
    adminToken: () => readJson<{ adminToken: string }>('standalone-secrets.json').adminToken,
    stop: standalone.stop,
    kill: standalone.kill,
  }
}
