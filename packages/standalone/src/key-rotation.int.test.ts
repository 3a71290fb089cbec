// Rotating standalone's encryption key as docs/operations.md ("Rotating the encryption key") says:
// the new key in standalone-secrets.json with the old one among previousEncryptionKeys, a restart,
// `chainpay-admin secrets reseal`, and the old key dropped. The demo merchant signs requests all along.

import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSecretBox, generateSecretKey, systemClock } from '@chainpay/platform'
import { afterEach, describe, expect, it } from 'vitest'
import { dataFiles, type StandaloneSecrets } from './first-start.js'
import { merchantClientFor } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'
import { newDataDir } from './testing/standalone-process.js'

const directories: string[] = []
let running: InProcessStandalone | undefined
afterEach(async () => {
  await running?.stop()
  running = undefined
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

async function restart(dataDir: string): Promise<InProcessStandalone> {
  await running?.stop()
  running = await startInProcessStandalone({ clock: systemClock, dataDir })
  return running
}

const secretsOf = (dataDir: string) =>
  JSON.parse(readFileSync(join(dataDir, dataFiles.secrets), 'utf8')) as StandaloneSecrets

function writeSecrets(dataDir: string, secrets: StandaloneSecrets): void {
  writeFileSync(join(dataDir, dataFiles.secrets), `${JSON.stringify(secrets, null, 2)}\n`)
}

/** a payment created with the demo merchant's signature: its API secret opened fine */
async function demoMerchantCanPay(standalone: InProcessStandalone): Promise<number> {
  const created = await merchantClientFor(standalone).createPayment({
    amount: '1',
    currency: 'TRX',
    network: 'TRON',
  } as never)
  return created.status
}

async function reseal(standalone: InProcessStandalone, adminToken: string) {
  const response = await fetch(`${standalone.adminUrl}/admin/v1/secrets/reseal`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
  })
  expect(response.status).toBe(200)
  return (await response.json()) as {
    currentKeyId: string
    webhookSecrets: { resealed: number }
    apiSecrets: { resealed: number }
    unopenable: unknown[]
  }
}

describe('rotating standalone’s encryption key', () => {
  it('keeps every merchant working through the rotation, and the old key can go after the re-seal', async () => {
    const dataDir = newDataDir()
    directories.push(dataDir)
    expect(await demoMerchantCanPay(await restart(dataDir))).toBe(201)
    const { encryptionKey: oldKey, adminToken } = secretsOf(dataDir)

    // 1. the new key seals, the old one still opens
    const newKey = generateSecretKey()
    writeSecrets(dataDir, { encryptionKey: newKey, adminToken, previousEncryptionKeys: [oldKey] })
    const rotating = await restart(dataDir)
    expect(await demoMerchantCanPay(rotating)).toBe(201)

    // 2. every secret sealed again under the new key
    const report = await reseal(rotating, adminToken)
    expect(report).toMatchObject({
      currentKeyId: createSecretBox(newKey).currentKeyId,
      webhookSecrets: { resealed: 1 },
      apiSecrets: { resealed: 1 },
      unopenable: [],
    })

    // 3. the old key gone
    writeSecrets(dataDir, { encryptionKey: newKey, adminToken })
    expect(await demoMerchantCanPay(await restart(dataDir))).toBe(201)
  })

  it('without the re-seal, the old key cannot go: what it sealed no longer opens', async () => {
    const dataDir = newDataDir()
    directories.push(dataDir)
    await restart(dataDir)
    const { adminToken } = secretsOf(dataDir)
    writeSecrets(dataDir, { encryptionKey: generateSecretKey(), adminToken })
    expect(await demoMerchantCanPay(await restart(dataDir))).toBe(500)
  })

  it('refuses to start on a bad key or a weak token in standalone-secrets.json, never repeating them', async () => {
    const dataDir = newDataDir()
    directories.push(dataDir)
    await restart(dataDir)
    await running?.stop()
    running = undefined
    const secrets = secretsOf(dataDir)
    writeSecrets(dataDir, {
      ...secrets,
      adminToken: 'adm_operator',
      previousEncryptionKeys: ['maybe!a-typo'],
    })
    await expect(startInProcessStandalone({ clock: systemClock, dataDir })).rejects.toThrow(
      [
        `${join(dataDir, dataFiles.secrets)}:`,
        '  - adminToken: too short: at least 32 characters, got 12; generate one with `openssl rand -hex 32`',
        '  - previousEncryptionKeys[0]: secret key: expected 32 bytes written as base64 or as 64 hex characters',
      ].join('\n'),
    )
  })
})
