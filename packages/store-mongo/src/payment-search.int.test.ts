import { describePaymentSearchContract } from '@chainpay/ports/testing'
import {
  createMongoPaymentReadModel,
  createMongoPaymentSearch,
  paymentReadModelIndexes,
} from './read-model.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describePaymentSearchContract('mongo', async () => {
  const mongo = await freshTestDatabase('payment-search', paymentReadModelIndexes())
  return {
    readModel: createMongoPaymentReadModel(mongo.db),
    search: createMongoPaymentSearch(mongo.db),
    teardown: () => dropTestDatabase(mongo),
  }
})
