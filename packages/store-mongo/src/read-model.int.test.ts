import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describePaymentReadModelContract, samplePaymentDocument } from '@chainpay/ports/testing'
import type { Db, Filter } from 'mongodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mongoCollections } from './collections.js'
import { type MongoDatabase, openMongoDatabase } from './database.js'
import { escapeKeys } from './document-keys.js'
import {
  createMongoPaymentReadModel,
  createMongoPaymentSearch,
  mongoPaymentListFilter,
  paymentReadModelIndexes,
} from './read-model.js'
import { migrateMongoDatabase, readModelComponent, schemaVersionsCollection } from './schema-versions.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = (collection?: string) =>
  freshTestDatabase('read-model', paymentReadModelIndexes(collection))
const dropped = dropTestDatabase

/** the contract's fixture: losing the database closes the client; teardown reconnects to drop it */
async function contractFixture(collection?: string) {
  const mongo = await freshDatabase(collection)
  let lost = false
  return {
    store: createMongoPaymentReadModel(mongo.db, collection ? { collection } : {}),
    async loseDatabase() {
      lost = true
      await mongo.close()
    },
    async teardown() {
      const database = mongo.db.databaseName
      await dropped(lost ? await openMongoDatabase({ url: testMongoDbUrl(), database }) : mongo)
    },
  }
}

describePaymentReadModelContract('mongo payments_read', () => contractFixture())
describePaymentReadModelContract('mongo notifier_payments', () =>
  contractFixture(mongoCollections.notifierPayments),
)

/** every key of a stored document, at every depth */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf)
  if (value === null || typeof value !== 'object') return []
  return Object.entries(value).flatMap(([key, item]) => [key, ...keysOf(item)])
}

describe('createMongoPaymentReadModel', () => {
  let mongo: MongoDatabase
  let db: Db
  beforeEach(async () => {
    mongo = await freshDatabase()
    db = mongo.db
  })
  afterEach(() => dropped(mongo))

  it('round-trips metadata keys a document store refuses or could misread, storing none of them raw', async () => {
    const document = samplePaymentDocument('pay_keys', 2)
    document.state.created.metadata = {
      $where: 'this.a == 1',
      'a.b': 'dotted',
      '%24x': 'looks escaped already',
      $: 'dollar alone',
      '.': 'dot alone',
      'x.$y.z': 3.25,
    }
    const store = createMongoPaymentReadModel(db)
    expect(await store.save(document)).toBe('applied')
    expect(await store.get('pay_keys')).toEqual(document)

    const raw = await db.collection(mongoCollections.paymentsRead).findOne({ _id: 'pay_keys' as never })
    const keys = keysOf(raw)
    expect(keys).toContain('%2524x')
    expect(keys.filter((key) => key.startsWith('$') || key.includes('.'))).toEqual([])
  })

  it('keeps the read model and the notifier copy in separate collections', async () => {
    const readModel = createMongoPaymentReadModel(db)
    const notifierCopy = createMongoPaymentReadModel(db, { collection: mongoCollections.notifierPayments })
    await readModel.save(samplePaymentDocument('pay_1', 5))
    expect(await notifierCopy.get('pay_1')).toBeNull()
    expect(await notifierCopy.save(samplePaymentDocument('pay_1', 1))).toBe('applied')
    expect((await readModel.get('pay_1'))?.revision).toBe(5)
  })

  it('applies exactly one of two equal first saves racing from two instances, as from two processes', async () => {
    const [first, second] = [createMongoPaymentReadModel(db), createMongoPaymentReadModel(db)]
    const results = await Promise.all([
      first.save(samplePaymentDocument('pay_1', 0)),
      second.save(samplePaymentDocument('pay_1', 0)),
    ])
    expect([...results].sort()).toEqual(['applied', 'stale'])
    expect(await second.save(samplePaymentDocument('pay_1', 1))).toBe('applied')
    expect(await first.save(samplePaymentDocument('pay_1', 1))).toBe('stale')
    expect(await first.get('pay_1')).toEqual(samplePaymentDocument('pay_1', 1))
  })

  it('refuses a collection name that is not plain lower case', () => {
    expect(() => createMongoPaymentReadModel(db, { collection: 'payments.read' })).toThrow(/must match/)
  })
})

describe('read model schema migration 2 (payment lists)', () => {
  it('gives documents written before it their listed fields and the fee policy their events upcast to', async () => {
    const mongo = await freshDatabase()
    try {
      const current = samplePaymentDocument('pay_old', 2, { status: 'confirmed' })
      const { feeBps: _bps, fixedFeeUnits: _fixed, ...createdV1 } = current.state.created
      // as the release before it wrote a payment (keys escaped as document-keys.ts does)
      await mongo.db.collection(mongoCollections.paymentsRead).insertOne({
        _id: 'pay_old' as never,
        merchantId: 'mer_1',
        revision: 2,
        state: escapeKeys({ ...current.state, created: createdV1 }),
        updatedAt: current.updatedAt,
      })
      await migrateMongoDatabase(mongo.db, [readModelComponent(mongoCollections.paymentsRead)])
      const store = createMongoPaymentReadModel(mongo.db)
      const upgraded = samplePaymentDocument('pay_old', 2, {
        status: 'confirmed',
        created: { ...current.state.created, feeBps: 0, fixedFeeUnits: current.state.created.feeUnits },
      })
      expect(await store.get('pay_old')).toEqual(upgraded)
      expect(
        await store.list({ merchantId: 'mer_1', limit: 10, statuses: ['confirmed'], network: 'TRON' }),
      ).toEqual([upgraded])
    } finally {
      await dropped(mongo)
    }
  })
})

describe('a page of the list', () => {
  // MongoDB walks index `listed` from the position and examines the page's documents only. FerretDB
  // 1.24 on SQLite pushes no filter, sort or limit down to its backend (its explain says so) and
  // scans the collection: docs/benchmarks.md, "Listing payments".
  it('examines the page’s documents only on MongoDB; FerretDB 1.24 says it pushes nothing down', async () => {
    const mongo = await freshDatabase()
    try {
      const store = createMongoPaymentReadModel(mongo.db)
      for (let n = 0; n < 60; n++) {
        const document = samplePaymentDocument(`pay_${String(n).padStart(2, '0')}`, 0)
        const merchantId = n % 3 === 0 ? 'mer_1' : 'mer_2'
        const created = {
          ...document.state.created,
          merchantId,
          createdAt: new Date(Date.UTC(2030, 0, 1, 0, n)).toISOString(),
        }
        await store.save({ ...document, merchantId, state: { ...document.state, created } })
      }
      const query = {
        merchantId: 'mer_1',
        limit: 5,
        after: { createdAt: new Date(Date.UTC(2030, 0, 1, 0, 45)).toISOString(), paymentId: 'pay_45' },
      }
      expect((await store.list(query)).map((document) => document.paymentId)).toEqual([
        'pay_42',
        'pay_39',
        'pay_36',
        'pay_33',
        'pay_30',
      ])
      const explained = await mongo.db
        .collection<{ _id: string }>(mongoCollections.paymentsRead)
        .find(mongoPaymentListFilter(query) as Filter<{ _id: string }>)
        .sort({ createdAt: -1, _id: -1 })
        .limit(query.limit)
        .explain('executionStats')
      if ('ferretdbVersion' in (explained.serverInfo ?? {})) {
        expect(explained).toMatchObject({ filterPushdown: false, sortPushdown: false })
      } else {
        expect(JSON.stringify(explained.queryPlanner.winningPlan)).toContain('"indexName":"listed"')
        expect(explained.executionStats.totalDocsExamined).toBeLessThanOrEqual(query.limit)
      }
    } finally {
      await dropped(mongo)
    }
  })
})

describe('read model migrations', () => {
  it('give the states written before foreign funds an empty list of them', async () => {
    const mongo = await freshDatabase()
    try {
      const document = samplePaymentDocument('pay_1', 4)
      await createMongoPaymentReadModel(mongo.db).save(document)
      const payments = mongo.db.collection(mongoCollections.paymentsRead)
      // as the build before foreign funds left it, at version 2 of its component (payment lists)
      await payments.updateOne({ _id: 'pay_1' as never }, { $unset: { 'state.foreignFunds': '' } })
      await mongo.db
        .collection(schemaVersionsCollection)
        .updateOne({ _id: 'read-model:payments_read' as never }, { $set: { version: 2 } }, { upsert: true })
      expect((await payments.findOne({ _id: 'pay_1' as never }))?.state).not.toHaveProperty('foreignFunds')

      await migrateMongoDatabase(mongo.db)
      expect(await createMongoPaymentReadModel(mongo.db).get('pay_1')).toEqual(document)
    } finally {
      await dropped(mongo)
    }
  })

  it('give the states written before balances empty sweeps, and the funded payments their fields (4)', async () => {
    const mongo = await freshDatabase()
    try {
      const paid = samplePaymentDocument('pay_paid', 19)
      const open = samplePaymentDocument('pay_open', 2)
      for (const document of [paid, open]) await createMongoPaymentReadModel(mongo.db).save(document)
      const payments = mongo.db.collection(mongoCollections.paymentsRead)
      // as the build before balances left them, at version 3 of its component
      await payments.updateMany({}, { $unset: { 'state.sweeps': '', walletId: '', funded: '' } })
      await mongo.db
        .collection(schemaVersionsCollection)
        .updateOne({ _id: 'read-model:payments_read' as never }, { $set: { version: 3 } }, { upsert: true })

      await migrateMongoDatabase(mongo.db)
      const store = createMongoPaymentReadModel(mongo.db)
      expect(await store.get('pay_paid')).toEqual(paid)
      expect(await store.get('pay_open')).toEqual(open)
      expect((await store.listFunded({ limit: 10, walletId: 'operator' })).map((d) => d.paymentId)).toEqual([
        'pay_paid',
      ])
    } finally {
      await dropped(mongo)
    }
  })

  it("give the payments kept before support's search by metadata value their values and index (6)", async () => {
    const mongo = await freshDatabase()
    try {
      const document = samplePaymentDocument('pay_1', 4)
      await createMongoPaymentReadModel(mongo.db).save(document)
      const payments = mongo.db.collection(mongoCollections.paymentsRead)
      // as the build before it left them, at version 5 of its component
      await payments.updateMany({}, { $unset: { metadataValues: '' } })
      await mongo.db
        .collection(schemaVersionsCollection)
        .updateOne({ _id: 'read-model:payments_read' as never }, { $set: { version: 5 } }, { upsert: true })

      await migrateMongoDatabase(mongo.db)
      // the sample's metadata: { $where: 'sleep(1000)', 'a.b': 'dotted', 'emoji 💸': true, count: 3, none: null }
      expect((await payments.findOne({ _id: 'pay_1' as never }))?.metadataValues).toEqual([
        'sleep(1000)',
        'dotted',
        'true',
        '3',
      ])
      const search = createMongoPaymentSearch(mongo.db)
      expect((await search.findByReference('mer_1', 'dotted', 10)).map((found) => found.paymentId)).toEqual([
        'pay_1',
      ])
      const indexes = await payments.listIndexes().toArray()
      expect(indexes.find((index) => index.name === 'by_metadata_value')?.key).toEqual({
        merchantId: 1,
        metadataValues: 1,
      })
    } finally {
      await dropped(mongo)
    }
  })
})
