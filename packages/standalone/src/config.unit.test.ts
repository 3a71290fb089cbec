import { resolve } from 'node:path'
import { defaultAssetRegistry } from '@chainpay/domain'
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
}

describe('readStandaloneConfig', () => {
  it('has defaults for everything: every network of the registry simulated, in development', () => {
    expect(readStandaloneConfig({})).toEqual({
      host: '0.0.0.0',
      port: 8080,
      adminHost: '127.0.0.1',
      adminPort: 8081,
      dataDir: resolve('data'),
      databaseFile: resolve('data', 'chainpay.sqlite'),
      logLevel: 'info',
      registry: defaultAssetRegistry,
      sqliteSynchronous: 'FULL',
      rateLimit: { max: 1200, windowMs: 60_000 },
      webhookRetryScheduleMs: undefined,
      callbackUrlPolicy: 'development',
      chains: {
        chainMode: 'simulator',
        chains: { networks: ['TRON', 'TRON_NILE', 'SOLANA', 'SOLANA_DEVNET'], requiredConfirmations: {} },
        blockIntervalMs: { TRON: 300, SOLANA: 200 },
        simulatorClient: 'in-process',
      },
      keys: null,
      encryptionKey: undefined,
      adminToken: undefined,
    })
  })

  it('with CHAIN_MODE=rpc, reads the nodes and the key material as the services do, under production rules', () => {
    const config = readStandaloneConfig({ ...live, TRON_NILE_REQUIRED_CONFIRMATIONS: '19' })
    expect(config).toMatchObject({
      callbackUrlPolicy: 'production',
      keys: { tronAccountXpub: wallet.tronAccountXpub, solanaSeed: wallet.solanaSeed },
      chains: {
        chainMode: 'rpc',
        chains: { networks: ['TRON_NILE', 'SOLANA_DEVNET'], requiredConfirmations: { TRON_NILE: 19 } },
        endpoints: [
          { network: 'TRON_NILE', chain: 'TRON', rpcUrl: 'https://nile.trongrid.io' },
          { network: 'SOLANA_DEVNET', chain: 'SOLANA', rpcUrl: 'https://api.devnet.solana.com' },
        ],
      },
    })
    expect(readStandaloneConfig({ ...live, CALLBACK_URL_POLICY: 'development' }).callbackUrlPolicy).toBe(
      'development',
    )
  })

  it('with CHAIN_MODE=rpc, requires the key material and a node for every network served', () => {
    const { TRON_ACCOUNT_XPUB, SOLANA_SEED, SOLANA_DEVNET_RPC_URL, ...withoutKeys } = live
    expect(problemsOf(withoutKeys)).toEqual([
      "SOLANA_DEVNET_RPC_URL: required; the node's http(s) URL",
      'TRON_ACCOUNT_XPUB and SOLANA_SEED: required (or WALLET_FILE: a development wallet JSON with tronAccountXpub and solanaSeed)',
    ])
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
})
