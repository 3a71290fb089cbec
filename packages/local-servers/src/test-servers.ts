// The servers one test run shares, found in this order: connection strings from the environment,
// containers where a Docker engine answers, else Kafka and FerretDB started on loopback by this
// package. EventStoreDB has no distribution outside Docker: without Docker or EVENTSTORE_URL its
// suite is skipped, with the reason.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { dockerAvailable } from './docker.js'
import { startFerretDb } from './ferretdb.js'
import { startKafka } from './kafka.js'
import { freeLoopbackPort } from './ports.js'

export interface TestServers {
  kafkaBrokers: string
  /** where each server came from, for the test output */
  kafkaSource: string
  mongodbUrl: string
  mongodbSource: string
  /** null when there is no EventStoreDB to test against; then eventstoreSkipReason says why */
  eventstoreUrl: string | null
  eventstoreSkipReason: string | null
  stop(): Promise<void>
}

const KAFKA_IMAGE = 'confluentinc/cp-kafka:7.9.1'
const MONGODB_IMAGE = 'mongo:7.0'
const KURRENTDB_IMAGE = 'docker.kurrent.io/kurrent-latest/kurrentdb:25.1'

export async function startTestServers(env: NodeJS.ProcessEnv = process.env): Promise<TestServers> {
  const stops: (() => Promise<void>)[] = []
  const docker = dockerAvailable(env)
  let directory: string | undefined
  const scratch = () => {
    directory ??= mkdtempSync(join(tmpdir(), 'chainpay-servers-'))
    return directory
  }
  try {
    const [kafka, mongodb, eventstore] = await Promise.all([
      findKafka(env, docker, scratch, stops),
      findMongoDb(env, docker, scratch, stops),
      findEventStore(env, docker, stops),
    ])
    return {
      kafkaBrokers: kafka.url,
      kafkaSource: kafka.source,
      mongodbUrl: mongodb.url,
      mongodbSource: mongodb.source,
      eventstoreUrl: eventstore.url,
      eventstoreSkipReason: eventstore.skipReason,
      stop: async () => {
        await Promise.allSettled(stops.map((stop) => stop()))
        if (directory) rmSync(directory, { recursive: true, force: true })
      },
    }
  } catch (error) {
    await Promise.allSettled(stops.map((stop) => stop()))
    if (directory) rmSync(directory, { recursive: true, force: true })
    throw error
  }
}

interface Found {
  url: string
  source: string
}

async function findKafka(
  env: NodeJS.ProcessEnv,
  docker: boolean,
  scratch: () => string,
  stops: (() => Promise<void>)[],
): Promise<Found> {
  if (env.KAFKA_BROKERS) return { url: env.KAFKA_BROKERS, source: 'KAFKA_BROKERS' }
  if (docker) {
    const { KafkaContainer } = await import('@testcontainers/kafka')
    // as the local Kafka (kafka.ts): the test clusters' consumers take sessions of a few seconds
    const container = await new KafkaContainer(KAFKA_IMAGE)
      .withKraft()
      .withEnvironment({ KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS: '1000' })
      .start()
    stops.push(async () => void (await container.stop()))
    return {
      url: `${container.getHost()}:${container.getMappedPort(9093)}`,
      source: `testcontainers ${KAFKA_IMAGE}`,
    }
  }
  const kafka = await startKafka({
    directory: join(scratch(), 'kafka'),
    quickStart: true,
    port: await freeLoopbackPort(),
    controllerPort: await freeLoopbackPort(),
  })
  stops.push(kafka.stop)
  return { url: kafka.brokers, source: 'local Apache Kafka (Maven Central jars)' }
}

async function findMongoDb(
  env: NodeJS.ProcessEnv,
  docker: boolean,
  scratch: () => string,
  stops: (() => Promise<void>)[],
): Promise<Found> {
  if (env.MONGODB_URL) return { url: env.MONGODB_URL, source: 'MONGODB_URL' }
  if (docker) {
    const { MongoDBContainer } = await import('@testcontainers/mongodb')
    const container = await new MongoDBContainer(MONGODB_IMAGE).start()
    stops.push(async () => void (await container.stop()))
    return {
      url: `${container.getConnectionString()}/?directConnection=true`,
      source: `testcontainers ${MONGODB_IMAGE}`,
    }
  }
  const ferretdb = await startFerretDb({
    directory: join(scratch(), 'ferretdb'),
    port: await freeLoopbackPort(),
  })
  stops.push(ferretdb.stop)
  return { url: ferretdb.url, source: 'local FerretDB (SQLite backend)' }
}

async function findEventStore(
  env: NodeJS.ProcessEnv,
  docker: boolean,
  stops: (() => Promise<void>)[],
): Promise<{ url: string | null; skipReason: string | null }> {
  if (env.EVENTSTORE_URL) return { url: env.EVENTSTORE_URL, skipReason: null }
  if (docker) {
    const { KurrentDbContainer } = await import('@testcontainers/kurrentdb')
    const container = await new KurrentDbContainer(KURRENTDB_IMAGE).start()
    stops.push(async () => void (await container.stop()))
    return { url: container.getConnectionString(), skipReason: null }
  }
  return {
    url: null,
    skipReason:
      'no EventStoreDB: neither EVENTSTORE_URL is set nor a Docker engine answers (EventStoreDB has no distribution that runs without Docker)',
  }
}
