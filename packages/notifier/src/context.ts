// What the notifier runs on, built from its configuration: the recorder of deliveries on the bus, the
// dispatcher that sends them, and its health port. Which adapters back the ports (the embedded SQLite
// file, or Kafka and MongoDB) is @chainpay/infrastructure' choice, from the environment; in standalone,
// the process's shared ones.

import { infrastructureFor, type SharedRuntime } from '@chainpay/infrastructure'
import { type Clock, createSecretBox, type Logger, readinessOf, systemClock } from '@chainpay/platform'
import {
  createCheckoutLinks,
  createServiceMetrics,
  healthService,
  metricsService,
  type ServiceContext,
} from '@chainpay/service-kit'
import { cachedMerchants } from './cached-merchants.js'
import type { NotifierConfig } from './config.js'
import { createDeliveryPruner, retentionDaysToMs } from './delivery-pruner.js'
import { createDeliveryRecorder } from './delivery-recorder.js'
import { deliveryWakeupConsumer } from './delivery-wakeups.js'
import { createDepositDeliveryRecorder } from './deposit-delivery-recorder.js'
import { createWebhookDispatcher } from './dispatcher.js'
import { createInvoiceDeliveryRecorder } from './invoice-delivery-recorder.js'
import { createOutgoingDeliveryRecorder } from './outgoing-delivery-recorder.js'

export interface NotifierContextOptions {
  clock?: Clock
  /** standalone: the process's infrastructure and metrics; then no health port of its own */
  shared?: SharedRuntime
}

export async function buildNotifierContext(
  config: NotifierConfig,
  logger: Logger,
  options: NotifierContextOptions = {},
): Promise<ServiceContext> {
  const { shared, clock = systemClock } = options
  const metrics = shared?.metrics ?? createServiceMetrics('notifier')
  const { infrastructure, release } = await infrastructureFor({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'notifier',
    logger,
    metrics: metrics.registry,
    shared,
  })
  const { stores } = infrastructure
  const deliveries = stores.deliveries()
  // looked up at most once per 5 s: four lookups per paid payment otherwise (cached-merchants.ts)
  const merchants = cachedMerchants(stores.merchants(), clock)
  const webhookEndpoints = stores.webhookEndpoints()
  const dispatcher = createWebhookDispatcher({
    deliveries,
    merchants,
    webhookEndpoints,
    secretBox: createSecretBox(config.encryptionKeys),
    clock,
    logger,
    allowPrivateTargets: config.allowPrivateTargets,
    metrics: metrics.webhooks,
    concurrency: config.webhookConcurrency.total,
    concurrencyPerTargetHost: config.webhookConcurrency.perTargetHost,
    ...(config.retryScheduleMs ? { schedule: config.retryScheduleMs } : {}),
  })
  const recorder = createDeliveryRecorder({
    bus: infrastructure.bus(),
    // the notifier's own copy of payment state, apart from the gateway's read model
    payments: stores.readModel('notifier_payments'),
    deliveries,
    merchants,
    webhookEndpoints,
    clock,
    logger,
    checkoutLinks: createCheckoutLinks({ publicUrl: config.publicUrl, keys: config.encryptionKeys }),
    onRecorded: (deliveryIds) => dispatcher.dispatchRecorded(deliveryIds),
    metrics: metrics.webhooks,
  })
  const invoiceRecorder = createInvoiceDeliveryRecorder({
    bus: infrastructure.bus(),
    // the notifier's own copy of invoice state, apart from the gateway's read model
    invoices: stores.invoiceReadModel('notifier_invoices'),
    deliveries,
    merchants,
    webhookEndpoints,
    clock,
    logger,
    invoiceLinks: createCheckoutLinks({
      publicUrl: config.publicUrl,
      keys: config.encryptionKeys,
      kind: 'invoice',
    }),
    onRecorded: (deliveryIds) => dispatcher.dispatchRecorded(deliveryIds),
  })
  // refunds' and payouts' state changes (docs/api.md, "Refunds and payouts")
  const outgoingRecorder = createOutgoingDeliveryRecorder({
    bus: infrastructure.bus(),
    deliveries,
    merchants,
    webhookEndpoints,
    clock,
    logger,
    onRecorded: (deliveryIds) => dispatcher.dispatchRecorded(deliveryIds),
  })
  // deposits at customers' deposit addresses (docs/api.md, "Deposits")
  const depositRecorder = createDepositDeliveryRecorder({
    bus: infrastructure.bus(),
    deliveries,
    merchants,
    webhookEndpoints,
    clock,
    logger,
    onRecorded: (deliveryIds) => dispatcher.dispatchRecorded(deliveryIds),
  })
  // what the gateway put in line (a redelivery, a test event) is claimed at once, not at the next poll
  const wakeups = deliveryWakeupConsumer(infrastructure.bus(), dispatcher, logger)
  const pruner = createDeliveryPruner({
    deliveries,
    clock,
    logger,
    retentionMs: retentionDaysToMs(config.webhookRetentionDays),
  })
  // the stores, the bus and its consumer, and the dispatcher's loop (docs/operations.md, "Health")
  const readiness = readinessOf(() => infrastructure.answers(), [dispatcher])
  const healthPort = healthService({
    host: config.host,
    port: config.healthPort,
    portVariable: 'HEALTH_PORT',
    logger,
    limits: config.httpLimits,
    readiness,
    requestMetrics: metrics.http,
  })
  const metricsPort = metricsService({ config, registry: metrics.registry, logger })
  return {
    services: shared
      ? [recorder, invoiceRecorder, outgoingRecorder, depositRecorder, dispatcher, wakeups, pruner]
      : [
          recorder,
          invoiceRecorder,
          outgoingRecorder,
          depositRecorder,
          dispatcher,
          wakeups,
          pruner,
          healthPort,
          metricsPort,
        ],
    readiness,
    close: release,
  }
}
