// Standalone's configuration, read once from the environment at start. It is the five services'
// settings, read by their own readers where one process reads them alike (the chains, the key
// material, the API ports, the rate limit, the retry schedule), with the defaults of a process that
// runs on its own: simulated chains unless CHAIN_MODE=rpc, secrets and (with simulated chains) a
// development wallet generated on the first start (docs/operations.md, "Standalone").

import { type ChainSettings, readChainSettings } from '@chainpay/chain-indexer'
import {
  type CheckoutSettings,
  checkApiPorts,
  type RateLimitSettings,
  readApiPorts,
  readCheckoutSettings,
  readRateLimit,
} from '@chainpay/gateway'
import {
  readRetrySchedule,
  readWebhookConcurrency,
  readWebhookRetentionDays,
  type WebhookConcurrency,
} from '@chainpay/notifier'
import {
  type AddressKeys,
  type RateConfig,
  readAddressKeys,
  readAddressPoolSize,
  readRateConfig,
} from '@chainpay/payment-command'
import { type EnvReader, readEnv, secretKeyProblem } from '@chainpay/platform'
import {
  type CallbackUrlPolicy,
  checkAdminToken,
  isLoopbackHost,
  type PortClaim,
  type ReadTextFile,
  readCallbackUrlPolicy,
  readPreviousEncryptionKeys,
  readSharedConfig,
  readUnboundSecrets,
  type SharedConfig,
} from '@chainpay/service-kit'
import { SQLITE_SYNCHRONOUS_MODES, type SqliteSynchronous } from '@chainpay/store-sqlite'

export interface StandaloneConfig extends SharedConfig {
  /** the merchant API (and, with simulated chains, the simulator's routes) */
  port: number
  adminHost: string
  adminPort: number
  /** SQLITE_SYNCHRONOUS: FULL (default) syncs every commit, NORMAL can lose the last ones to a power loss */
  sqliteSynchronous: SqliteSynchronous
  rateLimit: RateLimitSettings
  /** WEBHOOK_RETRY_SCHEDULE; the notifier's default schedule when undefined */
  webhookRetryScheduleMs: number[] | undefined
  /** WEBHOOK_CONCURRENCY and WEBHOOK_CONCURRENCY_PER_HOST, as the notifier reads them */
  webhookConcurrency: WebhookConcurrency
  /** ADDRESS_POOL_SIZE, as payment-command reads it */
  addressPoolSize: number
  /** the rate service's configuration (docs/operations.md, "Exchange rates") */
  rates: RateConfig
  /** WEBHOOK_RETENTION_DAYS, as the notifier reads it */
  webhookRetentionDays: number
  /**
   * CALLBACK_URL_POLICY for callback and webhook URLs: development (http, loopback and private
   * hosts allowed) by default with simulated chains, production (https on public hosts only,
   * docs/api.md, "POST /payments") by default with real ones
   */
  callbackUrlPolicy: CallbackUrlPolicy
  /** CHAIN_MODE (default simulator) and what it reads, as the chain-indexer reads it */
  chains: ChainSettings
  /**
   * TRON_ACCOUNT_XPUB and SOLANA_SEED, or WALLET_FILE, as payment-command reads them: required with
   * real chains; null with simulated ones, which use the development wallet of the data directory
   */
  keys: AddressKeys | null
  /** override the generated ones (standalone-secrets.json); checked as the services check them */
  encryptionKey: string | undefined
  adminToken: string | undefined
  /**
   * CHAINPAY_ENCRYPTION_KEY_PREVIOUS: keys that only open, during a key rotation; added to those of
   * standalone-secrets.json (docs/operations.md, "Rotating the encryption key")
   */
  previousEncryptionKeys: string[]
  /** CHAINPAY_UNBOUND_SECRETS, as the gateway and the notifier read it */
  unboundSecrets: 'open' | 'refuse'
  /** PUBLIC_URL (http://localhost:{PORT} by default) and CHECKOUT_FRAME_ANCESTORS, as the gateway reads them */
  checkout: CheckoutSettings
}

/** Fast blocks so that a development payment confirms in seconds; the confirmations stay real. */
const SIMULATED_BLOCK_INTERVAL_MS = { TRON: 300, SOLANA: 200 }

/** what standalone runs on instead: naming one of these is a mistake worth stopping for */
const DISTRIBUTED_ONLY_VARIABLES = [
  'KAFKA_BROKERS',
  'MONGODB_URL',
  'EVENTSTORE_URL',
  'PAYMENT_COMMAND_URL',
  'COMMAND_API_TOKEN',
  'CHAIN_SIMULATOR_URL',
] as const

export function readStandaloneConfig(
  env: NodeJS.ProcessEnv = process.env,
  readFile?: ReadTextFile,
): StandaloneConfig {
  const read = readEnv(env)
  const ports = readApiPorts(read)
  // HOST is the merchant port's (and loopback by default); /metrics is on METRICS_HOST, METRICS_PORT
  const shared = readSharedConfig(read, 'standalone', readFile)
  const chains = readChainSettings(read, env, shared.registry, {
    defaultMode: 'simulator',
    blockIntervalMs: SIMULATED_BLOCK_INTERVAL_MS,
    // read straight from the simulator in this process, unless SIMULATOR_CLIENT=rpc asks for the
    // RPC clients over this process's own port
    simulatorClient: 'in-process',
    // every network of the registry, under its own name, so that merchants integrate exactly as they
    // will in production
    simulatedNetworks: shared.registry.networks.map((definition) => definition.network),
  })
  const live = chains.chainMode === 'rpc'
  const config: StandaloneConfig = {
    ...shared,
    ...ports,
    sqliteSynchronous: read.oneOf('SQLITE_SYNCHRONOUS', SQLITE_SYNCHRONOUS_MODES, { default: 'FULL' }),
    rateLimit: readRateLimit(read),
    webhookRetryScheduleMs: readRetrySchedule(read),
    webhookConcurrency: readWebhookConcurrency(read),
    addressPoolSize: readAddressPoolSize(read),
    // simulated chains price with the simulated source (POST /dev/rates) unless RATE_SOURCES says otherwise
    rates: readRateConfig(read, { simulatedChains: !live }),
    webhookRetentionDays: readWebhookRetentionDays(read),
    callbackUrlPolicy: readCallbackUrlPolicy(read, live ? 'production' : 'development'),
    chains,
    keys: live ? readAddressKeys(read, readFile) : null,
    encryptionKey: readOptionalEncryptionKey(read),
    adminToken: readOptionalAdminToken(read),
    previousEncryptionKeys: readPreviousEncryptionKeys(read),
    unboundSecrets: readUnboundSecrets(read),
    checkout: readCheckoutSettings(read, ports.port),
  }
  checkApiPorts(read, ports, shared.metricsPort)
  if (live) refuseLocalPublicUrl(read, config.checkout.publicUrl)
  else refuseKeyMaterial(read)
  for (const name of DISTRIBUTED_ONLY_VARIABLES) {
    if (read.optionalString(name) !== undefined) {
      read.problem(
        `${name}: standalone runs every service in one process on its own storage; ${name} belongs to the distributed shape (docs/deploy.md)`,
      )
    }
  }
  read.done()
  return config
}

/** the ports standalone listens on, checked before its first start writes anything (service-main.ts) */
export function standalonePorts(config: StandaloneConfig): PortClaim[] {
  return [
    { variable: 'PORT', host: config.host, port: config.port },
    { variable: 'ADMIN_PORT', host: config.adminHost, port: config.adminPort },
    { variable: 'METRICS_PORT', host: config.metricsHost, port: config.metricsPort },
  ]
}

/**
 * With real chains, every checkoutUrl and webhook link is built on PUBLIC_URL, and customers open
 * them on their own phones: a loopback one (the default http://localhost:{PORT}) is a page no
 * customer can reach. ALLOW_LOOPBACK_PUBLIC_URL=true lets a trial on this machine through
 * (docs/going-live.md, "The public address").
 */
function refuseLocalPublicUrl(read: EnvReader, publicUrl: string): void {
  const allowed = read.bool('ALLOW_LOOPBACK_PUBLIC_URL', { default: false })
  const host = URL.parse(publicUrl)?.hostname
  if (allowed || host === undefined || !isLocalOnlyHost(host)) return
  const given = read.optionalString('PUBLIC_URL') === undefined ? ' (the default)' : ''
  read.problem(
    `PUBLIC_URL: ${publicUrl}${given} is this machine only, but with CHAIN_MODE=rpc customers open checkoutUrl on their own devices: set PUBLIC_URL to the public https origin whose proxy forwards /pay/* and /api/merchant/v1/* here (docs/going-live.md), or ALLOW_LOOPBACK_PUBLIC_URL=true for a trial on this machine`,
  )
}

/** loopback, a *.localhost name, or the unspecified address: no customer's device reaches it */
function isLocalOnlyHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  return isLoopbackHost(bare) || bare.endsWith('.localhost') || bare === '0.0.0.0' || bare === '::'
}

function readOptionalEncryptionKey(read: EnvReader): string | undefined {
  const key = read.optionalString('CHAINPAY_ENCRYPTION_KEY')
  const problem = key === undefined ? null : secretKeyProblem(key)
  if (problem !== null) read.problem(`CHAINPAY_ENCRYPTION_KEY: ${problem}`)
  return key
}

function readOptionalAdminToken(read: EnvReader): string | undefined {
  const token = read.optionalString('ADMIN_TOKEN')
  if (token !== undefined) checkAdminToken(read, token)
  return token
}

/** simulated chains use the development wallet: key material given for them is a mistake */
function refuseKeyMaterial(read: EnvReader): void {
  for (const name of ['TRON_ACCOUNT_XPUB', 'SOLANA_SEED', 'WALLET_FILE']) {
    if (read.optionalString(name) !== undefined) {
      read.problem(
        `${name}: only read with CHAIN_MODE=rpc; simulated chains use the development wallet of DATA_DIR`,
      )
    }
  }
}
