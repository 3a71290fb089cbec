// What standalone creates on its first start and reuses afterwards: its secrets, a development
// wallet and a demo merchant, each in a file of the data directory.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  adminTokenProblem,
  generateAdminToken,
  generateSecretKey,
  secretKeyProblem,
} from '@chainpay/platform'
import { createDevelopmentWallet, type DevelopmentWallet } from '@chainpay/wallet'

export interface StandaloneSecrets {
  encryptionKey: string
  adminToken: string
  /**
   * keys that only open what they sealed, during a key rotation (docs/operations.md, "Rotating the
   * encryption key"); absent from the file as generated
   */
  previousEncryptionKeys?: string[]
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

/** the file's secrets, or the overrides, checked as the services check theirs (never repeating them) */
export function ensureSecrets(
  dataDir: string,
  overrides: Partial<StandaloneSecrets>,
): { secrets: StandaloneSecrets; created: boolean } {
  const path = join(dataDir, dataFiles.secrets)
  const stored = readJsonFile<StandaloneSecrets>(path)
  const generated: StandaloneSecrets = {
    encryptionKey: generateSecretKey(),
    adminToken: generateAdminToken(),
  }
  if (!stored) writeFileAtomically(path, `${JSON.stringify(generated, null, 2)}\n`)
  const file = stored ?? generated
  const secrets: StandaloneSecrets = {
    encryptionKey: overrides.encryptionKey ?? file.encryptionKey,
    adminToken: overrides.adminToken ?? file.adminToken,
    previousEncryptionKeys: [
      ...(file.previousEncryptionKeys ?? []),
      ...(overrides.previousEncryptionKeys ?? []),
    ],
  }
  checkStoredSecrets(path, file, secrets)
  return { secrets, created: !stored }
}

/** what the environment does not override comes from the file: a bad value there stops the start too */
function checkStoredSecrets(path: string, file: StandaloneSecrets, used: StandaloneSecrets): void {
  const problems: string[] = []
  if (used.encryptionKey === file.encryptionKey) {
    const problem = secretKeyProblem(String(file.encryptionKey))
    if (problem !== null) problems.push(`encryptionKey: ${problem}`)
  }
  if (used.adminToken === file.adminToken) {
    const problem = adminTokenProblem(String(file.adminToken))
    if (problem !== null) problems.push(`adminToken: ${problem}`)
  }
  const previous = file.previousEncryptionKeys ?? []
  if (!Array.isArray(previous)) problems.push('previousEncryptionKeys: expected an array of keys')
  else {
    previous.forEach((key, index) => {
      const problem = secretKeyProblem(String(key))
      if (problem !== null) problems.push(`previousEncryptionKeys[${index}]: ${problem}`)
    })
  }
  if (problems.length > 0) throw new Error(`${path}:\n  - ${problems.join('\n  - ')}`)
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
