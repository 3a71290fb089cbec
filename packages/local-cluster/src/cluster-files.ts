// The files scripts/up keeps in DATA_DIR: its secrets, the development wallet and the demo merchant,
// in the same shapes standalone writes, so that a merchant's code reads either the same way.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  ensurePrivateDirectory,
  generateAdminToken,
  generateSecretKey,
  randomToken,
  restrictToOwner,
  writePrivateFileAtomically,
} from '@chainpay/platform'
import { createDevelopmentWallet } from '@chainpay/wallet'
import type { ClusterSecrets } from './cluster-plan.js'

export interface DemoMerchantFile {
  merchantId: string
  apiKey: string
  apiSecret: string
  webhookSecret: string
}

export const clusterFiles = {
  secrets: 'cluster-secrets.json',
  wallet: 'dev-wallet.json',
  demoMerchant: 'demo-merchant.json',
} as const

/** every file here holds secrets: owner-only (0600), also when an earlier version wrote it wider */
function readJson<T>(path: string): T | null {
  if (!existsSync(path)) return null
  restrictToOwner(path)
  return JSON.parse(readFileSync(path, 'utf8')) as T
}

/** the data directory is the owner's alone (0700), as standalone's is */
export function ensureClusterSecrets(dataDir: string): ClusterSecrets {
  ensurePrivateDirectory(dataDir)
  const path = join(dataDir, clusterFiles.secrets)
  const stored = readJson<Partial<ClusterSecrets>>(path)
  if (stored?.encryptionKey && stored.adminToken && stored.commandApiToken) return stored as ClusterSecrets
  // a DATA_DIR of an older scripts/up keeps its key and token, and gets what it lacks
  const secrets: ClusterSecrets = {
    encryptionKey: stored?.encryptionKey ?? generateSecretKey(),
    adminToken: stored?.adminToken ?? generateAdminToken(),
    commandApiToken: stored?.commandApiToken ?? randomToken('cmd', 32),
  }
  writePrivateFileAtomically(path, `${JSON.stringify(secrets, null, 2)}\n`)
  return secrets
}

/** the development wallet's path, created on the first call */
export function ensureClusterWallet(dataDir: string): string {
  const path = join(dataDir, clusterFiles.wallet)
  if (!existsSync(path)) {
    const note = 'Development wallet created by chainpay scripts/up for the chain simulator. Never fund it.'
    writePrivateFileAtomically(path, `${JSON.stringify({ note, ...createDevelopmentWallet() }, null, 2)}\n`)
  }
  return path
}

export function readDemoMerchant(dataDir: string): DemoMerchantFile | null {
  return readJson<DemoMerchantFile>(join(dataDir, clusterFiles.demoMerchant))
}

export function writeDemoMerchant(dataDir: string, merchant: DemoMerchantFile): void {
  const { merchantId, apiKey, apiSecret, webhookSecret } = merchant
  writePrivateFileAtomically(
    join(dataDir, clusterFiles.demoMerchant),
    `${JSON.stringify({ merchantId, apiKey, apiSecret, webhookSecret }, null, 2)}\n`,
  )
}
