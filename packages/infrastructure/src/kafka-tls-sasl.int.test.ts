import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freeLoopbackPort, type LocalKafka, startKafka } from '@chainpay/local-servers'
import { createRootLogger, readEnv } from '@chainpay/platform'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type Infrastructure, openInfrastructure } from './infrastructure.js'
import { readInfrastructureConfig } from './infrastructure-config.js'

// A broker of this file's own with a SASL_SSL listener (a throwaway CA, PLAIN and SCRAM users): the
// shared test broker speaks plaintext only. The services' own path is exercised: variables read by
// readInfrastructureConfig, files read by openInfrastructure, then the bus and the readiness probe.
// Needs Java, Maven and openssl; where there are none the file is skipped, saying so.
describe('Kafka over SASL_SSL', { timeout: 180_000 }, () => {
  const username = 'chainpay'
  const password = randomBytes(12).toString('hex')
  let directory: string
  let kafka: LocalKafka | undefined
  let skipReason: string | undefined
  const opened: Infrastructure[] = []

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'adapters-kafka-sasl-ssl-'))
    try {
      kafka = await startKafka({
        directory: join(directory, 'kafka'),
        port: await freeLoopbackPort(),
        controllerPort: await freeLoopbackPort(),
        heap: '384m',
        quickStart: true,
        saslSsl: { port: await freeLoopbackPort(), users: { [username]: password } },
      })
    } catch (error) {
      if (!/Java|Maven|mvn|java|openssl/.test(String(error))) throw error
      skipReason = `no local Kafka of its own: ${String(error)}`
    }
  }, 180_000)
  afterAll(async () => {
    for (const infrastructure of opened) await infrastructure.close().catch(() => {})
    await kafka?.kill()
    rmSync(directory, { recursive: true, force: true })
  })

  /**
   * The infrastructure a service opens from this environment, with a logger the test reads.
   * `failingFast`: a connection that fails is retried once, for the tests of connections that cannot
   * work, as kafkajs's default 5 retries (about 10 s) end in the same error.
   */
  const open = async (env: Record<string, string>, options: { failingFast?: boolean } = {}) => {
    const read = readEnv(env)
    const config = readInfrastructureConfig(read)
    read.done()
    const lines: string[] = []
    const logger = createRootLogger({
      service: 'kafka-sasl-ssl-test',
      level: 'info',
      destination: { write: (line: string) => void lines.push(line) },
    })
    const infrastructure = await openInfrastructure({
      infrastructure: config,
      databaseFile: join(directory, `${randomBytes(4).toString('hex')}.sqlite`),
      serviceName: 'kafka-sasl-ssl-test',
      logger,
      ...(options.failingFast ? { kafkaRetry: { retries: 1, initialRetryTimeMs: 50 } } : {}),
    })
    opened.push(infrastructure)
    return { infrastructure, lines }
  }

  const saslSslEnv = (overrides: Record<string, string> = {}): Record<string, string> => {
    if (!kafka?.saslSsl) throw new Error('no SASL_SSL listener')
    return {
      KAFKA_BROKERS: kafka.saslSsl.brokers,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: kafka.saslSsl.caFile,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: username,
      KAFKA_SASL_PASSWORD: password,
      ...overrides,
    }
  }

  /** a message published and consumed; on failure with what the bus and kafkajs logged meanwhile */
  const roundTrip = async (infrastructure: Infrastructure, topic: string, lines: string[]) => {
    const bus = infrastructure.bus()
    const received: string[] = []
    const subscription = await bus.subscribe({
      topic,
      groupId: 'kafka-sasl-ssl-test',
      handle: async (message) => void received.push(message.value),
    })
    try {
      await bus.publish(topic, [{ key: 'k', value: 'over TLS', headers: {} }])
      await vi
        .waitFor(() => expect(received).toEqual(['over TLS']), { timeout: 60_000, interval: 50 })
        .catch((error: unknown) => {
          throw new Error(`${String(error)}\n--- logged:\n${lines.join('')}`, { cause: error })
        })
    } finally {
      await subscription.stop()
    }
  }

  it.for([
    { mechanism: 'scram-sha-512', clientCertificate: true },
    { mechanism: 'scram-sha-256', clientCertificate: false },
    { mechanism: 'plain', clientCertificate: false },
  ])(
    'carries messages with the right CA and $mechanism credentials (client certificate: $clientCertificate)',
    async ({ mechanism, clientCertificate }, context) => {
      if (!kafka?.saslSsl) return context.skip(skipReason)
      const certificate: Record<string, string> = clientCertificate
        ? {
            KAFKA_TLS_CERT_FILE: kafka.saslSsl.clientCertFile,
            KAFKA_TLS_KEY_FILE: kafka.saslSsl.clientKeyFile,
          }
        : {}
      const { infrastructure, lines } = await open(
        saslSslEnv({ KAFKA_SASL_MECHANISM: mechanism, ...certificate }),
      )
      await roundTrip(infrastructure, `sasl-ssl-${mechanism}`, lines)
      expect(await infrastructure.answers()).toBe(true)
      expect(lines.join('\n')).not.toContain(password)
    },
  )

  it('refuses a wrong password with an authentication error that repeats no secret', async (context) => {
    if (!kafka?.saslSsl) return context.skip(skipReason)
    const wrong = randomBytes(12).toString('hex')
    const { infrastructure, lines } = await open(saslSslEnv({ KAFKA_SASL_PASSWORD: wrong }))
    const error = await infrastructure
      .bus()
      .publish('sasl-ssl-refused', [{ key: 'k', value: 'never', headers: {} }])
      .then(
        () => undefined,
        (failure: unknown) => failure as Error,
      )
    expect(error?.message).toMatch(/SASL SCRAM SHA512 authentication failed/)
    expect(await infrastructure.answers()).toBe(false)
    const everything = `${error?.message}\n${error?.stack}\n${lines.join('\n')}`
    expect(everything).not.toContain(wrong)
    expect(everything).not.toContain(password)
  })

  it('cannot talk plaintext to the TLS listener', async (context) => {
    if (!kafka?.saslSsl) return context.skip(skipReason)
    const { KAFKA_TLS: _, KAFKA_TLS_CA_FILE: __, ...plaintext } = saslSslEnv()
    const { infrastructure } = await open(plaintext, { failingFast: true })
    await expect(
      infrastructure.bus().publish('sasl-ssl-plaintext', [{ key: 'k', value: 'never', headers: {} }]),
    ).rejects.toThrow(
      /closed the connection without answering; a listener that expects TLS .*\(KAFKA_TLS=true\)/,
    )
    expect(await infrastructure.answers()).toBe(false)
  })

  it('does not trust the broker without its CA (the system CAs do not know it)', async (context) => {
    if (!kafka?.saslSsl) return context.skip(skipReason)
    const { KAFKA_TLS_CA_FILE: _, ...systemCas } = saslSslEnv()
    const { infrastructure } = await open(systemCas, { failingFast: true })
    await expect(
      infrastructure.bus().publish('sasl-ssl-untrusted', [{ key: 'k', value: 'never', headers: {} }]),
    ).rejects.toThrow(/self-signed certificate in certificate chain/)
  })
})
