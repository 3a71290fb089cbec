import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describePaymentReadModelContract, samplePaymentDocument } from '@chainpay/ports/testing'
import type { Db } from 'mongodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mongoCollections } from './collections.js'
import { type MongoDatabase, openMongoDatabase } from './database.js'
import { createMongoPaymentReadModel, paymentReadModelIndexes } from './read-model.js'
import { migrateMongoDatabase, schemaVersionsCollection } from './schema-versions.js'
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

describe('read model migrations', () => {
  it('give the states written before foreign funds an empty list of them', async () => {
    const mongo = await freshDatabase()
    try {
      const document = samplePaymentDocument('pay_1', 4)
      await createMongoPaymentReadModel(mongo.db).save(document)
      const payments = mongo.db.collection(mongoCollections.paymentsRead)
      // as the build before foreign funds left it, at version 1 of its component
      await payments.updateOne({ _id: 'pay_1' as never }, { $unset: { 'state.foreignFunds': '' } })
      await mongo.db
        .collection(schemaVersionsCollection)
        .updateOne({ _id: 'read-model:payments_read' as never }, { $set: { version: 1 } }, { upsert: true })
      expect((await payments.findOne({ _id: 'pay_1' as never }))?.state).not.toHaveProperty('foreignFunds')

      await migrateMongoDatabase(mongo.db)
      expect(await createMongoPaymentReadModel(mongo.db).get('pay_1')).toEqual(document)
    } finally {
      await dropped(mongo)
    }
  })
})
