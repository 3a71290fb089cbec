// payment-command's context as the distributed shape builds it (its own infrastructure, the embedded
// event store in its DATA_DIR): how durable that event store's commits are.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRootLogger } from '@chainpay/platform'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { afterEach, describe, expect, it } from 'vitest'
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
