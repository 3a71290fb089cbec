// The deposits read model on a MongoDB-wire server (FerretDB v1 in the test run).

import { describeDepositReadModelContract } from '@chainpay/ports/testing'
import { createMongoDepositReadModel, depositReadModelIndexes } from './deposit-read-model.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describeDepositReadModelContract('mongo deposits_read', async () => {
  const mongo = await freshTestDatabase('deposit-read-model', depositReadModelIndexes)
  return {
    store: createMongoDepositReadModel(mongo.db),
    teardown: () => dropTestDatabase(mongo),
  }
})
