// Versioned storage on MongoDB (docs/operations.md, "Upgrades and rollbacks"), on the run's
// MongoDB-wire server (FerretDB here): components migrate forward in order, a database of the
// release before versions is brought to this build's, and a newer one stops the start untouched.

import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { mongoCollections } from './collections.js'
import { type MongoDatabase, mongoIndexes, openMongoDatabase } from './database.js'
import {
  type MongoComponent,
  MongoSchemaTooNewError,
  migrateMongoDatabase,
  mongoComponents,
  mongoSchemaVersion,
  schemaVersionsCollection,
} from './schema-versions.js'

const opened: MongoDatabase[] = []

async function freshDatabase(): Promise<MongoDatabase> {
  const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('versions') })
  opened.push(mongo)
  return mongo
}

afterEach(async () => {
  for (const mongo of opened.splice(0)) {
    await mongo.db.dropDatabase()
    await mongo.close()
  }
})

async function indexNames(mongo: MongoDatabase, collection: string): Promise<string[]> {
  const indexes = await mongo.db
    .collection(collection)
    .listIndexes()
    .toArray()
    .catch(() => [])
  return indexes.map((index) => index.name as string).filter((name) => name !== '_id_')
}

describe('MongoDB schema versions', () => {
  it('a new database gets every listed index from the migrations, each component at its last version', async () => {
    const mongo = await freshDatabase()
    await migrateMongoDatabase(mongo.db)
    for (const spec of mongoIndexes) expect(await indexNames(mongo, spec.collection)).toContain(spec.name)
    for (const { component, migrations } of mongoComponents)
      expect(await mongoSchemaVersion(mongo.db, component)).toBe(migrations.length)
    // a second start finds nothing to do
    await migrateMongoDatabase(mongo.db)
    expect(await mongo.db.collection(schemaVersionsCollection).countDocuments()).toBe(mongoComponents.length)
  })

  it('five services starting at once on a new database all succeed, and leave one version per component', async () => {
    const mongo = await freshDatabase()
    await Promise.all(Array.from({ length: 5 }, () => migrateMongoDatabase(mongo.db)))
    for (const spec of mongoIndexes) expect(await indexNames(mongo, spec.collection)).toContain(spec.name)
    const versions = await mongo.db.collection(schemaVersionsCollection).find().toArray()
    expect(versions).toHaveLength(mongoComponents.length)
    for (const { component, migrations } of mongoComponents)
      expect(await mongoSchemaVersion(mongo.db, component)).toBe(migrations.length)
  })

  it('a database of the release before versions (its indexes, no versions) gets the later indexes', async () => {
    const mongo = await freshDatabase()
    // what b991541 created: every component's migration 1, and no version documents
    for (const { migrations } of mongoComponents) await migrations[0]?.apply(mongo.db)
    expect(await indexNames(mongo, mongoCollections.addressIndexes)).toEqual(['by_network_index'])
    await migrateMongoDatabase(mongo.db)
    expect((await indexNames(mongo, mongoCollections.addressIndexes)).sort()).toEqual([
      'by_family_index',
      'by_network_index',
    ])
    expect(await indexNames(mongo, mongoCollections.webhookDeliveries)).toEqual(
      expect.arrayContaining([
        'webhook_deliveries_leased',
        'webhook_deliveries_finished',
        'webhook_deliveries_by_merchant',
      ]),
    )
    expect(await mongoSchemaVersion(mongo.db, 'deliveries')).toBe(4)
  })

  it('runs only the migrations after the recorded version, in order', async () => {
    const mongo = await freshDatabase()
    const ran: number[] = []
    const steps = (count: number): MongoComponent => ({
      component: 'sample',
      migrations: Array.from({ length: count }, (_, i) => ({
        description: `step ${i + 1}`,
        apply: async () => void ran.push(i + 1),
      })),
    })
    await migrateMongoDatabase(mongo.db, [steps(2)])
    await migrateMongoDatabase(mongo.db, [steps(4)])
    expect(ran).toEqual([1, 2, 3, 4])
    expect(await mongoSchemaVersion(mongo.db, 'sample')).toBe(4)
  })

  it('a database newer than the code stops before anything changes, saying which version and what to do', async () => {
    const mongo = await freshDatabase()
    const deliveries = mongoComponents.find((c) => c.component === 'deliveries')
    const known = deliveries?.migrations.length ?? 0
    await mongo.db
      .collection<{ _id: string; version: number }>(schemaVersionsCollection)
      .insertOne({ _id: 'deliveries', version: known + 1 })
    const failure = await migrateMongoDatabase(mongo.db).catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(MongoSchemaTooNewError)
    expect((failure as Error).message).toContain(
      `MongoDB database ${mongo.db.databaseName}: schema of deliveries is at version ${known + 1}, newer than the ${known} this build knows`,
    )
    expect((failure as Error).message).toContain('restore the backup taken before the upgrade')
    expect(await indexNames(mongo, mongoCollections.paymentsRead)).toEqual([])
  })
})
