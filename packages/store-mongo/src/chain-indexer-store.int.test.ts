import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import type { TrackedTransfer, WatchedAddress } from '@chainpay/ports'
import { describeChainIndexerStoreContract } from '@chainpay/ports/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { chainIndexerIndexes, createMongoChainIndexerStore } from './chain-indexer-store.js'
import { type MongoDatabase, openMongoDatabase } from './database.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = () => freshTestDatabase('chain-indexer', chainIndexerIndexes)
const dropped = dropTestDatabase

describeChainIndexerStoreContract('mongo', async () => {
  const mongo = await freshDatabase()
  return { store: createMongoChainIndexerStore(mongo.db), teardown: () => dropped(mongo) }
})

const watched = (address: string, changes: Partial<WatchedAddress> = {}): WatchedAddress => ({
  network: 'SOLANA',
  address,
  paymentId: `pay_${address}`,
  assetContract: null,
  watchUntil: '2030-01-02T00:00:00.000Z',
  paymentCreatedAt: '2030-01-01T00:00:00.000Z',
  requiredConfirmations: 32,
  watchingReportedAt: '2030-01-01T00:00:01.000Z',
  closedAt: null,
  ...changes,
})

const tracked = (txHash: string, index: number, blockHeight: number): TrackedTransfer => ({
  network: 'SOLANA',
  paymentId: 'pay_1',
  txHash,
  index,
  address: 'SolAddr1',
  amountUnits: '10000000',
  blockHeight,
  blockHash: `blockhash${blockHeight}`,
  blockTime: '2030-01-01T00:01:00.000Z',
  confirmations: 3,
  requiredConfirmations: 32,
  withdrawnUntilHeight: null,
  expiresAt: null,
  foreign: null,
})

describe('createMongoChainIndexerStore', () => {
  let mongo: MongoDatabase
  beforeEach(async () => {
    mongo = await freshDatabase()
  })
  afterEach(() => dropped(mongo))

  it('keeps cursors, watched addresses and tracked transfers for an indexer that starts again', async () => {
    const address = watched('SolAddr1')
    const transfer = { ...tracked('sig1', 2, 250_000_001), withdrawnUntilHeight: 250_000_040 }
    const before = createMongoChainIndexerStore(mongo.db)
    await before.saveCursor('SOLANA', { height: 250_000_005, hash: 'blockhash5' })
    await before.watch(address)
    await before.track(transfer)

    const restarted = await openMongoDatabase({ url: testMongoDbUrl(), database: mongo.db.databaseName })
    try {
      const store = createMongoChainIndexerStore(restarted.db)
      expect(await store.loadCursor('SOLANA')).toEqual({ height: 250_000_005, hash: 'blockhash5' })
      expect(await store.listWatched('SOLANA')).toEqual([address])
      expect(await store.listTracked('SOLANA')).toEqual([transfer])
    } finally {
      await restarted.close()
    }
  })

  it('lists in the order of the SQLite adapter: addresses by address, transfers by block, hash, index', async () => {
    const store = createMongoChainIndexerStore(mongo.db)
    for (const address of ['Sol3', 'Sol1', 'Sol2']) await store.watch(watched(address))
    const transfers = [
      tracked('sigB', 1, 7),
      tracked('sigA', 1, 9),
      tracked('sigB', 0, 7),
      tracked('sigA', 0, 7),
    ]
    for (const transfer of transfers) await store.track(transfer)
    expect((await store.listWatched('SOLANA')).map((item) => item.address)).toEqual(['Sol1', 'Sol2', 'Sol3'])
    expect(
      (await store.listTracked('SOLANA')).map((item) => [item.blockHeight, item.txHash, item.index]),
    ).toEqual([
      [7, 'sigA', 0],
      [7, 'sigB', 0],
      [7, 'sigB', 1],
      [9, 'sigA', 1],
    ])
  })
})
