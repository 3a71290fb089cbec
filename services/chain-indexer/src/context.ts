// What the chain-indexer runs on, built from its configuration: the one place that knows which
// adapters back the ports (here the embedded SQLite ones, on the database file every service shares,
// and the chain simulator, in process, keeping its chains in that file too).

import { createChainIndexer } from '@chainpay/chain-indexer'
import { chainSimulatorRoutes, createChainSimulator } from '@chainpay/chain-sim'
import { defaultAssetRegistry } from '@chainpay/domain'
import { type Clock, type Logger, systemClock } from '@chainpay/platform'
import { healthService, type ServiceContext } from '@chainpay/service-kit'
import {
  createSqliteBus,
  createSqliteChainIndexerStore,
  openSqliteDatabase,
  sqliteAnswers,
} from '@chainpay/store-sqlite'
import type { ChainIndexerConfig } from './config.js'

/** mainnet names, so that merchants integrate exactly as they will in production */
const SIMULATED_NETWORKS = ['TRON', 'SOLANA'] as const

/** the indexer looks for new blocks at least this often, and at least once per simulated block */
const MAX_POLL_INTERVAL_MS = 500

export function buildChainIndexerContext(
  config: ChainIndexerConfig,
  logger: Logger,
  clock: Clock = systemClock,
): ServiceContext {
  const db = openSqliteDatabase(config.databaseFile)
  const bus = createSqliteBus(db, { logger })
  const store = createSqliteChainIndexerStore(db)
  const simulator = createChainSimulator({
    db,
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
      pollIntervalMs: Math.min(MAX_POLL_INTERVAL_MS, config.blockIntervalMs[network]),
    }),
  )
  return {
    services: [
      simulator,
      ...indexers,
      healthService({
        name: 'chain simulator and health API',
        host: config.host,
        port: config.port,
        logger,
        readiness: sqliteAnswers(db),
        routes: async (app) => {
          await app.register(chainSimulatorRoutes, { simulator })
        },
      }),
    ],
    async close() {
      await bus.close()
      db.close()
    },
  }
}
