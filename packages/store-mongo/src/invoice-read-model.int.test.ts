// The invoices' read model on a MongoDB-wire server (FerretDB v1 in the test run).

import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { describeInvoiceReadModelContract } from '@chainpay/ports/testing'
import { mongoCollections } from './collections.js'
import { openMongoDatabase } from './database.js'
import { createMongoInvoiceReadModel, invoiceReadModelIndexes } from './invoice-read-model.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

async function contractFixture(collection?: string) {
  const mongo = await freshTestDatabase('invoice-read-model', invoiceReadModelIndexes(collection))
  let lost = false
  return {
    store: createMongoInvoiceReadModel(mongo.db, collection ? { collection } : {}),
    async loseDatabase() {
      lost = true
      await mongo.close()
    },
    async teardown() {
      const database = mongo.db.databaseName
      await dropTestDatabase(lost ? await openMongoDatabase({ url: testMongoDbUrl(), database }) : mongo)
    },
  }
}

describeInvoiceReadModelContract('mongo invoices_read', () => contractFixture())
describeInvoiceReadModelContract('mongo notifier_invoices', () =>
  contractFixture(mongoCollections.notifierInvoices),
)
