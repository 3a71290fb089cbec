// What payment-command runs on, built from its configuration: the one place that knows which adapters
// back the ports (here the embedded SQLite ones, on the database file every service shares).

import { defaultAssetRegistry } from '@chainpay/domain'
import {
  buildCommandApi,
  createChainTimeTracker,
  createDeadlineKeeper,
  createEventRelay,
  createExpiryScheduler,
  createObservationConsumer,
  createPaymentCommandHandler,
} from '@chainpay/payment-command'
import { type Clock, type Logger, systemClock } from '@chainpay/platform'
import { healthRoutes, httpService, type ServiceContext } from '@chainpay/service-kit'
import {
  createSqliteAddressAllocator,
  createSqliteBus,
  createSqliteCheckpointStore,
  createSqliteDeadlineStore,
  createSqliteEventStore,
  openSqliteDatabase,
  sqliteAnswers,
} from '@chainpay/store-sqlite'
import { createAddressDeriver } from '@chainpay/wallet'
import type { PaymentCommandConfig } from './config.js'

export function buildPaymentCommandContext(
  config: PaymentCommandConfig,
  logger: Logger,
  clock: Clock = systemClock,
): ServiceContext {
  const db = openSqliteDatabase(config.databaseFile)
  const eventStore = createSqliteEventStore(db)
  const bus = createSqliteBus(db, { logger })
  const deadlines = createSqliteDeadlineStore(db)
  const chainTimes = createChainTimeTracker()
  const handler = createPaymentCommandHandler({
    eventStore,
    allocator: createSqliteAddressAllocator(db),
    deriver: createAddressDeriver(config.keys),
    registry: defaultAssetRegistry,
    policy: { allowInsecureCallbackUrls: config.callbackUrlPolicy === 'development' },
    clock,
    logger,
  })

  const commandApi = httpService({
    name: 'command API',
    host: config.host,
    port: config.port,
    logger,
    build: async () => {
      const app = buildCommandApi({ handler, logger })
      await app.register(healthRoutes, { readiness: sqliteAnswers(db) })
      return app
    },
  })

  return {
    services: [
      createEventRelay({ eventStore, bus, checkpoints: createSqliteCheckpointStore(db), logger }),
      createDeadlineKeeper({ bus, deadlines, logger }),
      createObservationConsumer({ bus, handler, chainTimes, deadlines, logger }),
      createExpiryScheduler({ deadlines, handler, chainTimes, clock, logger }),
      commandApi,
    ],
    async close() {
      await bus.close()
      await eventStore.close()
      db.close()
    },
  }
}
