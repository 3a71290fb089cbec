import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError } from '@chainpay/platform'
import { afterAll, describe, expect, it } from 'vitest'
import { kafkaConnection } from './kafka-connection.js'

const directory = mkdtempSync(join(tmpdir(), 'kafka-connection-'))
afterAll(() => rmSync(directory, { recursive: true, force: true }))

// stand-ins with the PEM armour the reader looks for; kafkajs and Node parse them later
const CERTIFICATE = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
const KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n'
const file = (name: string, text: string) => {
  const path = join(directory, name)
  writeFileSync(path, text)
  return path
}

describe('kafkaConnection', () => {
  it('is plaintext without TLS or SASL, and carries SASL as configured', () => {
    expect(kafkaConnection({})).toEqual({})
    expect(kafkaConnection({ kafkaSasl: { mechanism: 'plain', username: 'u', password: 'p' } })).toEqual({
      sasl: { mechanism: 'plain', username: 'u', password: 'p' },
    })
  })

  it('uses the system CAs when TLS names no file', () => {
    expect(kafkaConnection({ kafkaTls: {} })).toEqual({ tls: true })
  })

  it('reads the CA, the client certificate and key once, at open', () => {
    const connection = kafkaConnection({
      kafkaTls: {
        caFile: file('ca.crt', CERTIFICATE),
        certFile: file('tls.crt', CERTIFICATE),
        keyFile: file('tls.key', KEY),
        servername: 'kafka.internal',
      },
      kafkaSasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
    })
    expect(connection).toEqual({
      tls: { ca: CERTIFICATE, cert: CERTIFICATE, key: KEY, servername: 'kafka.internal' },
      sasl: { mechanism: 'scram-sha-512', username: 'u', password: 'p' },
    })
  })

  it('names the variable of every file it cannot use, and repeats no file content', () => {
    const notAKey = file('not-a-key.pem', 'secret material, not PEM')
    let error: unknown
    try {
      kafkaConnection({
        kafkaTls: {
          caFile: join(directory, 'missing.crt'),
          certFile: file('key-as-cert.crt', KEY),
          keyFile: notAKey,
        },
      })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      `KAFKA_TLS_CA_FILE: cannot read ${join(directory, 'missing.crt')} (ENOENT)`,
      `KAFKA_TLS_CERT_FILE: ${join(directory, 'key-as-cert.crt')} holds no PEM certificate`,
      `KAFKA_TLS_KEY_FILE: ${notAKey} holds no PEM private key`,
    ])
    expect((error as Error).message).not.toContain('secret material')
  })
})
