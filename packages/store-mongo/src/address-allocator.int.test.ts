import { describeAddressIndexAllocatorContract, SOLANA_FAMILY, TRON_FAMILY } from '@chainpay/ports/testing'
import type { Db } from 'mongodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addressAllocatorIndexes, createMongoAddressAllocator } from './address-allocator.js'
import { mongoCollections } from './collections.js'
import type { MongoDatabase } from './database.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = () => freshTestDatabase('allocator', addressAllocatorIndexes)
const dropped = dropTestDatabase

/**
 * What the allocator of before left in the database: one claim per index handed out on `network`,
 * `_id` `${network}:${index}`, counting from 0 per network
 */
async function handOutPerNetwork(db: Db, network: string, count: number): Promise<void> {
  const claims = db.collection<{ _id: string; network: string; index: number }>(
    mongoCollections.addressIndexes,
  )
  for (let index = 0; index < count; index += 1)
    await claims.insertOne({ _id: `${network}:${index}`, network, index })
}

describeAddressIndexAllocatorContract('mongo', async () => {
  const mongo = await freshDatabase()
  return {
    store: createMongoAddressAllocator(mongo.db),
    handOutPerNetwork: (network, count) => handOutPerNetwork(mongo.db, network, count),
    teardown: () => dropped(mongo),
  }
})

describe('createMongoAddressAllocator', () => {
  let mongo: MongoDatabase
  let db: Db
  beforeEach(async () => {
    mongo = await freshDatabase()
    db = mongo.db
  })
  afterEach(() => dropped(mongo))

  it('starts at 0 and hands out consecutive indexes', async () => {
    const allocator = createMongoAddressAllocator(db)
    const indexes = []
    for (let call = 0; call < 4; call += 1) indexes.push(await allocator.allocate(TRON_FAMILY))
    expect(indexes).toEqual([0, 1, 2, 3])
  })

  it('never hands out one index twice across instances (as across processes) allocating at once', async () => {
    const allocators = [1, 2, 3].map(() => createMongoAddressAllocator(db))
    // each instance has handed out an index before, so each holds a stale idea of the next one
    for (const allocator of allocators) await allocator.allocate(TRON_FAMILY)
    const indexes = await Promise.all(
      Array.from(
        { length: 60 },
        (_, call) => allocators[call % allocators.length]?.allocate(TRON_FAMILY) ?? -1,
      ),
    )
    expect(new Set(indexes).size).toBe(60)
    expect(Math.min(...indexes)).toBeGreaterThanOrEqual(3)
    const last = await allocators[0]?.allocate(TRON_FAMILY)
    expect(last).toBeGreaterThan(Math.max(...indexes))
  })

  it('goes on after the highest index handed out before a restart', async () => {
    const before = createMongoAddressAllocator(db)
    for (let call = 0; call < 3; call += 1) await before.allocate(SOLANA_FAMILY)
    const restarted = createMongoAddressAllocator(db)
    expect(await restarted.allocate(SOLANA_FAMILY)).toBe(3)
    expect(await restarted.allocate(TRON_FAMILY)).toBe(0)
  })

  it('goes on, in a database the per-network allocator wrote, right above the highest old claim of the family', async () => {
    await handOutPerNetwork(db, 'TRON', 4)
    await handOutPerNetwork(db, 'TRON_NILE', 9)
    await handOutPerNetwork(db, 'SOLANA', 3)
    const upgraded = createMongoAddressAllocator(db)
    expect([await upgraded.allocate(TRON_FAMILY), await upgraded.allocate(TRON_FAMILY)]).toEqual([9, 10])
    expect(await upgraded.allocate(SOLANA_FAMILY)).toBe(3)
    // a second process, started later, goes on from the family's claims
    expect(await createMongoAddressAllocator(db).allocate(TRON_FAMILY)).toBe(11)
    const claims = db.collection(mongoCollections.addressIndexes)
    expect(await claims.countDocuments({ network: { $exists: true } })).toBe(16)
    expect(await claims.find({ family: 'TRON' }).sort({ index: 1 }).toArray()).toEqual([
      { _id: 'family:TRON:9', family: 'TRON', index: 9 },
      { _id: 'family:TRON:10', family: 'TRON', index: 10 },
      { _id: 'family:TRON:11', family: 'TRON', index: 11 },
    ])
  })
})
