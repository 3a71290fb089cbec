// The upgrade of a MongoDB database written by the release before versioned storage
// (docs/operations.md, "Upgrades and rollbacks"): testing/fixtures/upgrade-b991541/dump.json, made
// by the script beside it with that release's adapters on FerretDB 1.24, is restored into a database
// of its own, migrated, and used by this build's adapters.

import { readFileSync } from 'node:fs'
import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { BSON, type Document } from 'mongodb'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createMongoAddressAllocator } from './address-allocator.js'
import { createMongoCheckpointStore } from './checkpoints.js'
import { mongoCollections } from './collections.js'
import { type MongoDatabase, openMongoDatabase } from './database.js'
import { createMongoDeadlineStore } from './deadlines.js'
import { createMongoDeliveryStore } from './deliveries.js'
import { createMongoMerchantStore } from './merchants.js'
import { migrateMongoDatabase, mongoComponents, mongoSchemaVersion } from './schema-versions.js'

type Dump = Record<
  string,
  { indexes: { name: string; key: Record<string, 1 | -1> }[]; documents: Document[] }
>
const dump = BSON.EJSON.parse(
  readFileSync(new URL('./testing/fixtures/upgrade-b991541/dump.json', import.meta.url), 'utf8'),
  { relaxed: false },
) as Dump

let mongo: MongoDatabase
const applied: Array<{ component: string; version: number; description: string }> = []

beforeAll(async () => {
  mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('upgrade') })
  for (const [name, { indexes, documents }] of Object.entries(dump)) {
    if (documents.length > 0) await mongo.db.collection(name).insertMany(documents)
    for (const { name: indexName, key } of indexes)
      await mongo.db.collection(name).createIndex(key, { name: indexName })
  }
  await migrateMongoDatabase(mongo.db, undefined, (migration) => applied.push(migration))
})

afterAll(async () => {
  await mongo?.db.dropDatabase()
  await mongo?.close()
})

describe('upgrade from b991541 (MongoDB)', () => {
  it('every component is at this build’s version, with the indexes added since', async () => {
    for (const { component, migrations } of mongoComponents)
      expect(await mongoSchemaVersion(mongo.db, component)).toBe(migrations.length)
    const names = async (collection: string) =>
      (await mongo.db.collection(collection).listIndexes().toArray()).map((index) => index.name)
    expect(await names(mongoCollections.addressIndexes)).toContain('by_family_index')
    expect(await names(mongoCollections.webhookDeliveries)).toContain('webhook_deliveries_leased')
  })

  it('tells of each migration it applied, in order, with its version and description', async () => {
    const expected = mongoComponents.flatMap(({ component, migrations }) =>
      migrations.map((migration, i) => ({ component, version: i + 1, description: migration.description })),
    )
    expect(applied).toEqual(expected)
    const again: unknown[] = []
    await migrateMongoDatabase(mongo.db, undefined, (migration) => again.push(migration))
    expect(again).toEqual([])
  })

  it('the merchant and its API key read back as stored', async () => {
    const merchants = createMongoMerchantStore(mongo.db)
    expect(await merchants.getMerchant('mer_upgrade')).toMatchObject({
      name: 'Shop before the upgrade',
      webhookSecret: 'v1.sealed-webhook-secret',
    })
    expect(await merchants.findApiKey('ak_upgrade')).toMatchObject({
      merchantId: 'mer_upgrade',
      secret: 'v1.sealed-api-secret',
      revokedAt: null,
    })
  })

  it('the next address index of the TRON family is above every index the old per-network claims handed out', async () => {
    const allocator = createMongoAddressAllocator(mongo.db)
    expect(await allocator.allocate({ chain: 'TRON', networks: ['TRON', 'TRON_NILE'] })).toBe(3)
  })

  it('the pending delivery is claimed and delivered; the delivered one stays delivered', async () => {
    const deliveries = createMongoDeliveryStore(mongo.db)
    const claimed = await deliveries.claimDue('2026-11-20T10:01:00.000Z', {
      limit: 10,
      leaseMs: 30_000,
      perTargetHost: 2,
    })
    expect(claimed.map((d) => [d.deliveryId, d.attempts])).toEqual([['evt_pending', 1]])
    await deliveries.recordAttempt(
      {
        deliveryId: 'evt_pending',
        attempt: 2,
        at: '2026-11-20T10:01:00.000Z',
        statusCode: 200,
        durationMs: 9,
        error: null,
      },
      { status: 'delivered', deliveredAt: '2026-11-20T10:01:00.000Z' },
    )
    expect((await deliveries.get('evt_pending'))?.status).toBe('delivered')
    expect((await deliveries.get('evt_delivered'))?.status).toBe('delivered')
    expect((await deliveries.listAttempts('evt_pending')).map((a) => a.attempt)).toEqual([1, 2])
  })

  it('the open payment’s deadline and the relay checkpoint are where the old build left them', async () => {
    const deadlines = createMongoDeadlineStore(mongo.db)
    await deadlines.markWatched('pay_open', '2026-11-20T10:00:00.000Z')
    const due = await deadlines.due({
      expiredBy: '2026-11-21T10:00:00.000Z',
      now: '2026-11-21T10:00:00.000Z',
      limit: 10,
    })
    expect(due.map((d) => d.paymentId)).toEqual(['pay_open'])
    expect(await createMongoCheckpointStore(mongo.db).load('relay:payment-events')).toBe('42')
  })
})
