// Received net totals on a MongoDB-wire server (FerretDB v1 in the test run).

import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describeReceivedNetTotalsContract } from '@chainpay/ports/testing'
import { openMongoDatabase } from './database.js'
import { createMongoReceivedNetTotals, receivedNetIndexes } from './received-net.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describeReceivedNetTotalsContract('mongo received_net', async () => {
  const mongo = await freshTestDatabase('received-net', receivedNetIndexes)
  let lost = false
  return {
    store: createMongoReceivedNetTotals(mongo.db),
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
