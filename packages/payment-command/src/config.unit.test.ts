import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import { generateSecretKey } from '@chainpay/platform'
import { DEFAULT_HTTP_SERVER_LIMITS } from '@chainpay/service-kit'
import { configProblems } from '@chainpay/service-kit/testing'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { describe, expect, it } from 'vitest'
import { type ReadTextFile, readPaymentCommandConfig } from './config.js'

const wallet = createDevelopmentWallet()
const keys = { tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed }
const encryptionKey = generateSecretKey()
const keyEnv = {
  TRON_ACCOUNT_XPUB: keys.tronAccountXpub,
  SOLANA_SEED: keys.solanaSeed,
  CHAINPAY_ENCRYPTION_KEY: encryptionKey,
}

/** files the configuration may read, by path; any other path does not exist */
function files(contents: Record<string, string>): ReadTextFile {
  return (path) => {
    const text = contents[path]
    if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`)
    return text
  }
}

const COMMAND_API_TOKEN = 'command-api-token-0123456789abcdef'
const METRICS_TOKEN = 'metrics-token-0123456789abcdef0123'

/** the problems of `env`, the encryption key given (unless `env` sets it) */
function problemsOf(env: NodeJS.ProcessEnv, readFile: ReadTextFile = files({})): string[] {
  return configProblems(() =>
    readPaymentCommandConfig({ CHAINPAY_ENCRYPTION_KEY: encryptionKey, ...env }, readFile),
  )
}

describe('readPaymentCommandConfig', () => {
  it('has defaults for everything but the key material', () => {
    expect(readPaymentCommandConfig(keyEnv, files({}))).toEqual({
      host: '127.0.0.1',
      port: 8090,
      metricsHost: '127.0.0.1',
      metricsPort: 9465,
      commandApiToken: undefined,
      metricsToken: undefined,
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
      eventstoreUrl: null,
      keys,
      encryptionKeys: { current: encryptionKey, previous: [], unbound: 'open' },
      callbackUrlPolicy: 'production',
      chains: { networks: ['TRON', 'TRON_NILE', 'SOLANA', 'SOLANA_DEVNET'], requiredConfirmations: {} },
      addressPoolSize: 256,
      // docs/operations.md, "Exchange rates": the public price APIs by default
      rates: expect.objectContaining({
        sources: ['coingecko', 'kraken', 'coinbase'],
        priceCurrencies: ['USD', 'EUR'],
      }),
    })
  })

  it('reads every variable', () => {
    const config = readPaymentCommandConfig(
      {
        ...keyEnv,
        HOST: '0.0.0.0',
        PORT: '9090',
        METRICS_HOST: '0.0.0.0',
        METRICS_PORT: '9091',
        COMMAND_API_TOKEN: COMMAND_API_TOKEN,
        METRICS_TOKEN: METRICS_TOKEN,
        DATA_DIR: '/var/lib/chainpay',
        LOG_LEVEL: 'fatal',
        KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
        MONGODB_URL: 'mongodb://db:27017/',
        MONGODB_DATABASE: 'payments',
        BUS_NAMESPACE: 'blue',
        EVENTSTORE_URL: 'kurrentdb://es:2113?tls=false',
        CALLBACK_URL_POLICY: 'development',
        CHAIN_NETWORKS: 'TRON,SOLANA_DEVNET',
        TRON_REQUIRED_CONFIRMATIONS: '19',
        SOLANA_DEVNET_REQUIRED_CONFIRMATIONS: '1',
        ADDRESS_POOL_SIZE: '5000',
        RATE_SOURCES: 'simulated',
        PRICE_CURRENCIES: 'USD',
      },
      files({}),
    )
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 9090,
      metricsHost: '0.0.0.0',
      metricsPort: 9091,
      commandApiToken: COMMAND_API_TOKEN,
      metricsToken: METRICS_TOKEN,
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'fatal',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
      infrastructure: {
        kafkaBrokers: ['10.0.0.1:9092', '10.0.0.2:9092'],
        mongodbUrl: 'mongodb://db:27017/',
        mongodbDatabase: 'payments',
        busNamespace: 'blue',
      },
      eventstoreUrl: 'kurrentdb://es:2113?tls=false',
      keys,
      encryptionKeys: { current: encryptionKey, previous: [], unbound: 'open' },
      callbackUrlPolicy: 'development',
      chains: { networks: ['TRON', 'SOLANA_DEVNET'], requiredConfirmations: { TRON: 19, SOLANA_DEVNET: 1 } },
      addressPoolSize: 5000,
      rates: expect.objectContaining({ sources: ['simulated'], priceCurrencies: ['USD'] }),
    })
  })

  it('refuses to listen off loopback without COMMAND_API_TOKEN and METRICS_TOKEN, saying why', () => {
    expect(problemsOf({ ...keyEnv, HOST: '0.0.0.0', METRICS_HOST: '0.0.0.0' })).toEqual([
      'METRICS_TOKEN: required because METRICS_HOST (0.0.0.0) is not a loopback address: /metrics would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
      'COMMAND_API_TOKEN: required because HOST (0.0.0.0) is not a loopback address: the command API would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
    ])
    expect(problemsOf({ ...keyEnv, HOST: '10.1.2.3' })).toEqual([
      expect.stringMatching(/^COMMAND_API_TOKEN: required because HOST \(10\.1\.2\.3\)/),
    ])
  })

  it('refuses a guessable COMMAND_API_TOKEN without repeating it, and one port for both listeners', () => {
    const problems = problemsOf({
      ...keyEnv,
      COMMAND_API_TOKEN: 'hunter2',
      PORT: '9000',
      METRICS_PORT: '9000',
    })
    expect(problems).toEqual([
      'COMMAND_API_TOKEN: expected at least 32 visible ASCII characters without spaces (e.g. openssl rand -hex 32), got 7 characters',
      'PORT and METRICS_PORT: must differ, both are 9000',
    ])
  })

  it('takes the keys from a development wallet file instead', () => {
    const walletFile = JSON.stringify({ note: 'development only', ...wallet })
    const config = readPaymentCommandConfig(
      { WALLET_FILE: '/data/dev-wallet.json', CHAINPAY_ENCRYPTION_KEY: encryptionKey },
      files({ '/data/dev-wallet.json': walletFile }),
    )
    expect(config.keys).toEqual(keys)
  })

  it("needs the encryption key that seals merchants' own seeds, and checks it at start", () => {
    const { CHAINPAY_ENCRYPTION_KEY: _, ...withoutKey } = keyEnv
    expect(configProblems(() => readPaymentCommandConfig(withoutKey, files({})))).toEqual([
      'CHAINPAY_ENCRYPTION_KEY: required',
    ])
    expect(problemsOf({ ...keyEnv, CHAINPAY_ENCRYPTION_KEY: 'short' })).toHaveLength(1)
    expect(problemsOf({ ...keyEnv, CHAINPAY_ENCRYPTION_KEY: 'short' })[0]).toMatch(
      /^CHAINPAY_ENCRYPTION_KEY: /,
    )
  })

  it('says where keys come from when there are none', () => {
    expect(problemsOf({})).toEqual([
      'TRON_ACCOUNT_XPUB and SOLANA_SEED: required (or WALLET_FILE: a development wallet JSON with tronAccountXpub and solanaSeed)',
    ])
  })

  it('wants both keys, and either the keys or a wallet file', () => {
    expect(problemsOf({ TRON_ACCOUNT_XPUB: keys.tronAccountXpub })).toEqual([
      'SOLANA_SEED: required together with TRON_ACCOUNT_XPUB',
    ])
    expect(problemsOf({ SOLANA_SEED: keys.solanaSeed })).toEqual([
      'TRON_ACCOUNT_XPUB: required together with SOLANA_SEED',
    ])
    expect(problemsOf({ ...keyEnv, WALLET_FILE: '/data/dev-wallet.json' })).toEqual([
      'WALLET_FILE: set either WALLET_FILE or TRON_ACCOUNT_XPUB and SOLANA_SEED, not both',
    ])
  })

  it('checks the keys at start', () => {
    const privateKey =
      'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi'
    expect(problemsOf({ TRON_ACCOUNT_XPUB: privateKey, SOLANA_SEED: 'abc' })).toEqual([
      'TRON_ACCOUNT_XPUB: the TRON account key must be an extended public key (xpub), not a private one',
      'SOLANA_SEED: the seed must be hex text (pairs of 0-9a-f)',
    ])
    expect(problemsOf({ ...keyEnv, SOLANA_SEED: 'ab'.repeat(8 * 9) })[0]).toBe(
      'SOLANA_SEED: the seed must be 16 to 64 bytes, got 72',
    )
  })

  it('explains what is wrong with a wallet file', () => {
    const env = { WALLET_FILE: '/data/dev-wallet.json' }
    expect(problemsOf(env)).toEqual([
      "WALLET_FILE: cannot read /data/dev-wallet.json: ENOENT: no such file or directory, open '/data/dev-wallet.json'",
    ])
    expect(problemsOf(env, files({ '/data/dev-wallet.json': '{"tronAccountXpub":' }))).toEqual([
      'WALLET_FILE: /data/dev-wallet.json is not JSON',
    ])
    expect(problemsOf(env, files({ '/data/dev-wallet.json': '{"mnemonic":"abandon"}' }))).toEqual([
      'WALLET_FILE: /data/dev-wallet.json must hold the strings tronAccountXpub and solanaSeed',
    ])
    const badSeed = JSON.stringify({ ...keys, solanaSeed: 'zz' })
    expect(problemsOf(env, files({ '/data/dev-wallet.json': badSeed }))).toEqual([
      'WALLET_FILE /data/dev-wallet.json solanaSeed: the seed must be hex text (pairs of 0-9a-f)',
    ])
  })

  it('reports every problem together, naming the variable and what it expects', () => {
    expect(
      problemsOf({ PORT: '99999', LOG_LEVEL: 'loud', CALLBACK_URL_POLICY: 'lax', TRON_ACCOUNT_XPUB: 'x' }),
    ).toEqual([
      "PORT: expected an integer between 1 and 65535, got '99999'",
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      'SOLANA_SEED: required together with TRON_ACCOUNT_XPUB',
      "CALLBACK_URL_POLICY: expected one of production, development, got 'lax'",
    ])
  })

  it('checks the networks served and their confirmations, naming the variable', () => {
    expect(
      problemsOf({
        ...keyEnv,
        CHAIN_NETWORKS: 'TRON, tron,ETHEREUM,TRON',
        TRON_REQUIRED_CONFIRMATIONS: '0',
      }),
    ).toEqual([
      "CHAIN_NETWORKS: unknown network 'tron'; known: TRON, TRON_NILE, SOLANA, SOLANA_DEVNET",
      "CHAIN_NETWORKS: unknown network 'ETHEREUM'; known: TRON, TRON_NILE, SOLANA, SOLANA_DEVNET",
      'CHAIN_NETWORKS: TRON is listed twice',
      "TRON_REQUIRED_CONFIRMATIONS: expected an integer between 1 and 1000, got '0'",
    ])
    expect(problemsOf({ ...keyEnv, SOLANA_REQUIRED_CONFIRMATIONS: '1001' })).toEqual([
      "SOLANA_REQUIRED_CONFIRMATIONS: expected an integer between 1 and 1000, got '1001'",
    ])
  })

  it('refuses confirmations for a network it does not serve, a typo or a forgotten CHAIN_NETWORKS entry', () => {
    expect(
      problemsOf({
        ...keyEnv,
        CHAIN_NETWORKS: 'TRON',
        SOLANA_REQUIRED_CONFIRMATIONS: '32',
        TRON_NILLE_REQUIRED_CONFIRMATIONS: '20',
        // empty counts as unset
        SOLANA_DEVNET_REQUIRED_CONFIRMATIONS: '',
      }),
    ).toEqual([
      'SOLANA_REQUIRED_CONFIRMATIONS: SOLANA is not in CHAIN_NETWORKS (TRON); add it there or remove the variable',
      'TRON_NILLE_REQUIRED_CONFIRMATIONS: TRON_NILLE is not a network; known: TRON, TRON_NILE, SOLANA, SOLANA_DEVNET',
    ])
  })

  it('ignores the RPC variables of the chain-indexer, so that both may share one environment', () => {
    const config = readPaymentCommandConfig(
      { ...keyEnv, CHAIN_NETWORKS: 'TRON', TRON_RPC_URL: 'https://api.trongrid.io', TRON_RPC_API_KEY: 'k' },
      files({}),
    )
    expect(config.chains).toEqual({ networks: ['TRON'], requiredConfirmations: {} })
  })

  it('never repeats key material in a message', () => {
    const seed = 'ab'.repeat(70)
    const messages = problemsOf({ TRON_ACCOUNT_XPUB: `${keys.tronAccountXpub}x`, SOLANA_SEED: seed }).join(
      '\n',
    )
    expect(messages).toContain('TRON_ACCOUNT_XPUB: ')
    expect(messages).toContain('SOLANA_SEED: ')
    expect(messages).not.toContain(seed)
    expect(messages).not.toContain(keys.tronAccountXpub)
  })
})
