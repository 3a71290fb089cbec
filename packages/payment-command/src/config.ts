// payment-command's configuration, read once from the environment at start. Every problem, the key
// material's included, is reported together.

import { readFileSync } from 'node:fs'
import { readNetworkSettings, type ServedNetworks } from '@chainpay/domain'
import {
  type InfrastructureConfig,
  readEventStoreUrl,
  readInfrastructureConfig,
} from '@chainpay/infrastructure'
import { type EnvReader, readEnv } from '@chainpay/platform'
import { type RateConfig, readRateConfig } from '@chainpay/rates'
import {
  type CallbackUrlPolicy,
  checkDistinctPorts,
  type EncryptionKeys,
  type ReadTextFile,
  readCallbackUrlPolicy,
  readEncryptionKeys,
  readServiceToken,
  readSharedConfig,
  type SharedConfig,
} from '@chainpay/service-kit'
import { createSolanaAddressDeriver, createTronAddressDeriver } from '@chainpay/wallet'

export interface AddressKeys {
  /** extended public key of m/44'/195'/0' */
  tronAccountXpub: string
  /** hex BIP39 seed, the SLIP-0010 input for Solana addresses */
  solanaSeed: string
}

export interface PaymentCommandConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** EVENTSTORE_URL: the payment streams on EventStoreDB; null: the embedded event store in DATA_DIR */
  eventstoreUrl: string | null
  /**
   * the command API, with /healthz and /readyz (which the gateway's readiness and the probes call);
   * /metrics is on METRICS_PORT, apart from the commands
   */
  port: number
  /**
   * COMMAND_API_TOKEN: the bearer token every command requires; required when HOST is not loopback
   * (docs/operations.md, "Internal APIs")
   */
  commandApiToken: string | undefined
  keys: AddressKeys
  /**
   * CHAINPAY_ENCRYPTION_KEY (and _PREVIOUS): seals and opens merchants' own Solana seeds, which only
   * payment-command keeps (docs/security.md, "Merchant wallets")
   */
  encryptionKeys: EncryptionKeys
  /** production: https callback URLs on public hosts only; development: http and private hosts too */
  callbackUrlPolicy: CallbackUrlPolicy
  /**
   * CHAIN_NETWORKS (default every network of the registry) and `<NETWORK>_REQUIRED_CONFIRMATIONS`:
   * payments on other networks are UNSUPPORTED_ASSET; the chain-indexer reads the same variables
   */
  chains: ServedNetworks
  /** ADDRESS_POOL_SIZE: addresses derived ahead of need per chain family, in idle time; 0: none */
  addressPoolSize: number
  /**
   * the rate service that prices payments in fiat: RATE_SOURCES (default coingecko,kraken,coinbase; simulated
   * where chains are simulated), PRICE_CURRENCIES... (docs/operations.md, "Exchange rates")
   */
  rates: RateConfig
}

export type { ReadTextFile }

const readTextFile: ReadTextFile = (path) => readFileSync(path, 'utf8')

export function readPaymentCommandConfig(
  env: NodeJS.ProcessEnv = process.env,
  readFile: ReadTextFile = readTextFile,
): PaymentCommandConfig {
  const read = readEnv(env)
  const port = read.int('PORT', { default: 8090, min: 1, max: 65535 })
  const shared = readSharedConfig(read, 'payment-command', readFile)
  const config: PaymentCommandConfig = {
    port,
    ...shared,
    commandApiToken: readServiceToken(read, 'COMMAND_API_TOKEN', {
      hostVariable: 'HOST',
      host: shared.host,
      serves: 'the command API',
    }),
    infrastructure: readInfrastructureConfig(read),
    eventstoreUrl: readEventStoreUrl(read),
    keys: readAddressKeys(read, readFile),
    encryptionKeys: readEncryptionKeys(read),
    callbackUrlPolicy: readCallbackUrlPolicy(read),
    chains: readNetworkSettings(read, env, shared.registry, {
      defaultNetworks: shared.registry.networks.map((definition) => definition.network),
    }),
    addressPoolSize: readAddressPoolSize(read),
    rates: readRateConfig(read, { simulatedChains: false }),
  }
  checkDistinctPorts(read, { PORT: port, METRICS_PORT: shared.metricsPort })
  read.done()
  return config
}

/** ADDRESS_POOL_SIZE (docs/operations.md, "Addresses derived ahead"); standalone reads it too */
export function readAddressPoolSize(read: EnvReader): number {
  return read.int('ADDRESS_POOL_SIZE', { default: 256, min: 0, max: 100_000 })
}

/**
 * The key material addresses are derived from: TRON_ACCOUNT_XPUB and SOLANA_SEED, or WALLET_FILE (a
 * JSON file holding both), each key parsed now so that a bad one stops the start.
 */
export function readAddressKeys(read: EnvReader, readFile: ReadTextFile = readTextFile): AddressKeys {
  const tronAccountXpub = read.optionalString('TRON_ACCOUNT_XPUB')
  const solanaSeed = read.optionalString('SOLANA_SEED')
  const walletFile = read.optionalString('WALLET_FILE')
  const none = { tronAccountXpub: '', solanaSeed: '' }

  if (walletFile !== undefined) {
    if (tronAccountXpub !== undefined || solanaSeed !== undefined) {
      read.problem('WALLET_FILE: set either WALLET_FILE or TRON_ACCOUNT_XPUB and SOLANA_SEED, not both')
      return none
    }
    const keys = readWalletFile(read, walletFile, readFile)
    if (keys) {
      const names = {
        xpub: `WALLET_FILE ${walletFile} tronAccountXpub`,
        seed: `WALLET_FILE ${walletFile} solanaSeed`,
      }
      checkKeys(read, keys, names)
    }
    return keys ?? none
  }
  if (tronAccountXpub === undefined && solanaSeed === undefined) {
    read.problem(
      'TRON_ACCOUNT_XPUB and SOLANA_SEED: required (or WALLET_FILE: a development wallet JSON with tronAccountXpub and solanaSeed)',
    )
    return none
  }
  if (tronAccountXpub === undefined) read.problem('TRON_ACCOUNT_XPUB: required together with SOLANA_SEED')
  if (solanaSeed === undefined) read.problem('SOLANA_SEED: required together with TRON_ACCOUNT_XPUB')
  if (tronAccountXpub === undefined || solanaSeed === undefined) return none
  checkKeys(read, { tronAccountXpub, solanaSeed }, { xpub: 'TRON_ACCOUNT_XPUB', seed: 'SOLANA_SEED' })
  return { tronAccountXpub, solanaSeed }
}

function readWalletFile(read: EnvReader, path: string, readFile: ReadTextFile): AddressKeys | undefined {
  let text: string
  try {
    text = readFile(path)
  } catch (error) {
    read.problem(`WALLET_FILE: cannot read ${path}: ${(error as Error).message}`)
    return undefined
  }
  let wallet: unknown
  try {
    wallet = JSON.parse(text)
  } catch {
    read.problem(`WALLET_FILE: ${path} is not JSON`)
    return undefined
  }
  const { tronAccountXpub, solanaSeed } = (wallet ?? {}) as Record<string, unknown>
  if (typeof tronAccountXpub !== 'string' || typeof solanaSeed !== 'string') {
    read.problem(`WALLET_FILE: ${path} must hold the strings tronAccountXpub and solanaSeed`)
    return undefined
  }
  return { tronAccountXpub, solanaSeed }
}

/** parses both keys now, so that a bad key stops the start instead of the first payment */
function checkKeys(read: EnvReader, keys: AddressKeys, names: { xpub: string; seed: string }): void {
  try {
    createTronAddressDeriver(keys.tronAccountXpub)
  } catch (error) {
    read.problem(`${names.xpub}: ${(error as Error).message}`)
  }
  try {
    createSolanaAddressDeriver(keys.solanaSeed)
  } catch (error) {
    read.problem(`${names.seed}: ${(error as Error).message}`)
  }
}
