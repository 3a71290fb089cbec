import { testMongoDbUrl } from '@chainpay/local-servers/testing'
import { StoreUnavailableError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { createMongoCheckpointStore } from './checkpoints.js'
import { openMongoDatabase } from './database.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

describe('the MongoDB stores', () => {
  it('fail with StoreUnavailableError once their client is closed', async () => {
    const mongo = await freshTestDatabase('mongo-failures', [])
    const checkpoints = createMongoCheckpointStore(mongo.db)
    await checkpoints.store('relay', '7')
    await mongo.close()
    await expect(checkpoints.load('relay')).rejects.toBeInstanceOf(StoreUnavailableError)
    await expect(checkpoints.store('relay', '8')).rejects.toMatchObject({
      name: 'StoreUnavailableError',
      message: expect.stringMatching(/^MongoDB: /),
    })
    await dropTestDatabase(
      await openMongoDatabase({ url: testMongoDbUrl(), database: mongo.db.databaseName }),
    )
  })
})
