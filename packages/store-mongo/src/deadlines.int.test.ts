import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describePaymentDeadlineStoreContract } from '@chainpay/ports/testing'
import type { Db } from 'mongodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mongoCollections } from './collections.js'
import { type MongoDatabase, openMongoDatabase } from './database.js'
import { createMongoDeadlineStore, deadlineIndexes } from './deadlines.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = () => freshTestDatabase('deadlines', deadlineIndexes)
const dropped = dropTestDatabase

describePaymentDeadlineStoreContract('mongo', async () => {
  const mongo = await freshDatabase()
  return { store: createMongoDeadlineStore(mongo.db), teardown: () => dropped(mongo) }
})

const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()

describe('createMongoDeadlineStore', () => {
  let mongo: MongoDatabase
  let db: Db
  beforeEach(async () => {
    mongo = await freshDatabase()
    db = mongo.db
  })
  afterEach(() => dropped(mongo))

  it('finds watched deadlines behind more unwatched earlier ones than one page holds', async () => {
    const store = createMongoDeadlineStore(db)
    const unwatched = Array.from({ length: 230 }, (_, n) => ({
      paymentId: `pay_unwatched_${String(n).padStart(3, '0')}`,
      network: 'TRON',
      expiresAt: at(1),
    }))
    // written directly in the store's own shape: 230 upserts one by one take FerretDB half a minute
    await db.collection(mongoCollections.paymentDeadlines).insertMany(
      unwatched.map(({ paymentId, network, expiresAt }) => ({
        _id: paymentId as never,
        network,
        expiresAt,
        attempts: 0,
        retryAt: null,
      })),
    )
    for (const minute of [3, 2, 4]) {
      await store.upsert({ paymentId: `pay_watched_${minute}`, network: 'TRON', expiresAt: at(minute) })
      await store.markWatched(`pay_watched_${minute}`, at(0))
    }
    expect(await store.due({ expiredBy: at(10), now: at(10), limit: 2 })).toEqual([
      { paymentId: 'pay_watched_2', network: 'TRON', expiresAt: at(2), attempts: 0 },
      { paymentId: 'pay_watched_3', network: 'TRON', expiresAt: at(3), attempts: 0 },
    ])
    expect(await store.due({ expiredBy: at(10), now: at(10), limit: 10, network: 'TRON' })).toHaveLength(3)
  })

  it('keeps deadlines, marks and retry state across reconnecting', async () => {
    const deadline = { paymentId: 'pay_1', network: 'TRON', expiresAt: at(30) }
    const first = createMongoDeadlineStore(db)
    await first.upsert(deadline)
    await first.markWatched('pay_1', at(1))
    await first.retryLater('pay_1', at(59))
    const reopened = await openMongoDatabase({ url: testMongoDbUrl(), database: db.databaseName })
    try {
      const store = createMongoDeadlineStore(reopened.db)
      expect(await store.due({ expiredBy: at(60), now: at(60), limit: 10 })).toEqual([
        { ...deadline, attempts: 1 },
      ])
    } finally {
      await reopened.close()
    }
  })
})
