// For this package's integration tests: a database of the test's own on the run's MongoDB-wire
// server, with the indexes the adapter under test declares, and its removal afterwards.

import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import type { IndexSpec } from './collections.js'
import { ensureMongoIndexes, type MongoDatabase, openMongoDatabase } from './database.js'

export async function freshTestDatabase(
  prefix: string,
  indexes: readonly IndexSpec[],
): Promise<MongoDatabase> {
  const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName(prefix) })
  await ensureMongoIndexes(mongo.db, indexes)
  return mongo
}

export async function dropTestDatabase(mongo: MongoDatabase): Promise<void> {
  await mongo.db.dropDatabase()
  await mongo.close()
}
