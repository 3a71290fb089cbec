// What the chain-indexer runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or Kafka and MongoDB) is @chainpay/infrastructure' choice, from the environment;
// in standalone, the process's shared ones. The chains are either simulated in process (kept in the
// SQLite file of DATA_DIR, with the dev routes that drive them) or real TRON and Solana nodes over
// RPC, one endpoint or several per network; how each is read is @chainpay/chain-access's choice.

import {
  type ChainAccess,
  chainAccess,
  chainsReadiness,
  createSimulatedChains,
  endpointOrigin,
  isKeylessTronGrid,
  type ReadinessTrackedClient,
  simulatorEndpoints,
} from '@chainpay/chain-access'
import { createSimulatorAddressReader } from '@chainpay/chain-sim'
import { type AssetRegistry, applyNetworkSettings, findNetwork } from '@chainpay/domain'
import { type Infrastructure, infrastructureFor, type SharedRuntime } from '@chainpay/infrastructure'
import { type Clock, type Logger, readinessOf, type Service, systemClock } from '@chainpay/platform'
import type { ChainBalanceReader, SolanaAddressReader } from '@chainpay/ports'
import {
  createServiceMetrics,
  healthService,
  metricsService,
  type ServiceContext,
} from '@chainpay/service-kit'
import type { FastifyPluginAsync } from 'fastify'
import type {
  ChainEndpoint,
  ChainIndexerConfig,
  RpcChainIndexerConfig,
  SimulatorChainIndexerConfig,
} from './config.js'
import { createChainIndexer } from './indexer.js'
import { createSolanaAddressIndexer } from './solana-address-indexer.js'
import { createSolanaMintGuard } from './solana-mint-guard.js'

/** the indexer looks for new blocks at least this often, and at least once per simulated block */
const MAX_SIMULATOR_POLL_INTERVAL_MS = 500

/** a simulated node answers on loopback, unless the machine is too loaded to answer at all */
const SIMULATOR_RPC_TIMEOUT_MS = 10_000

/**
 * one network's chain, as the indexer of that network gets it: blocks through a client, or with
 * SOLANA_WATCH_MODE=address, the accounts of open payments through an address reader
 */
type WatchedChain =
  | { network: string; client: ReadinessTrackedClient; pollIntervalMs: number; startHeight?: number }
  | { network: string; reader: SolanaAddressReader; pollIntervalMs: number }

interface Chains {
  watched: WatchedChain[]
  /** a reader of each watched Solana network, whatever its watch mode: its registry mints are checked */
  mintReaders: Array<{ network: string; reader: SolanaAddressReader }>
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
  /**
   * the services of `services` that read the nodes (the mint check and the indexers): standalone
   * starts them once its merchant port listens, where the simulated nodes answer over RPC
   */
  watchers: Service[]
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
      ? await rpcChains(config, registry, infrastructure, logger)
      : await simulatedChains(config, registry, infrastructure, clock, logger)
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
      ? createSolanaAddressIndexer({
          ...common,
          ...chain,
          checkIntervalMs: config.solanaCheckIntervalMs,
          depositCheckIntervalMs: config.solanaDepositCheckIntervalMs,
        })
      : createChainIndexer({ ...common, ...chain }),
  )
  const mintGuard = createSolanaMintGuard({ networks: chains.mintReaders, registry, logger })
  // the chains, the stores, the bus and its consumers, the registry's mints, and each network's
  // scan loop (docs/operations.md, "Health")
  const readiness = readinessOf(chains.readiness, [mintGuard, ...indexers])
  const healthPort = healthService({
    name: chains.routes ? 'chain simulator and health API' : 'health API',
    host: config.host,
    port: config.port,
    portVariable: 'PORT',
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
    services: [...chains.services, ...(shared ? [] : [healthPort, metricsPort]), mintGuard, ...indexers],
    watchers: [mintGuard, ...indexers],
    readiness,
    ...(chains.routes ? { routes: chains.routes } : {}),
    balanceReaders: chains.balanceReaders,
    close: release,
  }
}

async function simulatedChains(
  config: SimulatorChainIndexerConfig,
  registry: AssetRegistry,
  infrastructure: Infrastructure,
  clock: Clock,
  logger: Logger,
): Promise<Chains> {
  const networks = config.chains.networks.map((network) => ({
    network,
    blockIntervalMs: config.blockIntervalMs[chainOf(registry, network)],
  }))
  const { simulator, routes } = await createSimulatedChains({
    db: infrastructure.sqlite(),
    registry,
    networks,
    clock: () => clock.now(),
    logger,
    token: config.simulatorToken,
  })
  // Over RPC, the simulated chains are read exactly as real ones are: tronweb and @solana/web3.js
  // against the node-shaped routes this service serves, behind the same retries and breaker. By
  // address, the simulated Solana is always read so: the simulator serves its pubsub only there.
  const selfUrl = `http://${loopbackOf(config.host)}:${config.port}`
  const watched = networks.map(({ network, blockIntervalMs }) => ({
    network,
    pollIntervalMs: Math.min(MAX_SIMULATOR_POLL_INTERVAL_MS, blockIntervalMs),
    access: chainAccess(
      simulatorEndpoints(selfUrl, network, chainOf(registry, network), config.simulatorToken),
      {
        registry,
        timeoutMs: SIMULATOR_RPC_TIMEOUT_MS,
        logger,
        ...(config.simulatorClient === 'in-process' ? { inProcess: simulator } : {}),
      },
    ),
  }))
  return {
    ...(await readersOf(config, registry, watched)),
    // the simulator's mints asked of it in process: at start its routes may not be served yet
    mintReaders: networks
      .filter(({ network }) => chainOf(registry, network) === 'SOLANA')
      .map(({ network }) => ({
        network,
        reader: createSimulatorAddressReader({ simulator, network, registry }),
      })),
    services: [simulator],
    readiness: () => infrastructure.answers(),
    routes,
  }
}

async function rpcChains(
  config: RpcChainIndexerConfig,
  registry: AssetRegistry,
  infrastructure: Infrastructure,
  logger: Logger,
): Promise<Chains> {
  const watched = config.endpoints.map((endpoint) => {
    logEndpoint(endpoint, registry, logger)
    const access = chainAccess(endpoint, { registry, timeoutMs: config.rpcTimeoutMs, logger })
    const { network, pollIntervalMs, startHeight } = endpoint
    return { network, pollIntervalMs, access, ...(startHeight === null ? {} : { startHeight }) }
  })
  const chains = await readersOf(config, registry, watched)
  const clients = chains.watched.flatMap((chain) => ('client' in chain ? [chain.client] : []))
  // each Solana network's node, whatever its watch mode, is asked what owns the registry's mints
  const mintReaders = await Promise.all(
    watched
      .filter(({ network }) => chainOf(registry, network) === 'SOLANA')
      .map(async ({ network, access }) => {
        const own = chains.watched.find((chain) => chain.network === network && 'reader' in chain)
        return { network, reader: own && 'reader' in own ? own.reader : await access.addressReader() }
      }),
  )
  return {
    ...chains,
    mintReaders,
    services: [],
    // a reader's readiness is its indexer's (solana-address-indexer.ts)
    readiness: chainsReadiness(clients, () => infrastructure.answers()),
  }
}

/** each network's client or address reader, and balance reader */
async function readersOf(
  config: ChainIndexerConfig,
  registry: AssetRegistry,
  networks: Array<{ network: string; pollIntervalMs: number; startHeight?: number; access: ChainAccess }>,
): Promise<Pick<Chains, 'watched' | 'balanceReaders'>> {
  const watched = await Promise.all(
    networks.map(async ({ access, ...chain }): Promise<WatchedChain> => {
      if (!byAddress(config, registry, chain.network)) {
        return { ...chain, client: await access.blockScanningClient() }
      }
      return {
        network: chain.network,
        pollIntervalMs: chain.pollIntervalMs,
        reader: await access.addressReader(),
      }
    }),
  )
  const balanceReaders = await Promise.all(
    networks.map(async ({ network, access }) => [network, await access.balanceReader()] as const),
  )
  return { watched, balanceReaders: new Map(balanceReaders) }
}

/** where each network is watched from, by scheme and host only: a URL may carry a provider key */
function logEndpoint(endpoint: ChainEndpoint, registry: AssetRegistry, logger: Logger): void {
  const origins = (urls: string[]) => urls.map(endpointOrigin).join(', ')
  const fields = {
    network: endpoint.network,
    rpc: origins(endpoint.nodes.map((node) => node.rpcUrl)),
    ...(endpoint.chain === 'TRON'
      ? {
          solidityRpc: origins(endpoint.nodes.map((node) => node.solidityRpcUrl)),
          apiKey: endpoint.nodes.map((node) => (node.apiKey ? 'set' : 'none')).join(', '),
        }
      : {}),
    requiredConfirmations: findNetwork(registry, endpoint.network)?.requiredConfirmations,
    pollIntervalMs: endpoint.pollIntervalMs,
    startHeight: endpoint.startHeight ?? 'head',
  }
  logger.info(fields, 'watching a network over RPC')
  if (endpoint.nodes.some(isKeylessTronGrid)) {
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
