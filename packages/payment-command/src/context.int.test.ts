// payment-command's context as the distributed shape builds it (its own infrastructure, the embedded
// event store in its DATA_DIR): how durable that event store's commits are, and what its readiness
// sees, and where merchants' own wallets are kept.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { createRootLogger, createServiceRunner, generateSecretKey } from '@chainpay/platform'
import { freePort } from '@chainpay/service-kit/testing'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readPaymentCommandConfig } from './config.js'
import { buildPaymentCommandContext } from './context.js'

const wallet = createDevelopmentWallet()
const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** the durability the context's SQLite file reports when it is opened (read back from PRAGMA synchronous) */
async function synchronousOfContext(env: Record<string, string>): Promise<unknown[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-payment-command-context-'))
  directories.push(dataDir)
  const config = readPaymentCommandConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
    SOLANA_SEED: wallet.solanaSeed,
    CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
    ...env,
  })
  const lines: string[] = []
  const logger = createRootLogger({
    service: 'payment-command',
    level: 'info',
    destination: { write: (line: string) => void lines.push(line) },
  })
  const context = await buildPaymentCommandContext(config, logger)
  await context.close()
  return lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.file === join(dataDir, 'chainpay.sqlite'))
    .map((entry) => entry.synchronous)
}

describe('payment-command context, embedded event store', () => {
  it('syncs every commit to disk (synchronous FULL) by default, so power loss loses no acknowledged create', async () => {
    expect(await synchronousOfContext({})).toEqual(['FULL'])
  })

  it('runs with synchronous NORMAL when SQLITE_SYNCHRONOUS=NORMAL', async () => {
    expect(await synchronousOfContext({ SQLITE_SYNCHRONOUS: 'NORMAL' })).toEqual(['NORMAL'])
  })
})

describe('payment-command context, merchant wallets', () => {
  it("keeps a merchant's wallet in its own database, the seed sealed with CHAINPAY_ENCRYPTION_KEY, and refuses the operator's keys", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-payment-command-wallets-'))
    directories.push(dataDir)
    const env = {
      DATA_DIR: dataDir,
      TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
      SOLANA_SEED: wallet.solanaSeed,
      CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
    }
    const merchantWallet = createDevelopmentWallet()
    const keys = { tronAccountXpub: merchantWallet.tronAccountXpub, solanaSeed: merchantWallet.solanaSeed }
    const logger = createRootLogger({ service: 'payment-command', destination: { write: () => {} } })
    const first = await buildPaymentCommandContext(readPaymentCommandConfig(env), logger)
    const set = await first.merchantWallets.set('m_wallets', keys, '2026-11-26T20:00:00.000Z')
    await expect(
      first.merchantWallets.set(
        'm_other',
        { tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed },
        '2026-11-26T20:00:00.000Z',
      ),
    ).rejects.toThrow(/operator/)
    await first.close()

    // a second start reads it back from the file, where the seed is not in plain text
    const second = await buildPaymentCommandContext(readPaymentCommandConfig(env), logger)
    try {
      expect(await second.merchantWallets.show('m_wallets')).toEqual(set)
      expect(JSON.stringify(set)).not.toContain(keys.solanaSeed)
      // the database and its write-ahead log, whichever holds the row now
      const file = Buffer.concat(
        readdirSync(dataDir)
          .filter((name) => name.startsWith('chainpay.sqlite'))
          .map((name) => readFileSync(join(dataDir, name))),
      )
      expect(file.includes(keys.solanaSeed)).toBe(false)
      expect(file.includes(Buffer.from(keys.solanaSeed, 'hex'))).toBe(false)
      expect(file.includes(keys.tronAccountXpub)).toBe(true)
    } finally {
      await second.close()
    }
  })
})

describe('payment-command context, readiness', () => {
  it('is not ready while its event store cannot be read, though the rest of its database answers, and ready again once it can', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-payment-command-readiness-'))
    directories.push(dataDir)
    const [port, metricsPort] = [await freePort(), await freePort()]
    const config = readPaymentCommandConfig({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
      SOLANA_SEED: wallet.solanaSeed,
      CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
    })
    const logger = createRootLogger({ service: 'payment-command', destination: { write: () => {} } })
    const context = await buildPaymentCommandContext(config, logger)
    const runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
    // the same file through a connection of the test's own: the context's own stays open and answers
    const file = new DatabaseSync(join(dataDir, 'chainpay.sqlite'), { timeout: 5000 })
    // the command port serves the health routes beside the commands (docs/operations.md, "Health")
    const readyz = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status
    try {
      expect(await runner.start()).toBe(true)
      expect(await readyz()).toBe(200)

      // the events' table gone: the database still answers, the event store does not
      file.exec('ALTER TABLE es_events RENAME TO es_events_away')
      // at once: the probe reads the table, while the relay's loop notices only when it next polls
      expect(await readyz()).toBe(503)

      file.exec('ALTER TABLE es_events_away RENAME TO es_events')
      await vi.waitFor(async () => expect(await readyz()).toBe(200), { timeout: 10_000 })
    } finally {
      file.close()
      await runner.stop('test over')
      await context.close()
    }
  })
})
