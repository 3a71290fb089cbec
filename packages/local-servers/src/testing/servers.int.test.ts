import { Kafka, logLevel } from 'kafkajs'
import { MongoClient } from 'mongodb'
import { describe, expect, it } from 'vitest'
import { testEventStore, testKafkaBrokers, testMongoDbUrl, uniqueName } from './servers.js'

describe('the servers of this test run', () => {
  it('include a Kafka broker that creates a topic, takes a message and hands it to a consumer group', async () => {
    const kafka = new Kafka({ brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING })
    const topic = uniqueName('servers-smoke')
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: [{ key: 'k', value: 'hello' }] })
    await producer.disconnect()
    const consumer = kafka.consumer({ groupId: uniqueName('servers-smoke-group') })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    const received = await new Promise<string>((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(String(message.value)) })
    })
    await consumer.disconnect()
    expect(received).toBe('hello')
  })

  it('include a MongoDB-wire server that stores and finds a document', async () => {
    const client = new MongoClient(testMongoDbUrl())
    try {
      const collection = client.db(uniqueName('servers-smoke')).collection('things')
      await collection.insertOne({ _id: 'a' as never, n: 1 })
      expect(await collection.findOne({ _id: 'a' as never })).toEqual({ _id: 'a', n: 1 })
      await client.db(collection.dbName).dropDatabase()
    } finally {
      await client.close()
    }
  })

  it('say why EventStoreDB tests are skipped when there is no EventStoreDB', () => {
    const eventstore = testEventStore()
    if (eventstore.url === null) expect(eventstore.skipReason).toMatch(/EVENTSTORE_URL/)
    else expect(eventstore.url).toMatch(/^(kurrentdb|esdb|kdb|kurrent)/)
  })
})
