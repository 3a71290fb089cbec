// The chain-indexer's configuration, read once from the environment at start. CHAIN_MODE picks the
// chains: the in-process simulator, or real TRON and Solana nodes over RPC, one endpoint or several
// per network of CHAIN_NETWORKS (@chainpay/chain-access reads them, as the gateway does). An RPC URL
// may carry a provider's key in its path or query, so no message repeats one: a URL is only ever
// shown as its scheme and host (endpointOrigin).

import {
  ENDPOINT_VARIABLE_SUFFIXES,
  type NetworkEndpoints,
  readNetworkEndpoints,
} from '@chainpay/chain-access'
import {
  type AssetRegistry,
  type Chain,
  findNetwork,
  readNetworkSettings,
  type ServedNetworks,
  setVariableNames,
  unservedNetworkProblem,
} from '@chainpay/domain'
import { type InfrastructureConfig, readInfrastructureConfig } from '@chainpay/infrastructure'
import { type EnvReader, readEnv } from '@chainpay/platform'
import {
  checkDistinctPorts,
  readAccessToken,
  readSharedConfig,
  type SharedConfig,
} from '@chainpay/service-kit'

export const CHAIN_MODES = ['simulator', 'rpc'] as const
export type ChainMode = (typeof CHAIN_MODES)[number]

interface ChainIndexerBaseConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** /healthz, /readyz and the simulator's dev routes; /metrics is on METRICS_PORT */
  port: number
  /** CHAIN_NETWORKS and `<NETWORK>_REQUIRED_CONFIRMATIONS`, read as payment-command reads them */
  chains: ServedNetworks
}

export const SIMULATOR_CLIENTS = ['rpc', 'in-process'] as const

/**
 * SOLANA_WATCH_MODE: `address` (the default) follows the accounts of open payments (docs/chains.md,
 * "Solana by address"); `blocks` scans every block, for an operator with a node of their own
 */
export const SOLANA_WATCH_MODES = ['blocks', 'address'] as const
export type SolanaWatchMode = (typeof SOLANA_WATCH_MODES)[number]

interface SolanaWatchSettings {
  solanaWatchMode: SolanaWatchMode
  /**
   * SOLANA_CHECK_INTERVAL_MS: how often SOLANA_WATCH_MODE=address checks every followed account in
   * batches, the only way late funds of a final payment are found (decisions 19; docs/chains.md)
   */
  solanaCheckIntervalMs: number
  /**
   * SOLANA_DEPOSIT_CHECK_INTERVAL_MS: how often SOLANA_WATCH_MODE=address checks every customer's
   * deposit address in batches, which is how soon a deposit is seen (docs/chains.md, "Customers'
   * deposit addresses")
   */
  solanaDepositCheckIntervalMs: number
  /**
   * TREASURY_ADDRESSES: the operator's treasuries, any chain's (comma separated). What they send is
   * never anybody's funds: a sweep's activation and energy top-up to a payment's address are not
   * foreign funds (decisions 19; docs/treasury.md)
   */
  treasuries: string[]
}

export interface SimulatorChainIndexerConfig extends ChainIndexerBaseConfig, SolanaWatchSettings {
  chainMode: 'simulator'
  /** by chain: how often each simulated network of that chain makes a block */
  blockIntervalMs: Record<Chain, number>
  /**
   * SIMULATOR_CLIENT: how the indexers read the simulated chains. `rpc` (the default) goes through
   * the TRON and Solana RPC clients over this service's own HTTP port, the code path of CHAIN_MODE=rpc;
   * `in-process` reads the simulator directly.
   */
  simulatorClient: (typeof SIMULATOR_CLIENTS)[number]
  /**
   * SIMULATOR_TOKEN: callers of the simulator's routes must send it (X-Simulator-Token), this
   * service's own RPC clients too; undefined: they answer callers on this machine only
   */
  simulatorToken: string | undefined
}

export interface RpcChainIndexerConfig extends ChainIndexerBaseConfig, SolanaWatchSettings {
  chainMode: 'rpc'
  /** CHAIN_RPC_TIMEOUT_MS: the longest wait for one HTTP answer of a node */
  rpcTimeoutMs: number
  /** one per network of `chains.networks`, in that order */
  endpoints: ChainEndpoint[]
}

export type ChainIndexerConfig = SimulatorChainIndexerConfig | RpcChainIndexerConfig

/** the chains part of the configuration, as standalone reads it too */
export type ChainSettings =
  | Omit<SimulatorChainIndexerConfig, Exclude<keyof ChainIndexerBaseConfig, 'chains'>>
  | Omit<RpcChainIndexerConfig, Exclude<keyof ChainIndexerBaseConfig, 'chains'>>

export interface ChainSettingsOptions {
  /** CHAIN_MODE when unset; required when absent */
  defaultMode?: ChainMode
  /** TRON_BLOCK_INTERVAL_MS and SOLANA_BLOCK_INTERVAL_MS when unset */
  blockIntervalMs?: Record<Chain, number>
  /** SIMULATOR_CLIENT when unset */
  simulatorClient?: (typeof SIMULATOR_CLIENTS)[number]
  /** the simulated networks when CHAIN_NETWORKS is unset; default DEFAULT_SIMULATED_NETWORKS */
  simulatedNetworks?: readonly string[]
}

/** a network watched over RPC: its endpoints, in order of preference, and how the indexer polls it */
export type ChainEndpoint = NetworkEndpoints & {
  /** the indexer's pause between scans once it has caught up with the head */
  pollIntervalMs: number
  /** CHAIN_START_HEIGHT_<NETWORK>: where the very first scan starts; null: at the head */
  startHeight: number | null
}

/** the networks simulated when CHAIN_NETWORKS is unset: mainnet names, as merchants integrate */
export const DEFAULT_SIMULATED_NETWORKS = ['TRON', 'SOLANA'] as const

/**
 * Between scans once caught up. TRON makes a block every 3 s and every scan costs two head calls
 * (head and solidified head), so polling faster than the block time mostly buys 429s from a rate
 * limited provider; Solana makes a slot every 400 ms, and a scan per second fetches the 2 or 3 new
 * blocks in one go (docs/chains.md, "Polling and rate limits").
 */
export const DEFAULT_POLL_INTERVAL_MS: Record<Chain, number> = { TRON: 3000, SOLANA: 1000 }

const RPC_TIMEOUT_MS = { default: 10_000, min: 1000, max: 60_000 }
const POLL_INTERVAL_MS = { min: 100, max: 60_000 }

const START_HEIGHT_PREFIX = 'CHAIN_START_HEIGHT_'
/** longest suffix first: TRON_NILE_SOLIDITY_RPC_URL is the SOLIDITY_RPC_URL of TRON_NILE */
const ENDPOINT_SUFFIXES = [...ENDPOINT_VARIABLE_SUFFIXES, '_POLL_INTERVAL_MS'] as const
const TRON_ONLY_SUFFIXES: readonly string[] = ['_SOLIDITY_RPC_URL', '_RPC_API_KEY']
/** the chains' names start every network's name; other variables with these suffixes are not ours */
const NETWORK_NAME_PREFIX = /^(TRON|SOLANA)/
const RPC_ONLY_VARIABLES = ['CHAIN_RPC_TIMEOUT_MS', 'CHAIN_POLL_INTERVAL_MS']
const SIMULATOR_ONLY_VARIABLES = [
  'TRON_BLOCK_INTERVAL_MS',
  'SOLANA_BLOCK_INTERVAL_MS',
  'SIMULATOR_CLIENT',
  'SIMULATOR_TOKEN',
]

export function readChainIndexerConfig(env: NodeJS.ProcessEnv = process.env): ChainIndexerConfig {
  const read = readEnv(env)
  const port = read.int('PORT', { default: 8092, min: 1, max: 65535 })
  const shared = readSharedConfig(read, 'chain-indexer')
  const base = {
    port,
    ...shared,
    infrastructure: readInfrastructureConfig(read),
  }
  const config: ChainIndexerConfig = { ...base, ...readChainSettings(read, env, shared.registry) }
  checkDistinctPorts(read, { PORT: port, METRICS_PORT: shared.metricsPort })
  read.done()
  return config
}

/**
 * CHAIN_MODE and what it reads: the simulated networks and their block intervals, or the nodes of
 * each network of CHAIN_NETWORKS; and each network's required confirmations.
 */
export function readChainSettings(
  read: EnvReader,
  env: NodeJS.ProcessEnv,
  registry: AssetRegistry,
  options: ChainSettingsOptions = {},
): ChainSettings {
  const mode = readChainMode(read, options.defaultMode)
  const variables = setVariableNames(env)
  const solanaWatchMode = read.oneOf('SOLANA_WATCH_MODE', SOLANA_WATCH_MODES, { default: 'address' })
  const solanaCheckIntervalMs = read.int('SOLANA_CHECK_INTERVAL_MS', {
    default: DEFAULT_SOLANA_CHECK_INTERVAL_MS,
    min: 1000,
    max: 3_600_000,
  })
  const solanaDepositCheckIntervalMs = read.int('SOLANA_DEPOSIT_CHECK_INTERVAL_MS', {
    default: DEFAULT_SOLANA_DEPOSIT_CHECK_INTERVAL_MS,
    min: 1000,
    max: 3_600_000,
  })
  const watch = {
    solanaWatchMode,
    solanaCheckIntervalMs,
    solanaDepositCheckIntervalMs,
    treasuries: readTreasuries(read),
  }
  return mode === 'rpc'
    ? { ...readRpcMode(read, env, variables, registry), ...watch }
    : { ...readSimulatorMode(read, env, variables, registry, mode, options), ...watch }
}

/** ten minutes: at most one call per 100 followed accounts per ten minutes at idle (decisions 19) */
export const DEFAULT_SOLANA_CHECK_INTERVAL_MS = 10 * 60 * 1000

/**
 * ten minutes: 10,000 deposit addresses (30,000 accounts) cost 300 calls per check, 43,200 a day,
 * one call per 100 accounts per ten minutes (decisions 19; docs/chains.md)
 */
export const DEFAULT_SOLANA_DEPOSIT_CHECK_INTERVAL_MS = 10 * 60 * 1000

/** a TRON address (base58check, T...) or a Solana one (base58 of 32 bytes): what a treasury may be */
const TREASURY_ADDRESS = /^(T[1-9A-HJ-NP-Za-km-z]{33}|[1-9A-HJ-NP-Za-km-z]{32,44})$/

function readTreasuries(read: EnvReader): string[] {
  const text = read.optionalString('TREASURY_ADDRESSES')
  if (text === undefined) return []
  const addresses = text
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '')
  const malformed = addresses.filter((address) => !TREASURY_ADDRESS.test(address))
  if (malformed.length > 0) {
    read.problem(
      `TREASURY_ADDRESSES: ${malformed.length} entr${malformed.length === 1 ? 'y is' : 'ies are'} not a TRON or Solana address (${malformed.map((address) => `'${address.slice(0, 48)}'`).join(', ')}); a comma-separated list of the treasuries' addresses`,
    )
  }
  return addresses
}

//////// Helpers

// Required rather than defaulted: a simulated chain confirms payments nobody paid, so running one
// must always be a deliberate choice.
function readChainMode(read: EnvReader, defaultMode: ChainMode | undefined): ChainMode | undefined {
  const mode = read.optionalString('CHAIN_MODE') ?? defaultMode
  if (mode === undefined) {
    read.problem(
      'CHAIN_MODE: required; simulator (simulated chains in process) or rpc (TRON and Solana nodes)',
    )
    return undefined
  }
  const known = CHAIN_MODES.find((candidate) => candidate === mode)
  if (known === undefined) read.problem(`CHAIN_MODE: expected simulator or rpc, got '${mode.slice(0, 40)}'`)
  return known
}

function readRpcMode(
  read: EnvReader,
  env: NodeJS.ProcessEnv,
  variables: readonly string[],
  registry: AssetRegistry,
): Omit<RpcChainIndexerConfig, keyof ChainIndexerBaseConfig | keyof SolanaWatchSettings> & {
  chains: ServedNetworks
} {
  const chains = readNetworkSettings(read, env, registry)
  const settings = readRpcSettings(read, chains, registry)
  checkEndpointVariables(read, variables, chains.networks, registry)
  notInThisMode(
    read,
    variables.filter((name) => SIMULATOR_ONLY_VARIABLES.includes(name)),
    'simulator',
  )
  return { chainMode: 'rpc', chains, ...settings }
}

/** the simulator's settings; `mode` undefined (missing or unknown) reads nothing about the chains */
function readSimulatorMode(
  read: EnvReader,
  env: NodeJS.ProcessEnv,
  variables: readonly string[],
  registry: AssetRegistry,
  mode: 'simulator' | undefined,
  options: ChainSettingsOptions,
): Omit<SimulatorChainIndexerConfig, keyof ChainIndexerBaseConfig | keyof SolanaWatchSettings> & {
  chains: ServedNetworks
} {
  const blockIntervalMs = readBlockIntervals(read, options.blockIntervalMs ?? { TRON: 3000, SOLANA: 400 })
  const simulatorClient = read.oneOf('SIMULATOR_CLIENT', SIMULATOR_CLIENTS, {
    default: options.simulatorClient ?? 'rpc',
  })
  const simulatorToken = readAccessToken(read, 'SIMULATOR_TOKEN')
  if (mode === undefined) {
    const chains = { networks: [], requiredConfirmations: {} }
    return { chainMode: 'simulator', chains, blockIntervalMs, simulatorClient, simulatorToken }
  }
  const chains = readNetworkSettings(read, env, registry, {
    defaultNetworks: options.simulatedNetworks ?? DEFAULT_SIMULATED_NETWORKS,
  })
  // a chain-indexer meant for real chains must not quietly simulate them
  notInThisMode(
    read,
    variables.filter(
      (name) =>
        RPC_ONLY_VARIABLES.includes(name) || name.startsWith(START_HEIGHT_PREFIX) || isEndpointVariable(name),
    ),
    'rpc',
  )
  return { chainMode: 'simulator', chains, blockIntervalMs, simulatorClient, simulatorToken }
}

function readBlockIntervals(read: EnvReader, defaults: Record<Chain, number>): Record<Chain, number> {
  return {
    TRON: read.int('TRON_BLOCK_INTERVAL_MS', { default: defaults.TRON, min: 10, max: 60_000 }),
    SOLANA: read.int('SOLANA_BLOCK_INTERVAL_MS', { default: defaults.SOLANA, min: 10, max: 60_000 }),
  }
}

function readRpcSettings(
  read: EnvReader,
  chains: ServedNetworks,
  registry: AssetRegistry,
): Pick<RpcChainIndexerConfig, 'rpcTimeoutMs' | 'endpoints'> {
  const rpcTimeoutMs = read.int('CHAIN_RPC_TIMEOUT_MS', RPC_TIMEOUT_MS)
  const pollIntervalMs = readOptionalInt(read, 'CHAIN_POLL_INTERVAL_MS', POLL_INTERVAL_MS)
  const endpoints = chains.networks.flatMap((network): ChainEndpoint[] => {
    // readNetworkSettings keeps registry networks only
    const { chain } = findNetwork(registry, network) as { chain: Chain }
    const nodes = readNetworkEndpoints(read, network, chain, { required: true })
    const settings = {
      pollIntervalMs:
        readOptionalInt(read, `${network}_POLL_INTERVAL_MS`, POLL_INTERVAL_MS) ??
        pollIntervalMs ??
        DEFAULT_POLL_INTERVAL_MS[chain],
      startHeight: readOptionalInt(read, `${START_HEIGHT_PREFIX}${network}`, {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
      }),
    }
    return nodes === undefined ? [] : [{ ...nodes, ...settings }]
  })
  return { rpcTimeoutMs, endpoints }
}

/** the value when set and valid; null when unset, or after recording a bad value */
function readOptionalInt(read: EnvReader, name: string, range: { min: number; max: number }): number | null {
  if (read.optionalString(name) === undefined) return null
  const value = read.int(name, { ...range, default: Number.NaN })
  return Number.isNaN(value) ? null : value
}

function isEndpointVariable(name: string): boolean {
  return endpointVariableNetwork(name) !== undefined
}

/** `TRON_NILE_SOLIDITY_RPC_URL` -> `{ network: 'TRON_NILE', suffix: '_SOLIDITY_RPC_URL' }` */
function endpointVariableNetwork(name: string): { network: string; suffix: string } | undefined {
  if (!NETWORK_NAME_PREFIX.test(name)) return undefined
  const suffix = ENDPOINT_SUFFIXES.find(
    (candidate) => name.endsWith(candidate) && name.length > candidate.length,
  )
  return suffix === undefined ? undefined : { network: name.slice(0, -suffix.length), suffix }
}

/** the typo guard: endpoint and start height variables of networks that are not watched */
function checkEndpointVariables(
  read: EnvReader,
  variables: readonly string[],
  served: readonly string[],
  registry: AssetRegistry,
): void {
  for (const name of variables) {
    const network = name.startsWith(START_HEIGHT_PREFIX)
      ? name.slice(START_HEIGHT_PREFIX.length)
      : endpointVariableNetwork(name)?.network
    if (network === undefined) continue
    if (!served.includes(network)) {
      read.problem(unservedNetworkProblem(name, network, served, registry))
      continue
    }
    const suffix = endpointVariableNetwork(name)?.suffix
    if (suffix && TRON_ONLY_SUFFIXES.includes(suffix) && findNetwork(registry, network)?.chain !== 'TRON') {
      read.problem(`${name}: only TRON networks have a solidity node and a TronGrid API key`)
    }
    if (suffix === '_WS_URL' && findNetwork(registry, network)?.chain !== 'SOLANA') {
      read.problem(`${name}: only Solana networks are watched over a websocket`)
    }
  }
}

function notInThisMode(read: EnvReader, names: readonly string[], mode: ChainMode): void {
  for (const name of names) read.problem(`${name}: only read with CHAIN_MODE=${mode}`)
}
