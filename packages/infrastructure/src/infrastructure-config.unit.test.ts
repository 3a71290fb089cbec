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

  it('reads SQLITE_SYNCHRONOUS, whose absence means FULL, and refuses anything else', () => {
    expect('sqliteSynchronous' in read({})).toBe(false)
    expect(read({ SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous).toBe('NORMAL')
    expect(read({ SQLITE_SYNCHRONOUS: 'FULL' }).sqliteSynchronous).toBe('FULL')
    expect(configProblems(() => read({ SQLITE_SYNCHRONOUS: 'OFF' }))).toEqual([
      "SQLITE_SYNCHRONOUS: expected one of FULL, NORMAL, got 'OFF'",
    ])
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

  it('reads the Kafka consumer group timeouts that are set, and leaves them out when none is', () => {
    expect(
      read({
        KAFKA_BROKERS: 'kafka:9092',
        KAFKA_SESSION_TIMEOUT_MS: '10000',
        KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
        KAFKA_REBALANCE_TIMEOUT_MS: '20000',
      }).kafkaConsumerGroup,
    ).toEqual({ sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1000, rebalanceTimeoutMs: 20_000 })
    // one alone: the bus keeps its defaults for the others
    expect(
      read({ KAFKA_BROKERS: 'kafka:9092', KAFKA_SESSION_TIMEOUT_MS: '45000' }).kafkaConsumerGroup,
    ).toEqual({
      sessionTimeoutMs: 45_000,
    })
    expect('kafkaConsumerGroup' in read({ KAFKA_BROKERS: 'kafka:9092' })).toBe(false)
  })

  it('reports Kafka consumer group timeouts out of range, a heartbeat not below the session timeout, or no Kafka', () => {
    expect(
      configProblems(() =>
        read({
          KAFKA_BROKERS: 'kafka:9092',
          KAFKA_SESSION_TIMEOUT_MS: '30s',
          KAFKA_HEARTBEAT_INTERVAL_MS: '50',
          KAFKA_REBALANCE_TIMEOUT_MS: '7200000',
        }),
      ),
    ).toEqual([
      "KAFKA_SESSION_TIMEOUT_MS: expected an integer between 1000 and 3600000, got '30s'",
      "KAFKA_HEARTBEAT_INTERVAL_MS: expected an integer between 100 and 3600000, got '50'",
      "KAFKA_REBALANCE_TIMEOUT_MS: expected an integer between 1000 and 3600000, got '7200000'",
    ])
    expect(
      configProblems(() =>
        read({
          KAFKA_BROKERS: 'kafka:9092',
          KAFKA_SESSION_TIMEOUT_MS: '5000',
          KAFKA_HEARTBEAT_INTERVAL_MS: '5000',
        }),
      ),
    ).toEqual(['KAFKA_HEARTBEAT_INTERVAL_MS: expected less than KAFKA_SESSION_TIMEOUT_MS, 5000, got 5000'])
    expect(
      configProblems(() => read({ KAFKA_BROKERS: 'kafka:9092', KAFKA_HEARTBEAT_INTERVAL_MS: '40000' })),
    ).toEqual([
      'KAFKA_HEARTBEAT_INTERVAL_MS: expected less than KAFKA_SESSION_TIMEOUT_MS, 30000 (its default), got 40000',
    ])
    expect(
      configProblems(() => read({ KAFKA_BROKERS: 'kafka:9092', KAFKA_SESSION_TIMEOUT_MS: '2000' })),
    ).toEqual([
      'KAFKA_SESSION_TIMEOUT_MS: expected more than KAFKA_HEARTBEAT_INTERVAL_MS, 3000 (its default), got 2000',
    ])
    expect(configProblems(() => read({ KAFKA_SESSION_TIMEOUT_MS: '6000' }))).toEqual([
      'KAFKA_SESSION_TIMEOUT_MS: set, but KAFKA_BROKERS is not (the bus is embedded)',
    ])
  })

  it('reads KAFKA_PARTITIONS for the topics the bus creates, and leaves it out when unset', () => {
    expect(read({ KAFKA_BROKERS: 'kafka:9092', KAFKA_PARTITIONS: '12' }).kafkaPartitions).toBe(12)
    expect(read({ KAFKA_BROKERS: 'kafka:9092' })).not.toHaveProperty('kafkaPartitions')
    expect(configProblems(() => read({ KAFKA_BROKERS: 'kafka:9092', KAFKA_PARTITIONS: '0' }))).toEqual([
      "KAFKA_PARTITIONS: expected an integer between 1 and 1000, got '0'",
    ])
    expect(configProblems(() => read({ KAFKA_PARTITIONS: '6' }))).toEqual([
      'KAFKA_PARTITIONS: set, but KAFKA_BROKERS is not (the bus is embedded)',
    ])
  })
})
