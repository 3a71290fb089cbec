// payment-command's context as the distributed shape builds it (its own infrastructure, the embedded
// event store in its DATA_DIR): how durable that event store's commits are, and what its readiness
// sees, and where merchants' own wallets are kept.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import { createRootLogger, createServiceRunner, generateSecretKey } from '@chainpay/platform'
import { freePort } from '@chainpay/service-kit/testing'
import { createSqliteMerchantStore } from '@chainpay/store-sqlite'
import { createDevelopmentWallet, deriveTronAddress } from '@chainpay/wallet'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readPaymentCommandConfig } from './config.js'
import { buildPaymentCommandContext } from './context.js'
import { addTestMerchant } from './testing/sqlite-command-side.js'

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
  it("keeps a merchant's wallet in its own database behind the command API, the seed sealed with CHAINPAY_ENCRYPTION_KEY, and derives the merchant's payments from it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-payment-command-wallets-'))
    directories.push(dataDir)
    const [port, metricsPort] = [await freePort(), await freePort()]
    const token = generateSecretKey()
    const env = {
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      COMMAND_API_TOKEN: token,
      TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
      SOLANA_SEED: wallet.solanaSeed,
      CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
    }
    const merchantWallet = createDevelopmentWallet()
    const keys = { tronAccountXpub: merchantWallet.tronAccountXpub, solanaSeed: merchantWallet.solanaSeed }
    const logLines: string[] = []
    const logger = createRootLogger({
      service: 'payment-command',
      level: 'debug',
      destination: { write: (line: string) => void logLines.push(line) },
    })
    const started = async () => {
      const context = await buildPaymentCommandContext(readPaymentCommandConfig(env), logger)
      const runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
      expect(await runner.start()).toBe(true)
      const stop = async () => {
        await runner.stop('test over')
        await context.close()
      }
      return { context, stop }
    }
    // the gateway's side of the command API (a client per start: its kept-alive connections end with the server)
    const client = () => createHttpPaymentCommands({ baseUrl: `http://127.0.0.1:${port}`, token })
    let commands = client()
    const first = await started()
    let set: Awaited<ReturnType<typeof commands.merchantWallets.set>>
    try {
      const merchants = new DatabaseSync(join(dataDir, 'chainpay.sqlite'), { timeout: 5000 })
      await addTestMerchant(createSqliteMerchantStore(merchants), 'm_wallets')
      merchants.close()
      set = await commands.merchantWallets.set('m_wallets', keys)
      expect(await commands.merchantWallets.show('m_wallets')).toEqual(set)
      await expect(
        commands.merchantWallets.set('m_wallets', {
          tronAccountXpub: wallet.tronAccountXpub,
          solanaSeed: wallet.solanaSeed,
        }),
      ).rejects.toMatchObject({ code: 'WALLET_ALREADY_IN_USE' })
      await expect(commands.merchantWallets.set('m_nobody', keys)).rejects.toMatchObject({
        code: 'NOT_FOUND',
      })
      const created = await commands.createPayment({
        merchantId: 'm_wallets',
        request: { amount: '1', currency: 'USDT', network: 'TRON' },
      })
      expect(created.payment.created).toMatchObject({
        walletId: set.walletId,
        address: deriveTronAddress(keys.tronAccountXpub, 0).address,
      })
    } finally {
      await first.stop()
      await commands.close()
    }

    // a second start reads it back from the file, where the seed is not in plain text
    const second = await started()
    commands = client()
    try {
      expect(await commands.merchantWallets.show('m_wallets')).toEqual(set)
      expect(await commands.merchantWallets.resealSeeds()).toEqual({
        total: 1,
        resealed: 0,
        alreadyCurrent: 1,
        unopenable: [],
      })
      expect(await commands.merchantWallets.remove('m_wallets')).toBe(true)
      expect(await commands.merchantWallets.remove('m_wallets')).toBe(false)
      expect(await commands.merchantWallets.show('m_wallets')).toBeNull()
    } finally {
      await second.stop()
      await commands.close()
    }
    // the database and its write-ahead log, whichever holds the row now, and every log line
    const file = Buffer.concat(
      readdirSync(dataDir)
        .filter((name) => name.startsWith('chainpay.sqlite'))
        .map((name) => readFileSync(join(dataDir, name))),
    )
    expect(file.includes(keys.solanaSeed)).toBe(false)
    expect(file.includes(Buffer.from(keys.solanaSeed, 'hex'))).toBe(false)
    expect(file.includes(keys.tronAccountXpub)).toBe(true)
    expect(logLines.length).toBeGreaterThan(0)
    expect(logLines.join('\n')).not.toContain(keys.solanaSeed)
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
