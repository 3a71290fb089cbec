// The gateway's configuration, read once from the environment at start. Every problem is reported
// together.

import { isIP } from 'node:net'
import { type NetworkEndpoints, readNetworkEndpoints } from '@chainpay/chain-access'
import {
  type AssetRegistry,
  applyNetworkSettings,
  readNetworkSettings,
  type ServedNetworks,
} from '@chainpay/domain'
import { type InfrastructureConfig, readInfrastructureConfig } from '@chainpay/infrastructure'
import { type EnvReader, readEnv } from '@chainpay/platform'
import {
  type CallbackUrlPolicy,
  checkDistinctPorts,
  type EncryptionKeys,
  readAccessToken,
  readAdminToken,
  readCallbackUrlPolicy,
  readEncryptionKeys,
  readPublicUrl,
  readServiceToken,
  readSharedConfig,
  type SharedConfig,
} from '@chainpay/service-kit'
import type { CheckoutSettings } from './checkout/checkout-routes.js'
import type { RateLimitSettings } from './rate-limit.js'

export interface GatewayConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** the merchant API */
  port: number
  adminHost: string
  adminPort: number
  /** payment-command's internal command API, e.g. http://127.0.0.1:8090 */
  paymentCommandUrl: string
  /**
   * COMMAND_API_TOKEN, sent as the bearer of every command; required when PAYMENT_COMMAND_URL is
   * not on loopback (docs/operations.md, "Internal APIs")
   */
  commandApiToken: string | undefined
  /** seal (the current key) and open (every key) API secrets and webhook secrets */
  encryptionKeys: EncryptionKeys
  /** ADMIN_TOKEN: at least 32 characters, not a pattern or a placeholder */
  adminToken: string
  rateLimit: RateLimitSettings
  /** where /dev/chains/* is forwarded to (the chain-indexer's simulator); not served when undefined */
  chainSimulatorUrl: string | undefined
  /**
   * SIMULATOR_TOKEN, with CHAIN_SIMULATOR_URL only: callers of /dev/chains/* must send it, and it is
   * sent on to the chain-indexer; undefined: loopback callers only (docs/operations.md)
   */
  chainSimulatorToken: string | undefined
  /** production: https callback and webhook URLs on public hosts only; development: http and private hosts too */
  callbackUrlPolicy: CallbackUrlPolicy
  /** CHAIN_NETWORKS, as payment-command reads it: the gateway refuses other networks up front */
  chains: ServedNetworks
  /** the customer's page (docs/operations.md, "The customer's page"): PUBLIC_URL and CHECKOUT_FRAME_ANCESTORS */
  checkout: CheckoutSettings
  /**
   * the nodes the admin API reads balances from (docs/operations.md, "Balances and sweeps"):
   * <NETWORK>_RPC_URL (one or several) and <NETWORK>_RPC_API_KEY of the networks served, as the
   * chain-indexer reads them, and CHAIN_RPC_TIMEOUT_MS; a network without a URL has no on-chain balance
   */
  balanceRpc: { endpoints: NetworkEndpoints[]; timeoutMs: number }
}

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const read = readEnv(env)
  const ports = readApiPorts(read)
  const shared = readSharedConfig(read, 'gateway')
  const paymentCommandUrl = readHttpUrl(read, 'PAYMENT_COMMAND_URL') ?? ''
  const chains = readNetworkSettings(read, env, shared.registry, {
    defaultNetworks: shared.registry.networks.map((definition) => definition.network),
  })
  const config: GatewayConfig = {
    ...ports,
    ...shared,
    infrastructure: readInfrastructureConfig(read),
    paymentCommandUrl,
    commandApiToken: readServiceToken(read, 'COMMAND_API_TOKEN', {
      hostVariable: 'PAYMENT_COMMAND_URL',
      // unset or unusable: already reported, and no token is asked for on top
      host: URL.parse(paymentCommandUrl)?.hostname ?? '127.0.0.1',
      serves: "payment-command's command API",
    }),
    encryptionKeys: readEncryptionKeys(read),
    adminToken: readAdminToken(read),
    rateLimit: readRateLimit(read),
    chainSimulatorUrl: readHttpUrl(read, 'CHAIN_SIMULATOR_URL', { optional: true }),
    chainSimulatorToken: readAccessToken(read, 'SIMULATOR_TOKEN'),
    callbackUrlPolicy: readCallbackUrlPolicy(read),
    chains,
    checkout: readCheckoutSettings(read, ports.port),
    balanceRpc: readBalanceRpc(read, applyNetworkSettings(shared.registry, chains)),
  }
  checkApiPorts(read, ports, shared.metricsPort)
  if (config.chainSimulatorToken !== undefined && read.optionalString('CHAIN_SIMULATOR_URL') === undefined) {
    read.problem('SIMULATOR_TOKEN: only read with CHAIN_SIMULATOR_URL')
  }
  read.done()
  return config
}

type ApiPorts = Pick<GatewayConfig, 'port' | 'adminHost' | 'adminPort'>

/** PORT (the merchant API, default 8080), ADMIN_HOST (127.0.0.1) and ADMIN_PORT (8081); see checkApiPorts */
export function readApiPorts(read: EnvReader): ApiPorts {
  return {
    port: read.int('PORT', { default: 8080, min: 1, max: 65535 }),
    adminHost: read.string('ADMIN_HOST', { default: '127.0.0.1' }),
    adminPort: read.int('ADMIN_PORT', { default: 8081, min: 1, max: 65535 }),
  }
}

/** the two APIs and /metrics cannot share a port; reported after the other problems */
export function checkApiPorts(read: EnvReader, ports: ApiPorts, metricsPort: number): void {
  checkDistinctPorts(read, { PORT: ports.port, ADMIN_PORT: ports.adminPort, METRICS_PORT: metricsPort })
}

/**
 * RATE_LIMIT_MAX requests per API key per RATE_LIMIT_WINDOW_MS (docs/api.md, "Errors"), and
 * RATE_LIMIT_PER_ADDRESS_MAX per client address, before authentication (by default twice the per-key
 * budget, so that a merchant's server with one key meets its key's limit first)
 */
export function readRateLimit(read: EnvReader): GatewayConfig['rateLimit'] {
  const max = read.int('RATE_LIMIT_MAX', { default: 1200, min: 1 })
  const windowMs = read.int('RATE_LIMIT_WINDOW_MS', { default: 60_000, min: 1000 })
  const perAddressMax = read.int('RATE_LIMIT_PER_ADDRESS_MAX', { default: 2 * max, min: 1 })
  const trustedProxies = readTrustedProxies(read)
  return { max, windowMs, perAddressMax, ...(trustedProxies.length > 0 ? { trustedProxies } : {}) }
}

/**
 * TRUSTED_PROXIES: comma-separated addresses or CIDR ranges (127.0.0.1, 10.0.0.0/8, fd00::/8) of the
 * reverse proxies in front of the merchant port; empty by default: no X-Forwarded-For is believed
 */
function readTrustedProxies(read: EnvReader): string[] {
  const text = read.string('TRUSTED_PROXIES', { default: '' })
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/')
    const family = isIP(address)
    const prefixOk =
      prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32))
    if (family === 0 || !prefixOk || rest.length > 0) {
      read.problem(
        `TRUSTED_PROXIES: expected addresses or CIDR ranges separated by commas (such as 127.0.0.1,10.0.0.0/8), got '${entry}'`,
      )
    }
  }
  return entries
}

/** an absolute http(s) URL without a trailing slash */
function readHttpUrl(
  read: EnvReader,
  name: string,
  options: { optional?: boolean } = {},
): string | undefined {
  const text = options.optional ? read.optionalString(name) : read.string(name)
  if (text === undefined || text === '') return undefined
  const url = URL.parse(text)
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    read.problem(`${name}: expected an absolute http(s) URL such as http://127.0.0.1:8090, got '${text}'`)
    return undefined
  }
  return text.replace(/\/+$/, '')
}

/**
 * PUBLIC_URL (http://localhost:{PORT} by default) and CHECKOUT_FRAME_ANCESTORS: the origins that may
 * frame the customer's page, comma separated; none by default (docs/operations.md, "The customer's page")
 */
export function readCheckoutSettings(read: EnvReader, port: number): CheckoutSettings {
  const frameAncestors = read.list('CHECKOUT_FRAME_ANCESTORS', { default: [] })
  for (const origin of frameAncestors) {
    const url = URL.parse(origin)
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== origin) {
      read.problem(
        `CHECKOUT_FRAME_ANCESTORS: expected origins such as https://shop.example.com, got '${origin}'`,
      )
    }
  }
  return { publicUrl: readPublicUrl(read, `http://localhost:${port}`), frameAncestors }
}

/**
 * <NETWORK>_RPC_URL (one or several, http or https; may carry a provider's key, so never repeated)
 * and, for TRON, <NETWORK>_RPC_API_KEY of each network served, read as the chain-indexer reads them,
 * all optional; CHAIN_RPC_TIMEOUT_MS (default 10 s)
 */
export function readBalanceRpc(read: EnvReader, served: AssetRegistry): GatewayConfig['balanceRpc'] {
  const endpoints = served.networks.flatMap(({ network, chain }): NetworkEndpoints[] => {
    const nodes = readNetworkEndpoints(read, network, chain, { required: false })
    const apiKey = `${network}_RPC_API_KEY`
    if (read.optionalString(apiKey) !== undefined) {
      if (nodes === undefined) read.problem(`${apiKey}: only read with ${network}_RPC_URL`)
      else if (chain !== 'TRON') read.problem(`${apiKey}: only TRON networks have a TronGrid API key`)
    }
    return nodes === undefined ? [] : [nodes]
  })
  return {
    endpoints,
    timeoutMs: read.int('CHAIN_RPC_TIMEOUT_MS', { default: 10_000, min: 1000, max: 60_000 }),
  }
}
