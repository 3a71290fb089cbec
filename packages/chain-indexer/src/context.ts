// What the chain-indexer runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or Kafka and MongoDB) is @chainpay/adapters' choice, from the environment;
// in standalone, the process's shared ones. The chains are either simulated in process (kept in the
// SQLite file of DATA_DIR, with the dev routes that drive them) or real TRON and Solana nodes over
// RPC, one endpoint per network.

import { type Infrastructure, infrastructureFor, type SharedRuntime } from '@chainpay/adapters'
import { chainSimulatorRoutes, createChainSimulator } from '@chainpay/chain-sim'
import { createSolanaChainClient } from '@chainpay/chain-solana'
import { createTronChainClient } from '@chainpay/chain-tron'
import { type AssetRegistry, applyNetworkSettings, findNetwork } from '@chainpay/domain'
import { type Clock, type Logger, readinessOf, type Service, systemClock } from '@chainpay/platform'
import type { ChainClient } from '@chainpay/ports'
import {
  createServiceMetrics,
  healthService,
  metricsService,
  type ServiceContext,
  SIMULATOR_TOKEN_HEADER,
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

/** the indexer looks for new blocks at least this often, and at least once per simulated block */
const MAX_SIMULATOR_POLL_INTERVAL_MS = 500

/** a simulated node answers on loopback, unless the machine is too loaded to answer at all */
const SIMULATOR_RPC_TIMEOUT_MS = 10_000

/** one network's chain, as the indexer of that network gets it */
interface WatchedChain {
  network: string
  client: ChainClient
  pollIntervalMs: number
  startHeight?: number
}

interface Chains {
  watched: WatchedChain[]
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
}

export async function buildChainIndexerContext(
  config: ChainIndexerConfig,
  logger: Logger,
  options: ChainIndexerContextOptions = {},
): Promise<ChainIndexerContext> {
  const { shared, clock = systemClock } = options
  if (config.solanaWatchMode === 'address') {
    // the address watcher (solana-address-watcher.ts) is not wired into the indexer yet: refusing
    // beats scanning blocks while the operator believes otherwise (docs/chains.md, "Solana by address")
    throw new Error(
      'SOLANA_WATCH_MODE=address: the address watcher is not wired into the chain-indexer yet; use blocks',
    )
  }
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
  const indexers = chains.watched.map(({ network, client, pollIntervalMs, startHeight }) =>
    createChainIndexer({
      network,
      client,
      store,
      bus,
      registry,
      clock,
      logger,
      metrics: metrics.chain,
      pollIntervalMs,
      ...(startHeight === undefined ? {} : { startHeight }),
    }),
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
  const clientOf = (network: string, pollIntervalMs: number): ChainClient => {
    if (config.simulatorClient === 'in-process') return simulator.client(network)
    const rpcUrl = `${selfUrl}/chains/${network}`
    const common = { network, rpcUrl, pollIntervalMs, startHeight: null }
    const endpoint: ChainEndpoint =
      chainOf(registry, network) === 'TRON'
        ? { ...common, chain: 'TRON', solidityRpcUrl: rpcUrl, apiKey: null }
        : { ...common, chain: 'SOLANA' }
    return withRpcResilience(rpcClient(endpoint, registry, SIMULATOR_RPC_TIMEOUT_MS, headers), {
      logger,
      network,
    })
  }
  return {
    watched: networks.map(({ network, blockIntervalMs }) => {
      const pollIntervalMs = Math.min(MAX_SIMULATOR_POLL_INTERVAL_MS, blockIntervalMs)
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
  const clients = config.endpoints.map((endpoint) => {
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
    watched: clients.map(({ endpoint, client }) => ({
      network: endpoint.network,
      client,
      pollIntervalMs: endpoint.pollIntervalMs,
      ...(endpoint.startHeight === null ? {} : { startHeight: endpoint.startHeight }),
    })),
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

function chainOf(registry: AssetRegistry, network: string) {
  const definition = findNetwork(registry, network)
  if (!definition) throw new Error(`chain-indexer: network ${network} is not in the asset registry`)
  return definition.chain
}
