import { resolve } from 'node:path'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readChainIndexerConfig } from './config.js'

const required = { CHAIN_MODE: 'simulator' }

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readChainIndexerConfig(env))
}

describe('readChainIndexerConfig', () => {
  it('has defaults for everything but the chain mode', () => {
    expect(readChainIndexerConfig(required)).toEqual({
      host: '0.0.0.0',
      port: 8092,
      dataDir: resolve('data'),
      databaseFile: resolve('data', 'chainpay.sqlite'),
      logLevel: 'info',
      infrastructure: {
        kafkaBrokers: null,
        mongodbUrl: null,
        mongodbDatabase: 'chainpay',
        busNamespace: null,
      },
      chainMode: 'simulator',
      blockIntervalMs: { TRON: 3000, SOLANA: 400 },
    })
  })

  it('reads every variable', () => {
    const config = readChainIndexerConfig({
      ...required,
      HOST: '127.0.0.1',
      PORT: '9092',
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'error',
      KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
      MONGODB_URL: 'mongodb://db:27017/',
      MONGODB_DATABASE: 'payments',
      BUS_NAMESPACE: 'blue',
      TRON_BLOCK_INTERVAL_MS: '40',
      SOLANA_BLOCK_INTERVAL_MS: '30',
    })
    expect(config).toEqual({
      host: '127.0.0.1',
      port: 9092,
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'error',
      infrastructure: {
        kafkaBrokers: ['10.0.0.1:9092', '10.0.0.2:9092'],
        mongodbUrl: 'mongodb://db:27017/',
        mongodbDatabase: 'payments',
        busNamespace: 'blue',
      },
      chainMode: 'simulator',
      blockIntervalMs: { TRON: 40, SOLANA: 30 },
    })
  })

  it('requires the chain mode to be chosen, so that nobody runs a simulator by accident', () => {
    expect(problemsOf({})).toEqual(['CHAIN_MODE: required; simulator is the only mode so far'])
  })

  it('says that real chains come later', () => {
    expect(problemsOf({ CHAIN_MODE: 'rpc' })).toEqual([
      "CHAIN_MODE: expected simulator, got 'rpc'; watching real TRON and Solana RPC nodes comes with part 3",
    ])
  })

  it('reports every problem together, naming the variable and what it expects', () => {
    expect(
      problemsOf({
        CHAIN_MODE: 'mainnet',
        PORT: 'http',
        LOG_LEVEL: 'loud',
        TRON_BLOCK_INTERVAL_MS: '5',
        SOLANA_BLOCK_INTERVAL_MS: '60001',
      }),
    ).toEqual([
      "PORT: expected an integer between 1 and 65535, got 'http'",
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      "CHAIN_MODE: expected simulator, got 'mainnet'; watching real TRON and Solana RPC nodes comes with part 3",
      "TRON_BLOCK_INTERVAL_MS: expected an integer between 10 and 60000, got '5'",
      "SOLANA_BLOCK_INTERVAL_MS: expected an integer between 10 and 60000, got '60001'",
    ])
  })
})
