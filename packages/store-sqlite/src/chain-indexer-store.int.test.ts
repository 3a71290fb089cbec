import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describeChainIndexerStoreContract } from '@chainpay/ports/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { createSqliteChainIndexerStore } from './chain-indexer-store.js'
import { type DatabaseSync, openSqliteDatabase } from './database.js'

const directories: string[] = []
const freshFile = () => {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-chain-indexer-store-'))
  directories.push(directory)
  return join(directory, 'chainpay.db')
}
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})
const opened = (db: DatabaseSync) => ({
  store: createSqliteChainIndexerStore(db),
  teardown: async () => db.close(),
})

describeChainIndexerStoreContract('sqlite file', async () => opened(openSqliteDatabase(freshFile())))
describeChainIndexerStoreContract('sqlite :memory:', async () => opened(openSqliteDatabase(':memory:')))

describe('createSqliteChainIndexerStore', () => {
  it('keeps cursors, watched addresses and tracked transfers across closing and reopening the file', async () => {
    const file = freshFile()
    const address = {
      network: 'SOLANA',
      address: 'SolAddr1',
      paymentId: 'pay_1',
      assetContract: null,
      watchUntil: '2030-01-02T00:00:00.000Z',
      paymentCreatedAt: '2030-01-01T00:00:00.000Z',
      requiredConfirmations: 32,
      watchingReportedAt: '2030-01-01T00:00:01.000Z',
      closedAt: null,
    }
    const transfer = {
      network: 'SOLANA',
      paymentId: 'pay_1',
      txHash: 'sig1',
      index: 2,
      address: 'SolAddr1',
      amountUnits: '10000000',
      blockHeight: 250_000_001,
      blockHash: 'blockhash1',
      blockTime: '2030-01-01T00:01:00.000Z',
      confirmations: 3,
      requiredConfirmations: 32,
      withdrawnUntilHeight: 250_000_040,
      expiresAt: null,
      foreign: null,
    }
    const first = openSqliteDatabase(file)
    const before = createSqliteChainIndexerStore(first)
    await before.saveCursor('SOLANA', { height: 250_000_005, hash: 'blockhash5' })
    await before.watch(address)
    await before.track(transfer)
    first.close()

    const reopened = openSqliteDatabase(file)
    try {
      const store = createSqliteChainIndexerStore(reopened)
      expect(await store.loadCursor('SOLANA')).toEqual({ height: 250_000_005, hash: 'blockhash5' })
      expect(await store.listWatched('SOLANA')).toEqual([address])
      expect(await store.listTracked('SOLANA')).toEqual([transfer])
    } finally {
      reopened.close()
    }
  })

  it('finds the expired addresses through the watch_until index, not by reading every watched address', () => {
    const db = openSqliteDatabase(':memory:')
    try {
      createSqliteChainIndexerStore(db)
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN SELECT * FROM watched_addresses
          WHERE network = 'TRON' AND watch_until < '2030-01-01T00:00:00.000Z'
            AND watching_reported_at IS NOT NULL
          ORDER BY watch_until LIMIT 500`)
        .all()
        .map((row) => String(row.detail))
        .join('\n')
      expect(plan).toContain('USING INDEX watched_addresses_by_end (network=? AND watch_until<?)')
    } finally {
      db.close()
    }
  })
})
