// A restore (docs/operations.md, "Backup and restore"): standalone started on an older copy of its
// database never gives a new payment the address of a payment the copy lost, whether that address
// came from the pool or from the counter, and says at start that the database was restored.

import { copyFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { merchantClientFor, type PaymentBody } from './testing/flow.js'
import { type InProcessStandalone, startInProcessStandalone } from './testing/standalone-in-process.js'
import { newDataDir } from './testing/standalone-process.js'

const clock = { now: () => new Date() }
let running: InProcessStandalone | undefined

afterEach(async () => {
  await running?.stop()
  running = undefined
})

async function startOn(dataDir: string): Promise<InProcessStandalone> {
  running = await startInProcessStandalone({ clock, dataDir, env: { ADDRESS_POOL_SIZE: '8' } })
  return running
}

async function stop(standalone: InProcessStandalone): Promise<void> {
  await standalone.stop()
  running = undefined
}

async function create(standalone: InProcessStandalone, network: string, currency: string): Promise<string> {
  const response = await merchantClientFor(standalone).createPayment({
    amount: '1',
    currency,
    network,
  } as never)
  expect(response.status).toBe(201)
  return (response.body as PaymentBody).generatedAddress
}

describe('standalone after a restore', () => {
  it('gives no new payment the address of one the restored copy lost, and warns', async () => {
    const dataDir = newDataDir()
    const database = join(dataDir, 'chainpay.sqlite')
    const first = await startOn(dataDir)
    const kept = [await create(first, 'TRON', 'USDT'), await create(first, 'SOLANA', 'SOL')]
    await stop(first)
    copyFileSync(database, join(dataDir, 'backup.sqlite'))

    // the payments the restore will lose: from the pool, then past it
    const second = await startOn(dataDir)
    const lost: string[] = []
    for (let n = 0; n < 12; n++)
      lost.push(await create(second, 'TRON', 'USDT'), await create(second, 'SOLANA', 'SOL'))
    await stop(second)

    // the documented restore: stopped, the copy in place of the database, the rest of DATA_DIR kept
    copyFileSync(join(dataDir, 'backup.sqlite'), database)
    for (const suffix of ['-wal', '-shm']) rmSync(`${database}${suffix}`, { force: true })
    const restored = await startOn(dataDir)
    expect(restored.output()).toContain(
      'the database is behind the address marks: it was restored from a copy',
    )
    const after: string[] = []
    for (let n = 0; n < 12; n++)
      after.push(await create(restored, 'TRON', 'USDT'), await create(restored, 'SOLANA', 'SOL'))
    for (const address of after) {
      expect(lost).not.toContain(address)
      expect(kept).not.toContain(address)
    }
    expect(new Set(after).size).toBe(after.length)
    await stop(restored)
    rmSync(dataDir, { recursive: true, force: true })
  })
})
