// What standalone creates on its first start and reuses afterwards: its secrets, a development
// wallet and a demo merchant, each in a file of the data directory. Every one of them holds secrets:
// written 0600 (writePrivateFileAtomically), in a directory of mode 0700.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  adminTokenProblem,
  generateAdminToken,
  generateSecretKey,
  restrictToOwner,
  secretKeyProblem,
  writePrivateFileAtomically,
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

/** a file of an earlier version, or copied in, may be open to others: it is set to 0600 when read */
function readJsonFile<T>(path: string): T | null {
  if (!existsSync(path)) return null
  restrictToOwner(path)
  return JSON.parse(readFileSync(path, 'utf8')) as T
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
  if (!stored) writePrivateFileAtomically(path, `${JSON.stringify(generated, null, 2)}\n`)
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
  writePrivateFileAtomically(path, `${JSON.stringify({ note, ...wallet }, null, 2)}\n`)
  return { wallet, created: true }
}

export function readDemoMerchant(dataDir: string): DemoMerchantFile | null {
  return readJsonFile<DemoMerchantFile>(join(dataDir, dataFiles.demoMerchant))
}

export function writeDemoMerchant(dataDir: string, merchant: DemoMerchantFile): void {
  const { merchantId, apiKey, apiSecret, webhookSecret } = merchant
  writePrivateFileAtomically(
    join(dataDir, dataFiles.demoMerchant),
    `${JSON.stringify({ merchantId, apiKey, apiSecret, webhookSecret }, null, 2)}\n`,
  )
}
