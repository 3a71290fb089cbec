import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { describe, expect, it } from 'vitest'
import { ensureMongoIndexes, mongoAnswers, mongoIndexes, openMongoDatabase } from './database.js'

describe('openMongoDatabase', () => {
  it('connects to the named database and closes', async () => {
    const database = uniqueName('database')
    const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database, appName: 'chainpay-test' })
    try {
      expect(mongo.db.databaseName).toBe(database)
      await mongo.db.collection('things').insertOne({ n: 1 })
      expect(await mongo.db.collection('things').countDocuments()).toBe(1)
    } finally {
      await mongo.db.dropDatabase()
      await mongo.close()
    }
  })

  it('fails when no server answers', async () => {
    await expect(
      openMongoDatabase({ url: 'mongodb://127.0.0.1:9/', database: 'x', serverSelectionTimeoutMs: 300 }),
    ).rejects.toThrow()
  })
})

describe('ensureMongoIndexes', () => {
  it('creates every listed index, and creating them again changes nothing', async () => {
    const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('indexes') })
    try {
      await ensureMongoIndexes(mongo.db)
      await ensureMongoIndexes(mongo.db)
      for (const spec of mongoIndexes) {
        const indexes = await mongo.db.collection(spec.collection).listIndexes().toArray()
        expect(indexes.filter((index) => index.name === spec.name).map((index) => index.key)).toEqual([
          spec.key,
        ])
      }
    } finally {
      await mongo.db.dropDatabase()
      await mongo.close()
    }
  })
})

describe('mongoAnswers', () => {
  it('is true while the server answers, and rejects once the client is closed', async () => {
    const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('answers') })
    const answers = mongoAnswers(mongo.db)
    expect(await answers()).toBe(true)
    await mongo.close()
    await expect(answers()).rejects.toThrow()
  })
})
