import { describeWebhookEndpointStoreContract } from '@chainpay/ports/testing'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'
import { createMongoWebhookEndpointStore, webhookEndpointIndexes } from './webhook-endpoints.js'

describeWebhookEndpointStoreContract('mongo', async () => {
  const mongo = await freshTestDatabase('webhook-endpoints', webhookEndpointIndexes)
  return { store: createMongoWebhookEndpointStore(mongo.db), teardown: () => dropTestDatabase(mongo) }
})
