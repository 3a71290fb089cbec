// What standalone creates on its first start and reuses afterwards: its secrets, a development
// wallet and a demo merchant, each in a file of the data directory.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateAdminToken, generateSecretKey } from '@chainpay/platform'
import { createDevelopmentWallet, type DevelopmentWallet } from '@chainpay/wallet'

export interface StandaloneSecrets {
  encryptionKey: string
  adminToken: string
}

export interface DemoMerchantFile {
  merchantId: string
  apiKey: string
  apiSecret: string
  webhookSecret: string
}

export const dataFiles = {
  database: 'chainpay.sqlite',
  secrets: 'standalone-secrets.json',
  wallet: 'dev-wallet.json',
  demoMerchant: 'demo-merchant.json',
} as const

/** writes through a temporary file and a rename, so a crash never leaves half a file */
export function writeFileAtomically(path: string, content: string): void {
  const temporary = `${path}.tmp-${process.pid}`
  writeFileSync(temporary, content, { mode: 0o600 })
  renameSync(temporary, path)
}

function readJsonFile<T>(path: string): T | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null
}

export function ensureSecrets(
  dataDir: string,
  overrides: Partial<StandaloneSecrets>,
): { secrets: StandaloneSecrets; created: boolean } {
  const path = join(dataDir, dataFiles.secrets)
  const stored = readJsonFile<StandaloneSecrets>(path)
  const secrets: StandaloneSecrets = stored ?? {
    encryptionKey: generateSecretKey(),
    adminToken: generateAdminToken(),
  }
  if (!stored) writeFileAtomically(path, `${JSON.stringify(secrets, null, 2)}\n`)
  return {
    secrets: {
      encryptionKey: overrides.encryptionKey ?? secrets.encryptionKey,
      adminToken: overrides.adminToken ?? secrets.adminToken,
    },
    created: !stored,
  }
}

export function ensureDevelopmentWallet(dataDir: string): { wallet: DevelopmentWallet; created: boolean } {
  const path = join(dataDir, dataFiles.wallet)
  const stored = readJsonFile<DevelopmentWallet>(path)
  if (stored) return { wallet: stored, created: false }
  const wallet = createDevelopmentWallet()
  const note = 'Development wallet created by chainpay standalone for the chain simulator. Never fund it.'
  writeFileAtomically(path, `${JSON.stringify({ note, ...wallet }, null, 2)}\n`)
  return { wallet, created: true }
}

export function readDemoMerchant(dataDir: string): DemoMerchantFile | null {
  return readJsonFile<DemoMerchantFile>(join(dataDir, dataFiles.demoMerchant))
}

export function writeDemoMerchant(dataDir: string, merchant: DemoMerchantFile): void {
  const { merchantId, apiKey, apiSecret, webhookSecret } = merchant
  writeFileAtomically(
    join(dataDir, dataFiles.demoMerchant),
    `${JSON.stringify({ merchantId, apiKey, apiSecret, webhookSecret }, null, 2)}\n`,
  )
}
