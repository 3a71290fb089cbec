import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import { generateSecretKey } from '@chainpay/platform'
import { DEFAULT_HTTP_SERVER_LIMITS } from '@chainpay/service-kit'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readNotifierConfig } from './config.js'

const encryptionKey = generateSecretKey()
const required = { CHAINPAY_ENCRYPTION_KEY: encryptionKey }

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readNotifierConfig(env))
}

describe('readNotifierConfig', () => {
  it('has defaults for everything but the encryption key', () => {
    expect(readNotifierConfig(required)).toEqual({
      host: '127.0.0.1',
      metricsHost: '127.0.0.1',
      metricsPort: 9468,
      metricsToken: undefined,
      healthPort: 8094,
      dataDir: resolve('data'),
      databaseFile: resolve('data', 'chainpay.sqlite'),
      logLevel: 'info',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
      infrastructure: {
        kafkaBrokers: null,
        mongodbUrl: null,
        mongodbDatabase: 'chainpay',
        busNamespace: null,
      },
      encryptionKeys: { current: encryptionKey, previous: [], unbound: 'open' },
      retryScheduleMs: undefined,
      allowPrivateTargets: false,
      webhookConcurrency: { total: 64, perTargetHost: 4 },
      webhookRetentionDays: 90,
      publicUrl: 'http://localhost:8080',
    })
  })

  it('reads every variable', () => {
    const previousKey = generateSecretKey()
    const config = readNotifierConfig({
      ...required,
      HOST: '127.0.0.1',
      HEALTH_PORT: '9100',
      METRICS_PORT: '9101',
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'warn',
      KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
      MONGODB_URL: 'mongodb://db:27017/',
      MONGODB_DATABASE: 'payments',
      BUS_NAMESPACE: 'blue',
      WEBHOOK_RETRY_SCHEDULE: '100ms, 30s,2m,1h',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_CONCURRENCY: '16',
      WEBHOOK_CONCURRENCY_PER_HOST: '2',
      WEBHOOK_RETENTION_DAYS: '30',
      CHAINPAY_ENCRYPTION_KEY_PREVIOUS: previousKey,
      CHAINPAY_UNBOUND_SECRETS: 'refuse',
    })
    expect(config).toMatchObject({
      encryptionKeys: { current: encryptionKey, previous: [previousKey], unbound: 'refuse' },
      host: '127.0.0.1',
      healthPort: 9100,
      metricsHost: '127.0.0.1',
      metricsPort: 9101,
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'warn',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
      infrastructure: {
        kafkaBrokers: ['10.0.0.1:9092', '10.0.0.2:9092'],
        mongodbUrl: 'mongodb://db:27017/',
        mongodbDatabase: 'payments',
        busNamespace: 'blue',
      },
      retryScheduleMs: [100, 30_000, 120_000, 3_600_000],
      allowPrivateTargets: true,
      webhookConcurrency: { total: 16, perTargetHost: 2 },
      webhookRetentionDays: 30,
    })
  })

  it("refuses a PUBLIC_URL with a path: the customer's page lives under /pay/ of the host", () => {
    expect(readNotifierConfig({ ...required, PUBLIC_URL: 'https://pay.example.com/' }).publicUrl).toBe(
      'https://pay.example.com',
    )
    expect(problemsOf({ ...required, PUBLIC_URL: 'https://shop.example.com/checkout' })).toEqual([
      expect.stringMatching(/^PUBLIC_URL: expected an origin without path, query, fragment or credentials/),
    ])
  })

  it('requires the encryption key', () => {
    expect(problemsOf({})).toEqual(['CHAINPAY_ENCRYPTION_KEY: required'])
  })

  it('reports every problem together, naming the variable and what it expects', () => {
    expect(
      problemsOf({
        CHAINPAY_ENCRYPTION_KEY: 'c2hvcnQ=',
        HEALTH_PORT: '0',
        LOG_LEVEL: 'loud',
        WEBHOOK_RETRY_SCHEDULE: '30s,soon',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'maybe',
        WEBHOOK_CONCURRENCY: '0',
        WEBHOOK_CONCURRENCY_PER_HOST: 'two',
        WEBHOOK_RETENTION_DAYS: '0',
      }),
    ).toEqual([
      "HEALTH_PORT: expected an integer between 1 and 65535, got '0'",
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      'CHAINPAY_ENCRYPTION_KEY: secret key: expected 32 bytes written as base64 or as 64 hex characters, got 5 bytes of base64',
      "WEBHOOK_RETRY_SCHEDULE: retry schedule: entry 2 'soon' is not a duration (a whole number followed by ms, s, m, h or d, such as 30s)",
      "WEBHOOK_ALLOW_PRIVATE_TARGETS: expected true or false, got 'maybe'",
      "WEBHOOK_CONCURRENCY: expected an integer between 1 and 10000, got '0'",
      "WEBHOOK_CONCURRENCY_PER_HOST: expected an integer between 1 and 10000, got 'two'",
      "WEBHOOK_RETENTION_DAYS: expected an integer between 1 and 36500, got '0'",
    ])
  })

  it('never repeats the encryption key in a message', () => {
    const key = 'not-a-key-but-maybe-a-real-one-with-a-typo'
    expect(problemsOf({ CHAINPAY_ENCRYPTION_KEY: key }).join('\n')).not.toContain(key)
  })
})
