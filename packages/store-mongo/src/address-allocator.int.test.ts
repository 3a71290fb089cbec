import { describeAddressIndexAllocatorContract } from '@chainpay/ports/testing'
import type { Db } from 'mongodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { addressAllocatorIndexes, createMongoAddressAllocator } from './address-allocator.js'
import type { MongoDatabase } from './database.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = () => freshTestDatabase('allocator', addressAllocatorIndexes)
const dropped = dropTestDatabase

describeAddressIndexAllocatorContract('mongo', async () => {
  const mongo = await freshDatabase()
  return { store: createMongoAddressAllocator(mongo.db), teardown: () => dropped(mongo) }
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
    for (let call = 0; call < 4; call += 1) indexes.push(await allocator.allocate('TRON'))
    expect(indexes).toEqual([0, 1, 2, 3])
  })

  it('never hands out one index twice across instances (as across processes) allocating at once', async () => {
    const allocators = [1, 2, 3].map(() => createMongoAddressAllocator(db))
    // each instance has handed out an index before, so each holds a stale idea of the next one
    for (const allocator of allocators) await allocator.allocate('TRON')
    const indexes = await Promise.all(
      Array.from({ length: 60 }, (_, call) => allocators[call % allocators.length]?.allocate('TRON') ?? -1),
    )
    expect(new Set(indexes).size).toBe(60)
    expect(Math.min(...indexes)).toBeGreaterThanOrEqual(3)
    const last = await allocators[0]?.allocate('TRON')
    expect(last).toBeGreaterThan(Math.max(...indexes))
  })

  it('goes on after the highest index handed out before a restart', async () => {
    const before = createMongoAddressAllocator(db)
    for (let call = 0; call < 3; call += 1) await before.allocate('SOLANA')
    const restarted = createMongoAddressAllocator(db)
    expect(await restarted.allocate('SOLANA')).toBe(3)
    expect(await restarted.allocate('TRON')).toBe(0)
  })
})
