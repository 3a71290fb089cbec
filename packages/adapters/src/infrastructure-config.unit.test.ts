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

  it('reads Kafka TLS and SASL, and leaves them out when unset', () => {
    expect(
      read({
        KAFKA_BROKERS: 'kafka:9093',
        KAFKA_TLS: 'true',
        KAFKA_TLS_CA_FILE: '/etc/chainpay/kafka-tls/ca.crt',
        KAFKA_TLS_CERT_FILE: '/etc/chainpay/kafka-tls/tls.crt',
        KAFKA_TLS_KEY_FILE: '/etc/chainpay/kafka-tls/tls.key',
        KAFKA_TLS_SERVERNAME: 'kafka.internal',
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'chainpay',
        KAFKA_SASL_PASSWORD: 'hunter2',
      }),
    ).toMatchObject({
      kafkaTls: {
        caFile: '/etc/chainpay/kafka-tls/ca.crt',
        certFile: '/etc/chainpay/kafka-tls/tls.crt',
        keyFile: '/etc/chainpay/kafka-tls/tls.key',
        servername: 'kafka.internal',
      },
      kafkaSasl: { mechanism: 'scram-sha-512', username: 'chainpay', password: 'hunter2' },
    })
    // TLS with the system's CAs only
    expect(read({ KAFKA_BROKERS: 'kafka:9093', KAFKA_TLS: 'yes' }).kafkaTls).toEqual({})
    const plain = read({ KAFKA_BROKERS: 'kafka:9092', KAFKA_TLS: 'false' })
    expect('kafkaTls' in plain || 'kafkaSasl' in plain).toBe(false)
  })

  it('reports each inconsistent Kafka TLS or SASL variable, and never the password', () => {
    expect(
      configProblems(() =>
        read({
          KAFKA_BROKERS: 'kafka:9093',
          KAFKA_TLS: 'maybe',
          KAFKA_TLS_CA_FILE: '/ca.crt',
          KAFKA_SASL_USERNAME: 'chainpay',
          KAFKA_SASL_PASSWORD: 'secret-pw',
        }),
      ),
    ).toEqual([
      "KAFKA_TLS: expected true or false, got 'maybe'",
      'KAFKA_TLS_CA_FILE: set, but KAFKA_TLS is not true',
      'KAFKA_SASL_USERNAME: set, but KAFKA_SASL_MECHANISM is not',
      'KAFKA_SASL_PASSWORD: set, but KAFKA_SASL_MECHANISM is not',
    ])
    const problems = configProblems(() =>
      read({
        KAFKA_BROKERS: 'kafka:9093',
        KAFKA_TLS: 'true',
        KAFKA_TLS_KEY_FILE: '/tls.key',
        KAFKA_SASL_MECHANISM: 'gssapi',
        KAFKA_SASL_PASSWORD: 'secret-pw',
      }),
    )
    expect(problems).toEqual([
      'KAFKA_TLS_CERT_FILE: required with KAFKA_TLS_KEY_FILE (mutual TLS needs both)',
      "KAFKA_SASL_MECHANISM: expected one of plain, scram-sha-256, scram-sha-512, got 'gssapi'",
      'KAFKA_SASL_USERNAME: required with KAFKA_SASL_MECHANISM',
    ])
    expect(configProblems(() => read({ KAFKA_SASL_MECHANISM: 'plain', KAFKA_SASL_USERNAME: 'u' }))).toEqual([
      'KAFKA_SASL_PASSWORD: required with KAFKA_SASL_MECHANISM',
    ])
    expect(
      configProblems(() =>
        read({
          KAFKA_TLS: 'true',
          KAFKA_SASL_MECHANISM: 'plain',
          KAFKA_SASL_USERNAME: 'u',
          KAFKA_SASL_PASSWORD: 'p',
        }),
      ),
    ).toEqual([
      'KAFKA_TLS: set, but KAFKA_BROKERS is not (the bus is embedded)',
      'KAFKA_SASL_MECHANISM: set, but KAFKA_BROKERS is not (the bus is embedded)',
    ])
    expect(problems.join('\n')).not.toContain('secret-pw')
  })
})
