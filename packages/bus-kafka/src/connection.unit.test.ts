import { createRequire } from 'node:module'
import { KafkaJSNumberOfRetriesExceeded } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { explainConnectionFailure, kafkajsConnectionConfig } from './connection.js'

// exported by kafkajs at run time, but missing from its type declarations
const { KafkaJSConnectionClosedError } = createRequire(import.meta.url)('kafkajs') as {
  KafkaJSConnectionClosedError: new (message: string, metadata: { host: string; port: number }) => Error
}

describe('kafkajsConnectionConfig', () => {
  it('is plaintext and unauthenticated by default', () => {
    expect(kafkajsConnectionConfig()).toEqual({})
    expect(kafkajsConnectionConfig({})).toEqual({})
  })

  it('maps TLS to kafkajs ssl, always verifying the brokers', () => {
    expect(kafkajsConnectionConfig({ tls: true })).toEqual({ ssl: true })
    expect(kafkajsConnectionConfig({ tls: { ca: 'CA', cert: 'CERT', key: 'KEY' } })).toEqual({
      ssl: { ca: 'CA', cert: 'CERT', key: 'KEY', rejectUnauthorized: true },
    })
  })

  it.each(['plain', 'scram-sha-256', 'scram-sha-512'] as const)(
    'maps SASL %s to kafkajs sasl',
    (mechanism) => {
      expect(kafkajsConnectionConfig({ sasl: { mechanism, username: 'u', password: 'p' } })).toEqual({
        sasl: { mechanism, username: 'u', password: 'p' },
      })
    },
  )
})

describe('explainConnectionFailure', () => {
  const closed = () =>
    new KafkaJSNumberOfRetriesExceeded(
      new KafkaJSConnectionClosedError('Closed connection', { host: 'kafka', port: 9093 }),
      { retryCount: 5, retryTime: 4800 },
    )

  it('says why a plaintext client may have been hung up on', () => {
    const explained = explainConnectionFailure(closed(), {}) as Error
    expect(explained.message).toMatch(
      /^kafka: kafka:9093 closed the connection without answering; .*\(KAFKA_TLS=true\)/,
    )
    expect(explained.cause).toBeInstanceOf(KafkaJSNumberOfRetriesExceeded)
  })

  it('leaves every other failure, and any failure with TLS on, as it is', () => {
    const withTls = closed()
    expect(explainConnectionFailure(withTls, { tls: true })).toBe(withTls)
    const other = new Error('something else')
    expect(explainConnectionFailure(other, {})).toBe(other)
  })
})
