// What the chain-indexer runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or Kafka and MongoDB) is @chainpay/adapters' choice, from the environment;
// in standalone, the process's shared ones. The chains are either simulated in process (kept in the
// SQLite file of DATA_DIR, with the dev routes that drive them) or real TRON and Solana nodes over
// RPC, one endpoint per network.

import { type Infrastructure, infrastructureFor, type SharedRuntime } from '@chainpay/adapters'
import { chainSimulatorRoutes, createChainSimulator } from '@chainpay/chain-sim'
import {
  createSolanaAddressReader,
  createSolanaBalanceReader,
  createSolanaChainClient,
  createSolanaConnection,
} from '@chainpay/chain-solana'
import { createTronBalanceReader, createTronChainClient } from '@chainpay/chain-tron'
import { type AssetRegistry, applyNetworkSettings, findNetwork } from '@chainpay/domain'
import { type Clock, type Logger, readinessOf, type Service, systemClock } from '@chainpay/platform'
import type { ChainBalanceReader, ChainClient, SolanaAddressReader } from '@chainpay/ports'
import {
  createServiceMetrics,
  healthService,
  metricsService,
  type ServiceContext,
  SIMULATOR_TOKEN_HEADER,
  SIMULATOR_TOKEN_QUERY,
} from '@chainpay/service-kit'
import type { FastifyPluginAsync } from 'fastify'
import { chainsReadiness, trackReadiness } from './chain-readiness.js'
import {
  type ChainEndpoint,
  type ChainIndexerConfig,
  endpointOrigin,
  isKeylessTronGrid,
  type RpcChainIndexerConfig,
  type SimulatorChainIndexerConfig,
} from './config.js'
import { createChainIndexer } from './indexer.js'
import { withRpcResilience } from './resilient-chain-client.js'
import { createSolanaAddressIndexer } from './solana-address-indexer.js'

/** the indexer looks for new blocks at least this often, and at least once per simulated block */
const MAX_SIMULATOR_POLL_INTERVAL_MS = 500

/** a simulated node answers on loopback, unless the machine is too loaded to answer at all */
const SIMULATOR_RPC_TIMEOUT_MS = 10_000

/**
 * one network's chain, as the indexer of that network gets it: blocks through a client, or with
 * SOLANA_WATCH_MODE=address, the accounts of open payments through an address reader
 */
type WatchedChain =
  | { network: string; client: ChainClient; pollIntervalMs: number; startHeight?: number }
  | { network: string; reader: SolanaAddressReader; pollIntervalMs: number }

interface Chains {
  watched: WatchedChain[]
  /** what each network's addresses hold now (docs/api.md, "Balances and sweeps") */
  balanceReaders: Map<string, ChainBalanceReader>
  /** started before the indexers */
  services: Service[]
  readiness: () => Promise<boolean>
  routes?: FastifyPluginAsync
}

export interface ChainIndexerContextOptions {
  clock?: Clock
  /**
   * standalone: the process's infrastructure and metrics; then no health port of its own, and the
   * simulator's routes (`routes`) are served by whoever serves this process's HTTP port, which
   * config.host and config.port must name
   */
  shared?: SharedRuntime
}

export interface ChainIndexerContext extends ServiceContext {
  /** the simulator's routes, where chains are simulated: /dev/chains/* and the node-shaped APIs */
  routes?: FastifyPluginAsync
  /** what each watched network's addresses hold now, read from the same nodes; standalone's admin API reads them */
  balanceReaders: ReadonlyMap<string, ChainBalanceReader>
}

export async function buildChainIndexerContext(
  config: ChainIndexerConfig,
  logger: Logger,
  options: ChainIndexerContextOptions = {},
): Promise<ChainIndexerContext> {
  const { shared, clock = systemClock } = options
  const metrics = shared?.metrics ?? createServiceMetrics('chain-indexer')
  const { infrastructure, release } = await infrastructureFor({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'chain-indexer',
    logger,
    metrics: metrics.registry,
    shared,
  })
  const bus = infrastructure.bus()
  const store = infrastructure.stores.chainIndexer()
  // the same networks and confirmations as payment-command's, from the same variables
  const registry = applyNetworkSettings(config.registry, config.chains)
  const chains =
    config.chainMode === 'rpc'
      ? rpcChains(config, registry, infrastructure, logger)
      : simulatedChains(config, registry, infrastructure, clock, logger)
  const common = {
    store,
    bus,
    registry,
    clock,
    logger,
    metrics: metrics.chain,
    treasuries: new Set(config.treasuries),
  }
  const indexers = chains.watched.map((chain) =>
    'reader' in chain
      ? createSolanaAddressIndexer({ ...common, ...chain, checkIntervalMs: config.solanaCheckIntervalMs })
      : createChainIndexer({ ...common, ...chain }),
  )
  // the chains, the stores, the bus and its consumers, and each network's scan loop
  // (docs/operations.md, "Health")
  const readiness = readinessOf(chains.readiness, indexers)
  const healthPort = healthService({
    name: chains.routes ? 'chain simulator and health API' : 'health API',
    host: config.host,
    port: config.port,
    logger,
    limits: config.httpLimits,
    readiness,
    requestMetrics: metrics.http,
    ...(chains.routes ? { routes: chains.routes } : {}),
  })
  const metricsPort = metricsService({ config, registry: metrics.registry, logger })
  return {
    // the chains and the health port before the indexers: those may wait for their consumer groups
    // (after a crash, until the dead member's session times out)
    services: [...chains.services, ...(shared ? [] : [healthPort, metricsPort]), ...indexers],
    readiness,
    ...(chains.routes ? { routes: chains.routes } : {}),
    balanceReaders: chains.balanceReaders,
    close: release,
  }
}

function simulatedChains(
  config: SimulatorChainIndexerConfig,
  registry: AssetRegistry,
  infrastructure: Infrastructure,
  clock: Clock,
  logger: Logger,
): Chains {
  const networks = config.chains.networks.map((network) => ({
    network,
    blockIntervalMs: config.blockIntervalMs[chainOf(registry, network)],
  }))
  const simulator = createChainSimulator({
    db: infrastructure.sqlite(),
    registry,
    networks,
    clock: () => clock.now(),
    logger,
  })
  // Over RPC, the simulated chains are read exactly as real ones are: tronweb and @solana/web3.js
  // against the node-shaped routes this service serves, behind the same retries and breaker.
  const selfUrl = `http://${loopbackOf(config.host)}:${config.port}`
  const { simulatorToken: token } = config
  // the routes want the token from every caller once it is set, this service's own clients included
  const headers: Record<string, string> = token === undefined ? {} : { [SIMULATOR_TOKEN_HEADER]: token }
  const endpointOf = (network: string, pollIntervalMs: number): ChainEndpoint => {
    const rpcUrl = `${selfUrl}/chains/${network}`
    const common = { network, rpcUrl, pollIntervalMs, startHeight: null }
    return chainOf(registry, network) === 'TRON'
      ? { ...common, chain: 'TRON', solidityRpcUrl: rpcUrl, apiKey: null }
      : { ...common, chain: 'SOLANA', wsUrl: null }
  }
  const clientOf = (network: string, pollIntervalMs: number): ChainClient => {
    if (config.simulatorClient === 'in-process') return simulator.client(network)
    const endpoint = endpointOf(network, pollIntervalMs)
    return withRpcResilience(rpcClient(endpoint, registry, SIMULATOR_RPC_TIMEOUT_MS, headers), {
      logger,
      network,
    })
  }
  const balanceReaderOf = (network: string): ChainBalanceReader =>
    rpcBalanceReader(endpointOf(network, 0), SIMULATOR_RPC_TIMEOUT_MS, headers)
  // by address, the simulated Solana is always read over RPC and its websocket: the simulator
  // serves the pubsub only there
  const readerOf = (network: string): SolanaAddressReader => {
    const wsUrl = new URL(`${selfUrl.replace(/^http/, 'ws')}/chains/${network}`)
    // web3.js sends no header on its websocket: the token goes in the query (simulator routes)
    if (token !== undefined) wsUrl.searchParams.set(SIMULATOR_TOKEN_QUERY, token)
    const connection = createSolanaConnection({
      rpcUrl: `${selfUrl}/chains/${network}`,
      wsUrl: wsUrl.toString(),
      headers,
      timeoutMs: SIMULATOR_RPC_TIMEOUT_MS,
    })
    return createSolanaAddressReader({ network, registry, connection })
  }
  return {
    balanceReaders: new Map(networks.map(({ network }) => [network, balanceReaderOf(network)])),
    watched: networks.map(({ network, blockIntervalMs }): WatchedChain => {
      const pollIntervalMs = Math.min(MAX_SIMULATOR_POLL_INTERVAL_MS, blockIntervalMs)
      if (byAddress(config, registry, network)) return { network, reader: readerOf(network), pollIntervalMs }
      return { network, client: clientOf(network, pollIntervalMs), pollIntervalMs }
    }),
    services: [simulator],
    readiness: () => infrastructure.answers(),
    routes: async (app) => {
      await app.register(chainSimulatorRoutes, { simulator, token })
    },
  }
}

function rpcChains(
  config: RpcChainIndexerConfig,
  registry: AssetRegistry,
  infrastructure: Infrastructure,
  logger: Logger,
): Chains {
  const readers = config.endpoints.flatMap((endpoint): WatchedChain[] => {
    if (endpoint.chain !== 'SOLANA' || !byAddress(config, registry, endpoint.network)) return []
    logEndpoint(endpoint, registry, logger)
    const connection = createSolanaConnection({
      rpcUrl: endpoint.rpcUrl,
      ...(endpoint.wsUrl === null ? {} : { wsUrl: endpoint.wsUrl }),
      timeoutMs: config.rpcTimeoutMs,
    })
    const reader = createSolanaAddressReader({ network: endpoint.network, registry, connection })
    return [{ network: endpoint.network, reader, pollIntervalMs: endpoint.pollIntervalMs }]
  })
  const byBlocks = config.endpoints.filter(
    (endpoint) => !readers.some((reader) => reader.network === endpoint.network),
  )
  const clients = byBlocks.map((endpoint) => {
    logEndpoint(endpoint, registry, logger)
    const client = trackReadiness(
      withRpcResilience(rpcClient(endpoint, registry, config.rpcTimeoutMs), {
        logger,
        network: endpoint.network,
      }),
    )
    return { endpoint, client }
  })
  return {
    watched: [
      ...clients.map(({ endpoint, client }) => ({
        network: endpoint.network,
        client,
        pollIntervalMs: endpoint.pollIntervalMs,
        ...(endpoint.startHeight === null ? {} : { startHeight: endpoint.startHeight }),
      })),
      // their readiness is their indexer's (solana-address-indexer.ts)
      ...readers,
    ],
    balanceReaders: new Map(
      config.endpoints.map((endpoint) => [endpoint.network, rpcBalanceReader(endpoint, config.rpcTimeoutMs)]),
    ),
    services: [],
    readiness: chainsReadiness(
      clients.map(({ client }) => client),
      () => infrastructure.answers(),
    ),
  }
}

function rpcClient(
  endpoint: ChainEndpoint,
  registry: AssetRegistry,
  timeoutMs: number,
  headers: Record<string, string> = {},
): ChainClient {
  const { network } = endpoint
  if (endpoint.chain === 'SOLANA') {
    return createSolanaChainClient({ network, registry, rpcUrl: endpoint.rpcUrl, timeoutMs, headers })
  }
  return createTronChainClient({
    network,
    registry,
    fullNodeUrl: endpoint.rpcUrl,
    solidityNodeUrl: endpoint.solidityRpcUrl,
    ...(endpoint.apiKey === null ? {} : { apiKey: endpoint.apiKey }),
    timeoutMs,
    headers,
  })
}

function rpcBalanceReader(
  endpoint: ChainEndpoint,
  timeoutMs: number,
  headers: Record<string, string> = {},
): ChainBalanceReader {
  const { network } = endpoint
  if (endpoint.chain === 'SOLANA') {
    return createSolanaBalanceReader({ network, rpcUrl: endpoint.rpcUrl, timeoutMs, headers })
  }
  return createTronBalanceReader({
    network,
    fullNodeUrl: endpoint.rpcUrl,
    ...(endpoint.apiKey === null ? {} : { apiKey: endpoint.apiKey }),
    timeoutMs,
    headers,
  })
}

/** where each network is watched from, by scheme and host only: a URL may carry a provider key */
function logEndpoint(endpoint: ChainEndpoint, registry: AssetRegistry, logger: Logger): void {
  const fields = {
    network: endpoint.network,
    rpc: endpointOrigin(endpoint.rpcUrl),
    ...(endpoint.chain === 'TRON'
      ? { solidityRpc: endpointOrigin(endpoint.solidityRpcUrl), apiKey: endpoint.apiKey ? 'set' : 'none' }
      : {}),
    requiredConfirmations: findNetwork(registry, endpoint.network)?.requiredConfirmations,
    pollIntervalMs: endpoint.pollIntervalMs,
    startHeight: endpoint.startHeight ?? 'head',
  }
  logger.info(fields, 'watching a network over RPC')
  if (isKeylessTronGrid(endpoint)) {
    logger.warn(
      { network: endpoint.network },
      `TronGrid without an API key is heavily rate limited: set ${endpoint.network}_RPC_API_KEY (docs/chains.md)`,
    )
  }
}

/** where this process reaches its own HTTP port */
function loopbackOf(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1'
  if (host === '::') return '[::1]'
  return host.includes(':') ? `[${host}]` : host
}

/** a Solana network watched by the accounts of open payments (SOLANA_WATCH_MODE=address) */
function byAddress(config: ChainIndexerConfig, registry: AssetRegistry, network: string): boolean {
  return config.solanaWatchMode === 'address' && chainOf(registry, network) === 'SOLANA'
}

function chainOf(registry: AssetRegistry, network: string) {
  const definition = findNetwork(registry, network)
  if (!definition) throw new Error(`chain-indexer: network ${network} is not in the asset registry`)
  return definition.chain
}
