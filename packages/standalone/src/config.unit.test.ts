import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
import { generateAdminToken, generateSecretKey } from '@chainpay/platform'
import { DEFAULT_HTTP_SERVER_LIMITS } from '@chainpay/service-kit'
import { configProblems } from '@chainpay/service-kit/testing'
import { createDevelopmentWallet } from '@chainpay/wallet'
import { describe, expect, it } from 'vitest'
import { readStandaloneConfig } from './config.js'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readStandaloneConfig(env))
}

const wallet = createDevelopmentWallet()
const live = {
  CHAIN_MODE: 'rpc',
  CHAIN_NETWORKS: 'TRON_NILE,SOLANA_DEVNET',
  TRON_NILE_RPC_URL: 'https://nile.trongrid.io',
  SOLANA_DEVNET_RPC_URL: 'https://api.devnet.solana.com',
  TRON_ACCOUNT_XPUB: wallet.tronAccountXpub,
  SOLANA_SEED: wallet.solanaSeed,
  PUBLIC_URL: 'https://pay.example.com',
}

describe('readStandaloneConfig', () => {
  it('has defaults for everything: every network of the registry simulated, in development', () => {
    expect(readStandaloneConfig({})).toEqual({
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
      sqliteSynchronous: 'FULL',
      rateLimit: { max: 1200, windowMs: 60_000, perAddressMax: 2400 },
      webhookRetryScheduleMs: undefined,
      webhookConcurrency: { total: 64, perTargetHost: 4 },
      addressPoolSize: 256,
      // simulated chains, simulated rates (docs/operations.md, "Exchange rates")
      rates: expect.objectContaining({ sources: ['simulated'], priceCurrencies: ['USD', 'EUR'] }),
      webhookRetentionDays: 90,
      callbackUrlPolicy: 'development',
      chains: {
        chainMode: 'simulator',
        solanaWatchMode: 'address',
        treasuries: [],
        solanaCheckIntervalMs: 600000,
        solanaDepositCheckIntervalMs: 600000,
        chains: { networks: ['TRON', 'TRON_NILE', 'SOLANA', 'SOLANA_DEVNET'], requiredConfirmations: {} },
        blockIntervalMs: { TRON: 300, SOLANA: 200 },
        simulatorClient: 'in-process',
      },
      keys: null,
      encryptionKey: undefined,
      adminToken: undefined,
      previousEncryptionKeys: [],
      unboundSecrets: 'open',
      checkout: { publicUrl: 'http://localhost:8080', frameAncestors: [] },
    })
  })

  it('with CHAIN_MODE=rpc, reads the nodes and the key material as the services do, under production rules', () => {
    const config = readStandaloneConfig({ ...live, TRON_NILE_REQUIRED_CONFIRMATIONS: '19' })
    expect(config).toMatchObject({
      callbackUrlPolicy: 'production',
      // real chains, the public price APIs
      rates: { sources: ['coingecko', 'kraken', 'coinbase'] },
      keys: { tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed },
      chains: {
        chainMode: 'rpc',
        solanaWatchMode: 'address',
        treasuries: [],
        solanaCheckIntervalMs: 600000,
        solanaDepositCheckIntervalMs: 600000,
        chains: { networks: ['TRON_NILE', 'SOLANA_DEVNET'], requiredConfirmations: { TRON_NILE: 19 } },
        endpoints: [
          { network: 'TRON_NILE', chain: 'TRON', nodes: [{ rpcUrl: 'https://nile.trongrid.io' }] },
          { network: 'SOLANA_DEVNET', chain: 'SOLANA', nodes: [{ rpcUrl: 'https://api.devnet.solana.com' }] },
        ],
      },
    })
    expect(readStandaloneConfig({ ...live, CALLBACK_URL_POLICY: 'development' }).callbackUrlPolicy).toBe(
      'development',
    )
  })

  it('reads the webhook concurrency as the notifier does', () => {
    const env = { WEBHOOK_CONCURRENCY: '8', WEBHOOK_CONCURRENCY_PER_HOST: '2' }
    expect(readStandaloneConfig(env).webhookConcurrency).toEqual({ total: 8, perTargetHost: 2 })
    expect(readStandaloneConfig({ WEBHOOK_RETENTION_DAYS: '7' }).webhookRetentionDays).toBe(7)
  })

  it('with CHAIN_MODE=rpc, requires the key material and a node for every network served', () => {
    const { TRON_ACCOUNT_XPUB, SOLANA_SEED, SOLANA_DEVNET_RPC_URL, ...withoutKeys } = live
    expect(problemsOf(withoutKeys)).toEqual([
      "SOLANA_DEVNET_RPC_URL: required; the node's http(s) URL, or several comma-separated in order of preference",
      'TRON_ACCOUNT_XPUB and SOLANA_SEED: required (or WALLET_FILE: a development wallet JSON with tronAccountXpub and solanaSeed)',
    ])
  })

  it('reads the encryption keys and the admin token that override the generated ones', () => {
    const [current, previous] = [generateSecretKey(), generateSecretKey()]
    const adminToken = generateAdminToken()
    expect(
      readStandaloneConfig({
        CHAINPAY_ENCRYPTION_KEY: current,
        CHAINPAY_ENCRYPTION_KEY_PREVIOUS: previous,
        ADMIN_TOKEN: adminToken,
      }),
    ).toMatchObject({ encryptionKey: current, previousEncryptionKeys: [previous], adminToken })
  })

  it("refuses a PUBLIC_URL with a path or a query, as the gateway does: the page's links are under /pay/ of the host", () => {
    expect(readStandaloneConfig({ PUBLIC_URL: 'https://pay.example.com/' }).checkout.publicUrl).toBe(
      'https://pay.example.com',
    )
    for (const publicUrl of ['https://shop.example.com/checkout', 'https://pay.example.com/?shop=1']) {
      expect(problemsOf({ PUBLIC_URL: publicUrl }), publicUrl).toEqual([
        expect.stringMatching(/^PUBLIC_URL: expected an origin without path, query, fragment or credentials/),
      ])
    }
  })

  it('with CHAIN_MODE=rpc, refuses a PUBLIC_URL no customer reaches (this machine only), unless ALLOW_LOOPBACK_PUBLIC_URL says so', () => {
    const { PUBLIC_URL, ...withoutPublicUrl } = live
    expect(problemsOf(withoutPublicUrl)).toEqual([
      'PUBLIC_URL: http://localhost:8080 (the default) is this machine only, but with CHAIN_MODE=rpc customers open checkoutUrl on their own devices: set PUBLIC_URL to the public https origin whose proxy forwards /pay/* and /api/merchant/v1/* here (docs/going-live.md), or ALLOW_LOOPBACK_PUBLIC_URL=true for a trial on this machine',
    ])
    for (const local of [
      'http://127.0.0.1:8080',
      'http://127.0.0.2',
      'http://[::1]:8080',
      'https://shop.localhost',
      'http://0.0.0.0:8080',
    ]) {
      expect(problemsOf({ ...live, PUBLIC_URL: local }), local).toEqual([
        expect.stringMatching(
          new RegExp(`^PUBLIC_URL: ${local.replace(/[.[\]]/g, '\\$&')} is this machine only`),
        ),
      ])
    }
    expect(readStandaloneConfig(live).checkout.publicUrl).toBe('https://pay.example.com')
    expect(
      readStandaloneConfig({ ...withoutPublicUrl, ALLOW_LOOPBACK_PUBLIC_URL: 'true' }).checkout.publicUrl,
    ).toBe('http://localhost:8080')
    // simulated chains: the page is this machine's to try
    expect(problemsOf({})).toEqual([])
  })

  it('checks them as the services do, never repeating them', () => {
    const badKey = 'maybe!a-real-key-with-a-typo'
    const problems = problemsOf({
      CHAINPAY_ENCRYPTION_KEY: badKey,
      CHAINPAY_ENCRYPTION_KEY_PREVIOUS: badKey,
      ADMIN_TOKEN: 'adm_operator',
    })
    expect(problems).toEqual([
      'CHAINPAY_ENCRYPTION_KEY: secret key: expected 32 bytes written as base64 or as 64 hex characters',
      'ADMIN_TOKEN: too short: at least 32 characters, got 12; generate one with `openssl rand -hex 32`',
      'CHAINPAY_ENCRYPTION_KEY_PREVIOUS (key 1 of 1): secret key: expected 32 bytes written as base64 or as 64 hex characters',
    ])
    expect(problems.join('\n')).not.toContain(badKey)
    expect(problems.join('\n')).not.toContain('adm_operator')
  })

  it('refuses key material for simulated chains and the distributed shape’s variables, with the other problems', () => {
    expect(
      problemsOf({
        PORT: '9000',
        ADMIN_PORT: '9000',
        LOG_LEVEL: 'loud',
        SOLANA_SEED: wallet.solanaSeed,
        MONGODB_URL: 'mongodb://db:27017',
      }),
    ).toEqual([
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      'PORT and ADMIN_PORT: must differ, both are 9000',
      'SOLANA_SEED: only read with CHAIN_MODE=rpc; simulated chains use the development wallet of DATA_DIR',
      'MONGODB_URL: standalone runs every service in one process on its own storage; MONGODB_URL belongs to the distributed shape (docs/deploy.md)',
    ])
  })

  it('listens on loopback unless HOST says otherwise; a metrics port off loopback needs METRICS_TOKEN, a public merchant port or an admin port (ADMIN_TOKEN) does not', () => {
    expect(readStandaloneConfig({}).host).toBe('127.0.0.1')
    expect(problemsOf({ HOST: '0.0.0.0', ADMIN_HOST: '0.0.0.0' })).toEqual([])
    expect(problemsOf({ METRICS_HOST: '0.0.0.0' })).toEqual([
      'METRICS_TOKEN: required because METRICS_HOST (0.0.0.0) is not a loopback address: /metrics would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
    ])
    expect(
      readStandaloneConfig({ METRICS_HOST: '0.0.0.0', METRICS_TOKEN: 'metrics-token-0123456789abcdef0123' }),
    ).toMatchObject({ metricsHost: '0.0.0.0', metricsToken: 'metrics-token-0123456789abcdef0123' })
    expect(problemsOf({ METRICS_PORT: '8081' })).toEqual([
      'ADMIN_PORT and METRICS_PORT: must differ, both are 8081',
    ])
  })

  it('refuses COMMAND_API_TOKEN: standalone has no command API, the gateway calls payment-command in process', () => {
    expect(problemsOf({ COMMAND_API_TOKEN: 'command-api-token-0123456789abcdef' })).toEqual([
      'COMMAND_API_TOKEN: standalone runs every service in one process on its own storage; COMMAND_API_TOKEN belongs to the distributed shape (docs/deploy.md)',
    ])
  })
})
