import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import { generateAdminToken, generateSecretKey } from '@chainpay/platform'
import { DEFAULT_HTTP_SERVER_LIMITS } from '@chainpay/service-kit'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readGatewayConfig } from './config.js'

const encryptionKey = generateSecretKey()
const adminToken = generateAdminToken()
const required = {
  PAYMENT_COMMAND_URL: 'http://127.0.0.1:8090',
  CHAINPAY_ENCRYPTION_KEY: encryptionKey,
  ADMIN_TOKEN: adminToken,
}

const COMMAND_API_TOKEN = 'command-api-token-0123456789abcdef'
const METRICS_TOKEN = 'metrics-token-0123456789abcdef0123'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readGatewayConfig(env))
}

describe('readGatewayConfig', () => {
  it('has defaults for everything but payment-command, the encryption key and the admin token', () => {
    expect(readGatewayConfig(required)).toEqual({
      host: '127.0.0.1',
      metricsHost: '127.0.0.1',
      metricsPort: 9464,
      metricsToken: undefined,
      port: 8080,
      adminHost: '127.0.0.1',
      adminPort: 8081,
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
      paymentCommandUrl: 'http://127.0.0.1:8090',
      commandApiToken: undefined,
      encryptionKeys: { current: encryptionKey, previous: [], unbound: 'open' },
      adminToken,
      rateLimit: { max: 1200, windowMs: 60_000, perAddressMax: 2400 },
      chainSimulatorUrl: undefined,
      callbackUrlPolicy: 'production',
      chains: { networks: ['TRON', 'TRON_NILE', 'SOLANA', 'SOLANA_DEVNET'], requiredConfirmations: {} },
      checkout: { publicUrl: 'http://localhost:8080', frameAncestors: [] },
      balanceRpc: { endpoints: [], timeoutMs: 10_000 },
    })
  })

  it('reads the nodes of the networks served for on-chain balances, never repeating their URLs', () => {
    const config = readGatewayConfig({
      ...required,
      CHAIN_NETWORKS: 'TRON,SOLANA',
      TRON_RPC_URL: 'https://api.trongrid.io',
      TRON_RPC_API_KEY: 'trongrid-key-0123',
      SOLANA_RPC_URL: 'https://rpc.example/?api-key=secret-in-url',
      CHAIN_RPC_TIMEOUT_MS: '5000',
    })
    expect(config.balanceRpc).toEqual({
      endpoints: [
        {
          network: 'TRON',
          chain: 'TRON',
          nodes: [
            {
              rpcUrl: 'https://api.trongrid.io',
              solidityRpcUrl: 'https://api.trongrid.io',
              apiKey: 'trongrid-key-0123',
            },
          ],
        },
        {
          network: 'SOLANA',
          chain: 'SOLANA',
          nodes: [{ rpcUrl: 'https://rpc.example/?api-key=secret-in-url', wsUrl: null }],
        },
      ],
      timeoutMs: 5000,
    })
    const problems = problemsOf({
      ...required,
      SOLANA_RPC_URL: 'ftp://rpc.example/secret-in-url',
      SOLANA_RPC_API_KEY: 'a-key',
      TRON_NILE_RPC_API_KEY: 'a-key',
    })
    expect(problems).toEqual(
      expect.arrayContaining([
        'SOLANA_RPC_URL: expected an http or https URL, got a ftp: URL',
        'SOLANA_RPC_API_KEY: only TRON networks have a TronGrid API key',
        'TRON_NILE_RPC_API_KEY: only read with TRON_NILE_RPC_URL',
      ]),
    )
    expect(problems.join('\n')).not.toContain('secret-in-url')
  })

  it("reads the customer's page's PUBLIC_URL and the origins that may frame it", () => {
    const config = readGatewayConfig({
      ...required,
      PUBLIC_URL: 'https://pay.example.com/',
      CHECKOUT_FRAME_ANCESTORS: 'https://shop.example.com,https://www.shop.example.com',
    })
    expect(config.checkout).toEqual({
      publicUrl: 'https://pay.example.com',
      frameAncestors: ['https://shop.example.com', 'https://www.shop.example.com'],
    })
    expect(() =>
      readGatewayConfig({ ...required, CHECKOUT_FRAME_ANCESTORS: 'https://shop.example.com/path' }),
    ).toThrow(/CHECKOUT_FRAME_ANCESTORS: expected origins/)
    expect(() => readGatewayConfig({ ...required, PUBLIC_URL: 'pay.example.com' })).toThrow(/PUBLIC_URL/)
    // the page's links are absolute paths under /pay/: a path prefix would lose them
    expect(() => readGatewayConfig({ ...required, PUBLIC_URL: 'https://shop.example.com/checkout' })).toThrow(
      /PUBLIC_URL: expected an origin without path/,
    )
    expect(() => readGatewayConfig({ ...required, PUBLIC_URL: 'https://pay.example.com/?shop=1' })).toThrow(
      /PUBLIC_URL: expected an origin without path, query/,
    )
  })

  it('reads every variable', () => {
    const previousKey = generateSecretKey()
    const config = readGatewayConfig({
      ...required,
      PAYMENT_COMMAND_URL: 'https://payment-command.internal:8443/',
      COMMAND_API_TOKEN: COMMAND_API_TOKEN,
      METRICS_TOKEN: METRICS_TOKEN,
      HOST: '0.0.0.0',
      PORT: '9080',
      ADMIN_HOST: '10.0.0.5',
      ADMIN_PORT: '9081',
      METRICS_HOST: '10.0.0.6',
      METRICS_PORT: '9464',
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'trace',
      KAFKA_BROKERS: '10.0.0.1:9092,10.0.0.2:9092',
      MONGODB_URL: 'mongodb://db:27017/',
      MONGODB_DATABASE: 'payments',
      BUS_NAMESPACE: 'blue',
      RATE_LIMIT_MAX: '50',
      RATE_LIMIT_WINDOW_MS: '1000',
      RATE_LIMIT_PER_ADDRESS_MAX: '70',
      TRUSTED_PROXIES: '10.0.0.0/8, fd00::/8,127.0.0.1',
      CHAIN_SIMULATOR_URL: 'http://127.0.0.1:8092',
      SIMULATOR_TOKEN: 'a-simulator-token-of-32-characters',
      CALLBACK_URL_POLICY: 'development',
      CHAIN_NETWORKS: 'TRON,SOLANA',
      CHAINPAY_ENCRYPTION_KEY_PREVIOUS: previousKey,
    })
    expect(config).toMatchObject({
      encryptionKeys: { current: encryptionKey, previous: [previousKey] },
      host: '0.0.0.0',
      metricsToken: METRICS_TOKEN,
      commandApiToken: COMMAND_API_TOKEN,
      port: 9080,
      adminHost: '10.0.0.5',
      adminPort: 9081,
      metricsHost: '10.0.0.6',
      metricsPort: 9464,
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'trace',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
      infrastructure: {
        kafkaBrokers: ['10.0.0.1:9092', '10.0.0.2:9092'],
        mongodbUrl: 'mongodb://db:27017/',
        mongodbDatabase: 'payments',
        busNamespace: 'blue',
      },
      paymentCommandUrl: 'https://payment-command.internal:8443',
      rateLimit: {
        max: 50,
        windowMs: 1000,
        perAddressMax: 70,
        trustedProxies: ['10.0.0.0/8', 'fd00::/8', '127.0.0.1'],
      },
      chainSimulatorUrl: 'http://127.0.0.1:8092',
      chainSimulatorToken: 'a-simulator-token-of-32-characters',
      callbackUrlPolicy: 'development',
      chains: { networks: ['TRON', 'SOLANA'], requiredConfirmations: {} },
    })
  })

  it('requires payment-command, the encryption key and the admin token', () => {
    expect(problemsOf({})).toEqual([
      'PAYMENT_COMMAND_URL: required',
      'CHAINPAY_ENCRYPTION_KEY: required',
      'ADMIN_TOKEN: required',
    ])
  })

  it('reports every problem together, naming the variable and what it expects', () => {
    expect(
      problemsOf({
        ...required,
        PAYMENT_COMMAND_URL: 'payment-command:8090',
        CHAINPAY_ENCRYPTION_KEY: 'abcd',
        PORT: '8081',
        ADMIN_PORT: '8081',
        LOG_LEVEL: 'loud',
        RATE_LIMIT_MAX: '0',
        RATE_LIMIT_WINDOW_MS: '999',
        RATE_LIMIT_PER_ADDRESS_MAX: '-1',
        TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/33,proxy.local',
        CHAIN_SIMULATOR_URL: 'ftp://127.0.0.1',
        CALLBACK_URL_POLICY: 'lax',
      }),
    ).toEqual([
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      "PAYMENT_COMMAND_URL: expected an absolute http(s) URL such as http://127.0.0.1:8090, got 'payment-command:8090'",
      'CHAINPAY_ENCRYPTION_KEY: secret key: expected 32 bytes written as base64 or as 64 hex characters, got 4 hex characters',
      "RATE_LIMIT_MAX: expected an integer of at least 1, got '0'",
      "RATE_LIMIT_WINDOW_MS: expected an integer of at least 1000, got '999'",
      "RATE_LIMIT_PER_ADDRESS_MAX: expected an integer of at least 1, got '-1'",
      "TRUSTED_PROXIES: expected addresses or CIDR ranges separated by commas (such as 127.0.0.1,10.0.0.0/8), got '10.0.0.0/33'",
      "TRUSTED_PROXIES: expected addresses or CIDR ranges separated by commas (such as 127.0.0.1,10.0.0.0/8), got 'proxy.local'",
      "CHAIN_SIMULATOR_URL: expected an absolute http(s) URL such as http://127.0.0.1:8090, got 'ftp://127.0.0.1'",
      "CALLBACK_URL_POLICY: expected one of production, development, got 'lax'",
      'PORT and ADMIN_PORT: must differ, both are 8081',
    ])
  })

  it('refuses a payment-command off loopback without COMMAND_API_TOKEN, and a metrics port off loopback without METRICS_TOKEN', () => {
    expect(
      problemsOf({
        ...required,
        PAYMENT_COMMAND_URL: 'http://chainpay-payment-command:8090',
        METRICS_HOST: '0.0.0.0',
      }),
    ).toEqual([
      'METRICS_TOKEN: required because METRICS_HOST (0.0.0.0) is not a loopback address: /metrics would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
      `COMMAND_API_TOKEN: required because PAYMENT_COMMAND_URL (chainpay-payment-command) is not a loopback address: payment-command's command API would answer anyone who reaches it (docs/operations.md, "Internal APIs")`,
    ])
    // the merchant API is public by design: HOST off loopback asks for no token; the admin API has
    // its ADMIN_TOKEN, and /metrics is no longer on its port
    expect(problemsOf({ ...required, HOST: '0.0.0.0', ADMIN_HOST: '0.0.0.0' })).toEqual([])
  })

  it('reads SIMULATOR_TOKEN only with CHAIN_SIMULATOR_URL', () => {
    expect(problemsOf({ ...required, SIMULATOR_TOKEN: 'a-simulator-token-of-32-characters' })).toEqual([
      'SIMULATOR_TOKEN: only read with CHAIN_SIMULATOR_URL',
    ])
  })

  it('checks the ports', () => {
    expect(problemsOf({ ...required, PORT: '-1', ADMIN_PORT: '65536', METRICS_PORT: 'x' })).toEqual([
      "PORT: expected an integer between 1 and 65535, got '-1'",
      "ADMIN_PORT: expected an integer between 1 and 65535, got '65536'",
      "METRICS_PORT: expected an integer between 1 and 65535, got 'x'",
    ])
    expect(problemsOf({ ...required, ADMIN_PORT: '9464' })).toEqual([
      'ADMIN_PORT and METRICS_PORT: must differ, both are 9464',
    ])
  })

  it('never repeats a short COMMAND_API_TOKEN in a message', () => {
    const token = 'too-short-but-secret'
    const problems = problemsOf({ ...required, COMMAND_API_TOKEN: token })
    expect(problems).toEqual([
      expect.stringMatching(/^COMMAND_API_TOKEN: expected at least 32 visible ASCII characters/),
    ])
    expect(problems.join('\n')).not.toContain(token)
  })

  it('refuses a weak admin token, saying how to generate one, without repeating it', () => {
    for (const weak of ['adm_operator', 'x'.repeat(40), 'changeme-changeme-changeme-changeme-1234']) {
      const problems = problemsOf({ ...required, ADMIN_TOKEN: weak })
      expect(problems, weak).toHaveLength(1)
      expect(problems[0]).toMatch(/^ADMIN_TOKEN: .*generate one with `openssl rand -hex 32`$/)
      expect(problems[0]).not.toContain(weak)
    }
  })

  it('never repeats the encryption key in a message', () => {
    const key = 'not-a-key-but-maybe-a-real-one-with-a-typo'
    expect(problemsOf({ ...required, CHAINPAY_ENCRYPTION_KEY: key }).join('\n')).not.toContain(key)
  })
})
