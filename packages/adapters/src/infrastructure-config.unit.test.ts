import { readEnv } from '@chainpay/platform'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readEventStoreUrl, readInfrastructureConfig } from './infrastructure-config.js'

const read = (env: NodeJS.ProcessEnv) => {
  const reader = readEnv(env)
  const config = readInfrastructureConfig(reader)
  const eventstoreUrl = readEventStoreUrl(reader)
  reader.done()
  return { ...config, eventstoreUrl }
}

describe('readInfrastructureConfig', () => {
  it('keeps everything embedded when no server is named', () => {
    expect(read({})).toEqual({
      kafkaBrokers: null,
      mongodbUrl: null,
      mongodbDatabase: 'chainpay',
      busNamespace: null,
      eventstoreUrl: null,
    })
  })

  it('reads the servers', () => {
    expect(
      read({
        KAFKA_BROKERS: 'kafka-0.kafka:9092,kafka-1.kafka:9092',
        MONGODB_URL: 'mongodb+srv://user:pw@cluster.example/',
        MONGODB_DATABASE: 'chainpay_eu',
        BUS_NAMESPACE: 'eu-1',
        EVENTSTORE_URL: 'kurrentdb://es:2113?tls=false',
      }),
    ).toEqual({
      kafkaBrokers: ['kafka-0.kafka:9092', 'kafka-1.kafka:9092'],
      mongodbUrl: 'mongodb+srv://user:pw@cluster.example/',
      mongodbDatabase: 'chainpay_eu',
      busNamespace: 'eu-1',
      eventstoreUrl: 'kurrentdb://es:2113?tls=false',
    })
  })

  it('reports every problem, and never repeats a connection string that may hold a password', () => {
    const problems = configProblems(() =>
      read({
        KAFKA_BROKERS: 'kafka:9092,nonsense',
        MONGODB_URL: 'postgres://user:secret@db/',
        MONGODB_DATABASE: 'a.b',
        BUS_NAMESPACE: 'Blue Team',
        EVENTSTORE_URL: 'http://user:secret@es:2113',
      }),
    )
    expect(problems).toEqual([
      "KAFKA_BROKERS: expected host:port[,host:port...], got 'nonsense'",
      'MONGODB_URL: expected a mongodb:// or mongodb+srv:// connection string',
      "MONGODB_DATABASE: expected 1-63 letters, digits, '_' or '-', got 'a.b'",
      "BUS_NAMESPACE: expected lower-case letters, digits and '-', got 'Blue Team'",
      'EVENTSTORE_URL: expected a kurrentdb:// (or esdb://) connection string',
    ])
    expect(problems.join('\n')).not.toContain('secret')
  })
})
