// What payment-command runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or EventStoreDB, Kafka and MongoDB) is @chainpay/adapters' choice, from the
// environment.

import { openEventStore, openInfrastructure } from '@chainpay/adapters'
import { applyNetworkSettings, defaultAssetRegistry } from '@chainpay/domain'
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
import {
  createServiceMetrics,
  healthRoutes,
  httpService,
  observeHttpRequests,
  type ServiceContext,
} from '@chainpay/service-kit'
import { createAddressDeriver } from '@chainpay/wallet'
import type { PaymentCommandConfig } from './config.js'

export async function buildPaymentCommandContext(
  config: PaymentCommandConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<ServiceContext> {
  const metrics = createServiceMetrics('payment-command')
  const infrastructure = await openInfrastructure({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'payment-command',
    logger,
    metrics: metrics.registry,
  })
  const { stores } = infrastructure
  const eventStore = openEventStore({ eventstoreUrl: config.eventstoreUrl, infrastructure, logger })
  const bus = infrastructure.bus()
  const deadlines = stores.deadlines()
  const chainTimes = createChainTimeTracker()
  const handler = createPaymentCommandHandler({
    eventStore,
    allocator: stores.allocator(),
    deriver: createAddressDeriver(config.keys),
    // only the networks a chain-indexer watches: a payment elsewhere would never be seen
    registry: applyNetworkSettings(defaultAssetRegistry, config.chains),
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
      observeHttpRequests(app, metrics.http)
      await app.register(healthRoutes, {
        readiness: () => infrastructure.answers(),
        metricsRegistry: metrics.registry,
      })
      return app
    },
  })

  return {
    // the command API first: creates only need the event store, while the consumers below may wait
    // for their groups (after a crash, until the dead member's session times out)
    services: [
      commandApi,
      createEventRelay({
        eventStore,
        bus,
        checkpoints: stores.checkpoints(),
        logger,
        metrics: metrics.relay,
      }),
      createDeadlineKeeper({ bus, deadlines, logger }),
      createObservationConsumer({ bus, handler, chainTimes, deadlines, logger }),
      createExpiryScheduler({ deadlines, handler, chainTimes, clock, logger }),
    ],
    async close() {
      await eventStore.close()
      await infrastructure.close()
    },
  }
}
