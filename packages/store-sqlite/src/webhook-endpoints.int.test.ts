import { describeWebhookEndpointStoreContract } from '@chainpay/ports/testing'
import { openSqliteDatabase } from './database.js'
import { createSqliteWebhookEndpointStore } from './webhook-endpoints.js'

describeWebhookEndpointStoreContract('sqlite :memory:', async () => {
  const db = openSqliteDatabase(':memory:')
  return { store: createSqliteWebhookEndpointStore(db), teardown: async () => db.close() }
})
