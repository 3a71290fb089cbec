import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { describeCheckpointStoreContract } from '@chainpay/ports/testing'
import { describe, expect, it } from 'vitest'
import { createMongoCheckpointStore } from './checkpoints.js'
import { openMongoDatabase } from './database.js'

describeCheckpointStoreContract('mongo', async () => {
  const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('checkpoints') })
  return {
    checkpoints: createMongoCheckpointStore(mongo.db),
    teardown: async () => {
      await mongo.db.dropDatabase()
      await mongo.close()
    },
  }
})

describe('createMongoCheckpointStore', () => {
  it('keeps a position across reconnecting, and first stores of one name racing leave one of them', async () => {
    const database = uniqueName('checkpoints')
    const first = await openMongoDatabase({ url: testMongoDbUrl(), database })
    try {
      const checkpoints = createMongoCheckpointStore(first.db)
      await Promise.all(['1', '2', '3', '4'].map((position) => checkpoints.store('relay', position)))
      expect(['1', '2', '3', '4']).toContain(await checkpoints.load('relay'))
      await checkpoints.store('relay', '42')
    } finally {
      await first.close()
    }
    const reopened = await openMongoDatabase({ url: testMongoDbUrl(), database })
    try {
      expect(await createMongoCheckpointStore(reopened.db).load('relay')).toBe('42')
    } finally {
      await reopened.db.dropDatabase()
      await reopened.close()
    }
  })
})
