import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import { DEFAULT_HTTP_SERVER_LIMITS } from '@chainpay/service-kit'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readChainIndexerConfig } from './config.js'

const simulator = { CHAIN_MODE: 'simulator' }
const rpc = {
  CHAIN_MODE: 'rpc',
  CHAIN_NETWORKS: 'TRON,SOLANA',
  TRON_RPC_URL: 'https://api.trongrid.io',
  TRON_RPC_API_KEY: '0b7f2c1e-5d4a-4e3b-9c8d-7a6b5c4d3e2f',
  SOLANA_RPC_URL: 'https://solana.example.net/v1/abc123',
}

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readChainIndexerConfig(env))
}

const shared = {
  host: '127.0.0.1',
  metricsHost: '127.0.0.1',
  metricsPort: 9466,
  metricsToken: undefined,
  port: 8092,
  dataDir: resolve('data'),
  databaseFile: resolve('data', 'chainpay.sqlite'),
  logLevel: 'info',
  registry: defaultAssetRegistry,
  httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
  infrastructure: { kafkaBrokers: null, mongodbUrl: null, mongodbDatabase: 'chainpay', busNamespace: null },
}

describe('readChainIndexerConfig', () => {
  it('has defaults for everything but the chain mode', () => {
    expect(readChainIndexerConfig(simulator)).toEqual({
      ...shared,
      chainMode: 'simulator',
      solanaWatchMode: 'address',
      treasuries: [],
      solanaCheckIntervalMs: 600000,
      solanaDepositCheckIntervalMs: 600000,
      chains: { networks: ['TRON', 'SOLANA'], requiredConfirmations: {} },
      blockIntervalMs: { TRON: 3000, SOLANA: 400 },
      simulatorClient: 'rpc',
    })
  })

  it('reads every variable of the simulator mode', () => {
    const config = readChainIndexerConfig({
      ...simulator,
      HOST: '127.0.0.1',
      PORT: '9092',
      METRICS_PORT: '9093',
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'error',
      KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
      MONGODB_URL: 'mongodb://db:27017/',
      MONGODB_DATABASE: 'payments',
      BUS_NAMESPACE: 'blue',
      TRON_BLOCK_INTERVAL_MS: '40',
      SOLANA_BLOCK_INTERVAL_MS: '30',
      SIMULATOR_CLIENT: 'in-process',
      SIMULATOR_TOKEN: 'a-simulator-token-of-32-characters',
      CHAIN_NETWORKS: 'TRON_NILE,SOLANA_DEVNET',
      TRON_NILE_REQUIRED_CONFIRMATIONS: '5',
    })
    expect(config).toEqual({
      host: '127.0.0.1',
      metricsHost: '127.0.0.1',
      metricsPort: 9093,
      metricsToken: undefined,
      port: 9092,
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'error',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
      infrastructure: {
        kafkaBrokers: ['10.0.0.1:9092', '10.0.0.2:9092'],
        mongodbUrl: 'mongodb://db:27017/',
        mongodbDatabase: 'payments',
        busNamespace: 'blue',
      },
      chainMode: 'simulator',
      solanaWatchMode: 'address',
      treasuries: [],
      solanaCheckIntervalMs: 600000,
      solanaDepositCheckIntervalMs: 600000,
      chains: { networks: ['TRON_NILE', 'SOLANA_DEVNET'], requiredConfirmations: { TRON_NILE: 5 } },
      blockIntervalMs: { TRON: 40, SOLANA: 30 },
      simulatorClient: 'in-process',
      simulatorToken: 'a-simulator-token-of-32-characters',
    })
  })

  it('requires the chain mode to be chosen, so that nobody runs a simulator by accident', () => {
    expect(problemsOf({})).toEqual([
      'CHAIN_MODE: required; simulator (simulated chains in process) or rpc (TRON and Solana nodes)',
    ])
    expect(problemsOf({ CHAIN_MODE: 'mainnet' })).toEqual([
      "CHAIN_MODE: expected simulator or rpc, got 'mainnet'",
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
        SIMULATOR_TOKEN: 'too-short',
      }),
    ).toEqual([
      "PORT: expected an integer between 1 and 65535, got 'http'",
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      "CHAIN_MODE: expected simulator or rpc, got 'mainnet'",
      "TRON_BLOCK_INTERVAL_MS: expected an integer between 10 and 60000, got '5'",
      "SOLANA_BLOCK_INTERVAL_MS: expected an integer between 10 and 60000, got '60001'",
      expect.stringMatching(
        /^SIMULATOR_TOKEN: expected at least 32 visible ASCII characters without spaces \(e.g. openssl rand -hex 32\), got \d+ characters$/,
      ),
    ])
  })

  it('refuses the RPC variables in the simulator mode: the operator meant real chains', () => {
    expect(
      problemsOf({
        ...simulator,
        TRON_RPC_URL: 'https://api.trongrid.io',
        CHAIN_POLL_INTERVAL_MS: '1000',
        CHAIN_START_HEIGHT_TRON: '1',
      }),
    ).toEqual([
      'CHAIN_POLL_INTERVAL_MS: only read with CHAIN_MODE=rpc',
      'CHAIN_START_HEIGHT_TRON: only read with CHAIN_MODE=rpc',
      'TRON_RPC_URL: only read with CHAIN_MODE=rpc',
    ])
  })
})

describe('readChainIndexerConfig with CHAIN_MODE=rpc', () => {
  it('has a default for everything but the networks and their URLs', () => {
    expect(readChainIndexerConfig(rpc)).toEqual({
      ...shared,
      chainMode: 'rpc',
      solanaWatchMode: 'address',
      treasuries: [],
      solanaCheckIntervalMs: 600000,
      solanaDepositCheckIntervalMs: 600000,
      chains: { networks: ['TRON', 'SOLANA'], requiredConfirmations: {} },
      rpcTimeoutMs: 10_000,
      endpoints: [
        {
          network: 'TRON',
          chain: 'TRON',
          nodes: [
            {
              rpcUrl: 'https://api.trongrid.io',
              solidityRpcUrl: 'https://api.trongrid.io',
              apiKey: '0b7f2c1e-5d4a-4e3b-9c8d-7a6b5c4d3e2f',
            },
          ],
          pollIntervalMs: 3000,
          startHeight: null,
        },
        {
          network: 'SOLANA',
          chain: 'SOLANA',
          nodes: [{ rpcUrl: 'https://solana.example.net/v1/abc123', wsUrl: null }],
          pollIntervalMs: 1000,
          startHeight: null,
        },
      ],
    })
  })

  it('reads every variable of the rpc mode', () => {
    const config = readChainIndexerConfig({
      CHAIN_MODE: 'rpc',
      CHAIN_NETWORKS: 'TRON_NILE, SOLANA_DEVNET',
      TRON_NILE_RPC_URL: 'http://10.0.0.5:8090',
      TRON_NILE_SOLIDITY_RPC_URL: 'http://10.0.0.5:8091',
      TRON_NILE_REQUIRED_CONFIRMATIONS: '19',
      TRON_NILE_POLL_INTERVAL_MS: '1500',
      CHAIN_START_HEIGHT_TRON_NILE: '61000000',
      SOLANA_DEVNET_RPC_URL: 'https://api.devnet.solana.com',
      SOLANA_DEVNET_REQUIRED_CONFIRMATIONS: '1000',
      CHAIN_RPC_TIMEOUT_MS: '5000',
      CHAIN_POLL_INTERVAL_MS: '2000',
    })
    expect(config).toMatchObject({
      chainMode: 'rpc',
      solanaWatchMode: 'address',
      treasuries: [],
      solanaCheckIntervalMs: 600000,
      solanaDepositCheckIntervalMs: 600000,
      chains: {
        networks: ['TRON_NILE', 'SOLANA_DEVNET'],
        requiredConfirmations: { TRON_NILE: 19, SOLANA_DEVNET: 1000 },
      },
      rpcTimeoutMs: 5000,
      endpoints: [
        {
          network: 'TRON_NILE',
          chain: 'TRON',
          nodes: [{ rpcUrl: 'http://10.0.0.5:8090', solidityRpcUrl: 'http://10.0.0.5:8091', apiKey: null }],
          // the network's own setting before CHAIN_POLL_INTERVAL_MS
          pollIntervalMs: 1500,
          startHeight: 61_000_000,
        },
        {
          network: 'SOLANA_DEVNET',
          chain: 'SOLANA',
          nodes: [{ rpcUrl: 'https://api.devnet.solana.com', wsUrl: null }],
          pollIntervalMs: 2000,
          startHeight: null,
        },
      ],
    })
  })

  it('reads TREASURY_ADDRESSES, the treasuries whose transfers are nobody’s funds, and refuses what is no address', () => {
    expect(readChainIndexerConfig(rpc).treasuries).toEqual([])
    const treasuries = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf, 9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
    expect(readChainIndexerConfig({ ...rpc, TREASURY_ADDRESSES: treasuries }).treasuries).toEqual([
      'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
      '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    ])
    expect(
      problemsOf({ ...rpc, TREASURY_ADDRESSES: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf,0xdeadbeef' }),
    ).toEqual([
      "TREASURY_ADDRESSES: 1 entry is not a TRON or Solana address ('0xdeadbeef'); a comma-separated list of the treasuries' addresses",
    ])
  })

  it('reads several endpoints per network, in order, with one value per endpoint of their other variables', () => {
    const config = readChainIndexerConfig({
      ...rpc,
      TRON_RPC_URL: 'https://api.trongrid.io, http://java-tron.internal:8090',
      TRON_SOLIDITY_RPC_URL: ',http://java-tron.internal:8091',
      TRON_RPC_API_KEY: '0b7f2c1e-5d4a-4e3b-9c8d-7a6b5c4d3e2f,',
      SOLANA_RPC_URL: 'https://solana.example.net/v1/abc123,https://api.mainnet-beta.solana.com',
      SOLANA_WS_URL: 'wss://solana.example.net/ws/abc123,',
    })
    expect(config).toMatchObject({
      endpoints: [
        {
          network: 'TRON',
          nodes: [
            {
              rpcUrl: 'https://api.trongrid.io',
              solidityRpcUrl: 'https://api.trongrid.io',
              apiKey: '0b7f2c1e-5d4a-4e3b-9c8d-7a6b5c4d3e2f',
            },
            {
              rpcUrl: 'http://java-tron.internal:8090',
              solidityRpcUrl: 'http://java-tron.internal:8091',
              apiKey: null,
            },
          ],
        },
        {
          network: 'SOLANA',
          nodes: [
            { rpcUrl: 'https://solana.example.net/v1/abc123', wsUrl: 'wss://solana.example.net/ws/abc123' },
            { rpcUrl: 'https://api.mainnet-beta.solana.com', wsUrl: null },
          ],
        },
      ],
    })
    const problems = problemsOf({
      ...rpc,
      TRON_RPC_URL: 'https://api.trongrid.io,,ftp://secret@node.example',
      TRON_RPC_API_KEY: 'one-key-for-three',
    })
    expect(problems).toEqual([
      'TRON_RPC_URL (endpoint 2): empty; expected an http or https URL',
      'TRON_RPC_URL (endpoint 3): expected an http or https URL, got a ftp: URL',
      'TRON_RPC_API_KEY: 1 value for the 3 endpoints of TRON_RPC_URL; give one per endpoint, in the same order (an empty one for the default)',
    ])
    expect(problems.join('\n')).not.toMatch(/secret|one-key/)
  })

  it('reads SOLANA_WATCH_MODE, address unless set to blocks', () => {
    expect(readChainIndexerConfig({ ...rpc, SOLANA_WATCH_MODE: 'blocks' })).toMatchObject({
      solanaWatchMode: 'blocks',
    })
    expect(problemsOf({ ...simulator, SOLANA_WATCH_MODE: 'accounts' })).toEqual([
      expect.stringMatching(/^SOLANA_WATCH_MODE: .*blocks.*address/),
    ])
  })

  it('reads SOLANA_DEPOSIT_CHECK_INTERVAL_MS, between a second and an hour', () => {
    expect(readChainIndexerConfig({ ...rpc, SOLANA_DEPOSIT_CHECK_INTERVAL_MS: '120000' })).toMatchObject({
      solanaDepositCheckIntervalMs: 120_000,
    })
    expect(problemsOf({ ...simulator, SOLANA_DEPOSIT_CHECK_INTERVAL_MS: '500' })).toEqual([
      expect.stringMatching(/^SOLANA_DEPOSIT_CHECK_INTERVAL_MS: /),
    ])
  })

  it('requires the networks and a URL for each', () => {
    expect(problemsOf({ CHAIN_MODE: 'rpc' })).toEqual([
      'CHAIN_NETWORKS: required; a comma-separated list of TRON, TRON_NILE, SOLANA, SOLANA_DEVNET',
    ])
    expect(problemsOf({ CHAIN_MODE: 'rpc', CHAIN_NETWORKS: 'SOLANA_DEVNET,TRON_NILE' })).toEqual([
      "SOLANA_DEVNET_RPC_URL: required; the node's http(s) URL, or several comma-separated in order of preference",
      "TRON_NILE_RPC_URL: required; the node's http(s) URL, or several comma-separated in order of preference",
    ])
  })

  it('checks every value, without repeating a URL or a key', () => {
    const problems = problemsOf({
      ...rpc,
      TRON_RPC_URL: 'api.trongrid.io/secret-key-in-path',
      TRON_SOLIDITY_RPC_URL: 'wss://api.trongrid.io/secret-key-in-path',
      TRON_RPC_API_KEY: 'two words',
      SOLANA_RPC_URL: 'ftp://user:secret-password@solana.example.net',
      TRON_REQUIRED_CONFIRMATIONS: '1001',
      CHAIN_RPC_TIMEOUT_MS: '999',
      CHAIN_POLL_INTERVAL_MS: '99',
      CHAIN_START_HEIGHT_SOLANA: '-1',
    })
    expect(problems).toEqual([
      "TRON_REQUIRED_CONFIRMATIONS: expected an integer between 1 and 1000, got '1001'",
      "CHAIN_RPC_TIMEOUT_MS: expected an integer between 1000 and 60000, got '999'",
      "CHAIN_POLL_INTERVAL_MS: expected an integer between 100 and 60000, got '99'",
      'TRON_RPC_URL: expected an http or https URL',
      'TRON_SOLIDITY_RPC_URL: expected an http or https URL, got a wss: URL',
      'TRON_RPC_API_KEY: expected visible ASCII characters without spaces',
      'SOLANA_RPC_URL: expected an http or https URL, got a ftp: URL',
      "CHAIN_START_HEIGHT_SOLANA: expected an integer between 0 and 9007199254740991, got '-1'",
    ])
    expect(problems.join('\n')).not.toMatch(/secret|two words/)
  })

  it('refuses the variables of a network it does not watch: a typo or a forgotten CHAIN_NETWORKS entry', () => {
    expect(
      problemsOf({
        ...rpc,
        CHAIN_NETWORKS: 'TRON',
        SOLANA_RPC_URL: 'https://api.mainnet-beta.solana.com',
        TRON_NILLE_RPC_URL: 'https://nile.trongrid.io',
        SOLANA_DEVNET_REQUIRED_CONFIRMATIONS: '32',
        CHAIN_START_HEIGHT_SOLANA: '100',
        // not a chainpay network name, so not chainpay's variable
        ETHEREUM_RPC_URL: 'https://eth.example.net',
      }),
    ).toEqual([
      'SOLANA_DEVNET_REQUIRED_CONFIRMATIONS: SOLANA_DEVNET is not in CHAIN_NETWORKS (TRON); add it there or remove the variable',
      'CHAIN_START_HEIGHT_SOLANA: SOLANA is not in CHAIN_NETWORKS (TRON); add it there or remove the variable',
      'SOLANA_RPC_URL: SOLANA is not in CHAIN_NETWORKS (TRON); add it there or remove the variable',
      'TRON_NILLE_RPC_URL: TRON_NILLE is not a network; known: TRON, TRON_NILE, SOLANA, SOLANA_DEVNET',
    ])
  })

  it('refuses what only TRON has on a Solana network, and the simulator variables', () => {
    expect(
      problemsOf({
        ...rpc,
        SOLANA_SOLIDITY_RPC_URL: 'https://solana.example.net',
        SOLANA_RPC_API_KEY: 'abc',
        TRON_BLOCK_INTERVAL_MS: '3000',
        SIMULATOR_TOKEN: 'a-simulator-token-of-32-characters',
      }),
    ).toEqual([
      'SOLANA_RPC_API_KEY: only TRON networks have a solidity node and a TronGrid API key',
      'SOLANA_SOLIDITY_RPC_URL: only TRON networks have a solidity node and a TronGrid API key',
      'SIMULATOR_TOKEN: only read with CHAIN_MODE=simulator',
      'TRON_BLOCK_INTERVAL_MS: only read with CHAIN_MODE=simulator',
    ])
  })
})
