// KAFKA_PARTITIONS reaches the topics the bus creates: the consumers' replicas are bounded by it
// (docs/deploy.md, "Kafka"), so a topic created with another number would make the bound a lie.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testKafkaBrokers, uniqueName } from '@chainpay/local-servers/testing'
import { createRootLogger, readEnv } from '@chainpay/platform'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { openInfrastructure } from './infrastructure.js'
import { readInfrastructureConfig } from './infrastructure-config.js'

const logger = createRootLogger({ service: 'kafka-partitions-test', level: 'silent' })
const directory = mkdtempSync(join(tmpdir(), 'chainpay-partitions-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

async function partitionsOf(topic: string): Promise<number> {
  const admin = new Kafka({ brokers: testKafkaBrokers(), logLevel: logLevel.NOTHING }).admin()
  await admin.connect()
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
    return topics[0]?.partitions.length ?? 0
  } finally {
    await admin.disconnect()
  }
}

describe('KAFKA_PARTITIONS', () => {
  it('is the number of partitions of the topics the bus creates', async () => {
    const namespace = uniqueName('partitions')
    const read = readEnv({
      KAFKA_BROKERS: testKafkaBrokers().join(','),
      BUS_NAMESPACE: namespace,
      KAFKA_PARTITIONS: '3',
    })
    const config = readInfrastructureConfig(read)
    read.done()
    const infrastructure = await openInfrastructure({
      infrastructure: config,
      databaseFile: join(directory, 'unused.sqlite'),
      serviceName: 'kafka-partitions-test',
      logger,
    })
    try {
      await infrastructure
        .bus()
        .publish('chainpay.payment-events', [{ key: 'pay_p', value: '{}', headers: {} }])
      expect(await partitionsOf(`${namespace}.chainpay.payment-events`)).toBe(3)
    } finally {
      await infrastructure.close()
    }
  })
})
