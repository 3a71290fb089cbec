import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import type { WebhookDelivery, WebhookDeliveryStore } from '@chainpay/ports'
import { describeWebhookDeliveryStoreContract } from '@chainpay/ports/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type MongoDatabase, openMongoDatabase } from './database.js'
import { createMongoDeliveryStore, deliveryIndexes } from './deliveries.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const lease = 60_000
/** a claim of up to `limit` deliveries, each leased for a minute, with no bound per host */
const upTo = (limit: number) => ({ limit, leaseMs: lease, perTargetHost: 1_000 })

async function open(database: string): Promise<MongoDatabase> {
  return openMongoDatabase({ url: testMongoDbUrl(), database })
}

const freshDatabase = () => freshTestDatabase('deliveries', deliveryIndexes)
const dropped = dropTestDatabase

describeWebhookDeliveryStoreContract('mongo', async () => {
  const mongo = await freshDatabase()
  return { store: createMongoDeliveryStore(mongo.db), teardown: () => dropped(mongo) }
})

/** an instant `minutes` after a fixed origin */
const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()

const delivery = (deliveryId: string, paymentId: string, changes: Partial<WebhookDelivery> = {}) => ({
  deliveryId,
  paymentId,
  merchantId: 'mer_1',
  eventType: 'payment.confirmed',
  sequence: 0,
  payload: { paymentId, status: 'confirmed' },
  targetUrl: 'https://shop.example/hooks',
  status: 'pending' as const,
  attempts: 0,
  nextAttemptAt: at(0),
  createdAt: at(0),
  deliveredAt: null,
  lastError: null,
  ...changes,
})

describe('createMongoDeliveryStore', () => {
  let mongo: MongoDatabase
  let store: WebhookDeliveryStore
  const others: MongoDatabase[] = []
  beforeEach(async () => {
    mongo = await freshDatabase()
    store = createMongoDeliveryStore(mongo.db)
  })
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close()
    await dropped(mongo)
  })

  /** a store of another notifier process: its own client on the same database */
  const anotherNotifier = async () => {
    const other = await open(mongo.db.databaseName)
    others.push(other)
    return createMongoDeliveryStore(other.db)
  }

  it('round-trips payload keys the server would refuse or read as paths', async () => {
    const payload = {
      paymentId: 'pay_1',
      metadata: { $where: 'this.a', 'a.b': 'Grüße', '%24where': 1, nested: { '$in.x': [true, null] } },
    }
    await store.enqueue(delivery('evt_1', 'pay_1', { payload }))
    const stored = await mongo.db.collection('webhook_deliveries').findOne({ _id: 'evt_1' as never })
    expect(Object.keys(stored?.payload.metadata)).toEqual(['%24where', 'a%2Eb', '%2524where', 'nested'])
    expect((await store.get('evt_1'))?.payload).toEqual(payload)
    expect((await store.listByPayment('pay_1'))[0]?.payload).toEqual(payload)
    expect((await store.claimDue(at(0), upTo(10)))[0]?.payload).toEqual(payload)
  })

  it('never lets two notifiers claim the same delivery at once', async () => {
    const ids = Array.from({ length: 24 }, (_, number) => `evt_${number}`)
    for (const id of ids) await store.enqueue(delivery(id, `pay_${id}`))
    const notifiers = [store, await anotherNotifier(), await anotherNotifier()]

    const claimTogether = async (now: string) => {
      const claims = await Promise.all(notifiers.map((notifier) => notifier.claimDue(now, upTo(ids.length))))
      return claims.flat().map((claimed) => claimed.deliveryId)
    }
    // every delivery claimed exactly once: by one notifier, and by none other while it holds it
    const first = await claimTogether(at(0))
    expect([...first].sort()).toEqual([...ids].sort())
    expect(await claimTogether(at(0.5))).toEqual([])
    // once the leases have run out, all of them are up for grabs again, and again each goes to one
    const again = await claimTogether(at(2))
    expect([...again].sort()).toEqual([...ids].sort())
  })

  it("keeps a host's bound over every notifier: another one's leases count", async () => {
    for (const number of [0, 1, 2]) {
      await store.enqueue(delivery(`evt_a${number}`, `pay_a${number}`, { createdAt: at(number / 60) }))
    }
    await store.enqueue(
      delivery('evt_b', 'pay_b', { targetUrl: 'https://b.example/hooks', createdAt: at(3 / 60) }),
    )
    const bounded = (limit: number) => ({ limit, leaseMs: lease, perTargetHost: 2 })
    const ids = (claimed: WebhookDelivery[]) => claimed.map((item) => item.deliveryId)
    expect(ids(await store.claimDue(at(0), bounded(2)))).toEqual(['evt_a0', 'evt_a1'])
    const other = await anotherNotifier()
    expect(ids(await other.claimDue(at(0), bounded(10)))).toEqual(['evt_b'])
    await store.recordAttempt(
      { deliveryId: 'evt_a0', attempt: 1, at: at(0), statusCode: 200, durationMs: 5, error: null },
      { status: 'delivered', deliveredAt: at(0) },
    )
    expect(ids(await other.claimDue(at(0), bounded(10)))).toEqual(['evt_a2'])
  })

  it('bounds a delivery recorded before its target host was stored, by its target URL', async () => {
    for (const number of [0, 1]) {
      await store.enqueue(delivery(`evt_${number}`, `pay_${number}`, { createdAt: at(number / 60) }))
    }
    // as a notifier without the bound recorded them
    await mongo.db.collection('webhook_deliveries').updateMany({}, { $unset: { targetHost: '' } })
    const bounded = { limit: 10, leaseMs: lease, perTargetHost: 1 }
    expect((await store.claimDue(at(0), bounded)).map((item) => item.deliveryId)).toEqual(['evt_0'])
    expect(await store.claimDue(at(0), bounded)).toEqual([])
  })

  it('lets another notifier claim a delivery once the lease of a notifier that died has run out', async () => {
    await store.enqueue(delivery('evt_1', 'pay_1'))
    expect((await store.claimDue(at(0), upTo(10))).map((item) => item.deliveryId)).toEqual(['evt_1'])
    const survivor = await anotherNotifier()
    expect(await survivor.claimDue(at(0.5), upTo(10))).toEqual([])
    expect((await survivor.claimDue(at(1.5), upTo(10))).map((item) => item.deliveryId)).toEqual(['evt_1'])
    expect(await store.claimDue(at(2), upTo(10))).toEqual([])
  })

  it('holds a delivery for a lease taken by a notifier that died before marking the delivery', async () => {
    await store.enqueue(delivery('evt_1', 'pay_1'))
    // what a claim leaves behind when its process dies between taking the lease and marking it
    await mongo.db.collection('webhook_leases').insertOne({
      _id: 'evt_1#1' as never,
      deliveryId: 'evt_1',
      number: 1,
      leasedUntil: at(1),
      released: false,
    })
    expect(await store.claimDue(at(0.5), upTo(10))).toEqual([])
    expect((await store.claimDue(at(1.5), upTo(10))).map((item) => item.deliveryId)).toEqual(['evt_1'])
    expect(await store.claimDue(at(2), upTo(10))).toEqual([])
  })

  it('claims past deliveries held back by an earlier one, up to `limit`', async () => {
    // more held-back candidates than one page of the due query
    for (let number = 1; number <= 40; number += 1) {
      await store.enqueue(delivery(`evt_held_${number}`, 'pay_held', { sequence: number }))
    }
    await store.enqueue(delivery('evt_held_0', 'pay_held', { sequence: 0, nextAttemptAt: at(5) }))
    await store.enqueue(delivery('evt_a', 'pay_a', { createdAt: at(1) }))
    await store.enqueue(delivery('evt_b', 'pay_b', { createdAt: at(1) }))
    const claimed = await store.claimDue(at(1), upTo(1))
    expect(claimed.map((item) => item.deliveryId)).toEqual(['evt_a'])
    expect((await store.claimDue(at(1), upTo(5))).map((item) => item.deliveryId)).toEqual(['evt_b'])
  })

  it('prunes the leases that ran out before the cutoff, in batches, and keeps the later ones', async () => {
    for (const number of [0, 1, 2]) {
      await store.enqueue(delivery(`evt_${number}`, `pay_${number}`))
      await store.claimDue(at(number * 10), upTo(10))
      await store.recordAttempt(
        {
          deliveryId: `evt_${number}`,
          attempt: 1,
          at: at(number * 10),
          statusCode: 204,
          durationMs: 5,
          error: null,
        },
        { status: 'delivered', deliveredAt: at(number * 10) },
      )
    }
    const leases = mongo.db.collection('webhook_leases')
    expect(await leases.countDocuments()).toBe(3)
    // leases run a minute: those of minutes 0 and 10 ran out before minute 15
    expect(await store.pruneFinished(at(15), 1)).toBe(2)
    expect(await store.pruneFinished(at(15), 1)).toBe(2)
    expect(await store.pruneFinished(at(15), 1)).toBe(0)
    expect(await leases.countDocuments()).toBe(1)
    expect(await mongo.db.collection('webhook_attempts').countDocuments()).toBe(1)
    expect((await store.get('evt_2'))?.status).toBe('delivered')
  })

  it('prunes deliveries recorded before retention by their finish, and keeps the pending ones', async () => {
    await store.enqueue(
      delivery('evt_delivered', 'pay_1', { status: 'delivered', deliveredAt: at(1), nextAttemptAt: null }),
    )
    await store.enqueue(
      delivery('evt_failed', 'pay_2', { status: 'failed', createdAt: at(2), nextAttemptAt: null }),
    )
    await store.enqueue(delivery('evt_pending', 'pay_3'))
    // as a notifier before retention recorded them
    await mongo.db.collection('webhook_deliveries').updateMany({}, { $unset: { finishedAt: '' } })
    expect(await store.pruneFinished(at(1.5), 10)).toBe(1)
    expect(await store.get('evt_delivered')).toBeNull()
    expect(await store.pruneFinished(at(100), 10)).toBe(1)
    expect(await store.get('evt_failed')).toBeNull()
    expect(await store.pruneFinished(at(100), 10)).toBe(0)
    expect((await store.get('evt_pending'))?.status).toBe('pending')
  })

  it('refuses an attempt for an unknown delivery and keeps no trace of it', async () => {
    const attempt = {
      deliveryId: 'evt_unknown',
      attempt: 1,
      at: at(1),
      statusCode: 200,
      durationMs: 5,
      error: null,
    }
    await expect(store.recordAttempt(attempt, { status: 'delivered', deliveredAt: at(1) })).rejects.toThrow(
      'evt_unknown',
    )
    expect(await store.listAttempts('evt_unknown')).toEqual([])
    expect(await store.get('evt_unknown')).toBeNull()
  })
})
