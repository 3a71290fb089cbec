// What the chain-indexer runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or Kafka and MongoDB) is @chainpay/adapters' choice, from the environment;
// the chain simulator runs in process and keeps its chains in the SQLite file of DATA_DIR.

import { openInfrastructure } from '@chainpay/adapters'
import { createChainIndexer } from '@chainpay/chain-indexer'
import { chainSimulatorRoutes, createChainSimulator } from '@chainpay/chain-sim'
import { defaultAssetRegistry } from '@chainpay/domain'
import { type Clock, type Logger, systemClock } from '@chainpay/platform'
import { createServiceMetrics, healthService, type ServiceContext } from '@chainpay/service-kit'
import type { ChainIndexerConfig } from './config.js'

/** mainnet names, so that merchants integrate exactly as they will in production */
const SIMULATED_NETWORKS = ['TRON', 'SOLANA'] as const

/** the indexer looks for new blocks at least this often, and at least once per simulated block */
const MAX_POLL_INTERVAL_MS = 500

export async function buildChainIndexerContext(
  config: ChainIndexerConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<ServiceContext> {
  const metrics = createServiceMetrics('chain-indexer')
  const infrastructure = await openInfrastructure({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'chain-indexer',
    logger,
    metrics: metrics.registry,
  })
  const bus = infrastructure.bus()
  const store = infrastructure.stores.chainIndexer()
  const simulator = createChainSimulator({
    db: infrastructure.sqlite(),
    registry: defaultAssetRegistry,
    networks: SIMULATED_NETWORKS.map((network) => ({
      network,
      blockIntervalMs: config.blockIntervalMs[network],
    })),
    clock: () => clock.now(),
    logger,
  })
  const indexers = SIMULATED_NETWORKS.map((network) =>
    createChainIndexer({
      network,
      client: simulator.client(network),
      store,
      bus,
      registry: defaultAssetRegistry,
      clock,
      logger,
      metrics: metrics.chain,
      pollIntervalMs: Math.min(MAX_POLL_INTERVAL_MS, config.blockIntervalMs[network]),
    }),
  )
  return {
    // the simulator and its routes before the indexers: those may wait for their consumer groups
    // (after a crash, until the dead member's session times out)
    services: [
      simulator,
      healthService({
        name: 'chain simulator and health API',
        host: config.host,
        port: config.port,
        logger,
        readiness: () => infrastructure.answers(),
        metricsRegistry: metrics.registry,
        routes: async (app) => {
          await app.register(chainSimulatorRoutes, { simulator })
        },
      }),
      ...indexers,
    ],
    close: () => infrastructure.close(),
  }
}
