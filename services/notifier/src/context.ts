// What the notifier runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or Kafka and MongoDB) is @chainpay/adapters' choice, from the environment.

import { openInfrastructure } from '@chainpay/adapters'
import { createDeliveryRecorder, createWebhookDispatcher } from '@chainpay/notifier'
import { type Clock, createSecretBox, type Logger, systemClock } from '@chainpay/platform'
import { createServiceMetrics, healthService, type ServiceContext } from '@chainpay/service-kit'
import type { NotifierConfig } from './config.js'

export async function buildNotifierContext(
  config: NotifierConfig,
  logger: Logger,
  clock: Clock = systemClock,
): Promise<ServiceContext> {
  const metrics = createServiceMetrics('notifier')
  const infrastructure = await openInfrastructure({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'notifier',
    logger,
    metrics: metrics.registry,
  })
  const { stores } = infrastructure
  const deliveries = stores.deliveries()
  const merchants = stores.merchants()
  const dispatcher = createWebhookDispatcher({
    deliveries,
    merchants,
    secretBox: createSecretBox(config.encryptionKey),
    clock,
    logger,
    allowPrivateTargets: config.allowPrivateTargets,
    metrics: metrics.webhooks,
    ...(config.retryScheduleMs ? { schedule: config.retryScheduleMs } : {}),
  })
  const recorder = createDeliveryRecorder({
    bus: infrastructure.bus(),
    // the notifier's own copy of payment state, apart from the gateway's read model
    payments: stores.readModel('notifier_payments'),
    deliveries,
    merchants,
    clock,
    logger,
    onRecorded: () => dispatcher.wake(),
    metrics: metrics.webhooks,
  })
  return {
    services: [
      recorder,
      dispatcher,
      healthService({
        host: config.host,
        port: config.healthPort,
        logger,
        readiness: () => infrastructure.answers(),
        metricsRegistry: metrics.registry,
      }),
    ],
    close: () => infrastructure.close(),
  }
}
