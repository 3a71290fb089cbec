import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import { DEFAULT_HTTP_SERVER_LIMITS } from '@chainpay/service-kit'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readProjectionConfig } from './config.js'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readProjectionConfig(env))
}

describe('readProjectionConfig', () => {
  it('has defaults for everything', () => {
    expect(readProjectionConfig({})).toEqual({
      host: '127.0.0.1',
      metricsHost: '127.0.0.1',
      metricsPort: 9467,
      metricsToken: undefined,
      healthPort: 8093,
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
    })
  })

  it('reads every variable', () => {
    const config = readProjectionConfig({
      HOST: '0.0.0.0',
      METRICS_HOST: '0.0.0.0',
      METRICS_PORT: '9200',
      METRICS_TOKEN: 'metrics-token-0123456789abcdef0123',
      HEALTH_PORT: '9100',
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'debug',
      KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
      MONGODB_URL: 'mongodb://db:27017/',
      MONGODB_DATABASE: 'payments',
      BUS_NAMESPACE: 'blue',
    })
    expect(config).toEqual({
      host: '0.0.0.0',
      metricsHost: '0.0.0.0',
      metricsPort: 9200,
      metricsToken: 'metrics-token-0123456789abcdef0123',
      healthPort: 9100,
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'debug',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
      infrastructure: {
        kafkaBrokers: ['10.0.0.1:9092', '10.0.0.2:9092'],
        mongodbUrl: 'mongodb://db:27017/',
        mongodbDatabase: 'payments',
        busNamespace: 'blue',
      },
    })
  })

  it('refuses a METRICS_HOST off loopback without METRICS_TOKEN; HOST serves health only', () => {
    expect(problemsOf({ METRICS_HOST: '0.0.0.0' })).toEqual([
      expect.stringMatching(
        /^METRICS_TOKEN: required because METRICS_HOST \(0\.0\.0\.0\) is not a loopback address/,
      ),
    ])
    expect(problemsOf({ HOST: '0.0.0.0' })).toEqual([])
  })

  it('reports every problem together, naming the variable and what it expects', () => {
    expect(problemsOf({ HEALTH_PORT: '70000', LOG_LEVEL: 'loud' })).toEqual([
      "HEALTH_PORT: expected an integer between 1 and 65535, got '70000'",
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
    ])
    expect(problemsOf({ HEALTH_PORT: '9467' })).toEqual([
      'HEALTH_PORT and METRICS_PORT: must differ, both are 9467',
    ])
  })
})
