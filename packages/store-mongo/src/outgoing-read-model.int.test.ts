// The refunds and payouts read model on a MongoDB-wire server (FerretDB v1 in the test run).

import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describeOutgoingReadModelContract } from '@chainpay/ports/testing'
import { openMongoDatabase } from './database.js'
import { createMongoOutgoingReadModel, outgoingReadModelIndexes } from './outgoing-read-model.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describeOutgoingReadModelContract('mongo outgoing_read', async () => {
  const mongo = await freshTestDatabase('outgoing-read-model', outgoingReadModelIndexes)
  let lost = false
  return {
    store: createMongoOutgoingReadModel(mongo.db),
    async loseDatabase() {
      lost = true
      await mongo.close()
    },
    async teardown() {
      const database = mongo.db.databaseName
      await dropTestDatabase(lost ? await openMongoDatabase({ url: testMongoDbUrl(), database }) : mongo)
    },
  }
})
