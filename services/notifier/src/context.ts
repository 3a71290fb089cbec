// What the notifier runs on, built from its configuration: the one place that knows which adapters
// back the ports (here the embedded SQLite ones, on the database file every service shares).

import { createDeliveryRecorder, createWebhookDispatcher } from '@chainpay/notifier'
import { type Clock, createSecretBox, type Logger, systemClock } from '@chainpay/platform'
import { healthService, type ServiceContext } from '@chainpay/service-kit'
import {
  createSqliteBus,
  createSqliteDeliveryStore,
  createSqliteMerchantStore,
  createSqlitePaymentReadModel,
  openSqliteDatabase,
  sqliteAnswers,
} from '@chainpay/store-sqlite'
import type { NotifierConfig } from './config.js'

export function buildNotifierContext(
  config: NotifierConfig,
  logger: Logger,
  clock: Clock = systemClock,
): ServiceContext {
  const db = openSqliteDatabase(config.databaseFile)
  const bus = createSqliteBus(db, { logger })
  const deliveries = createSqliteDeliveryStore(db)
  const merchants = createSqliteMerchantStore(db)
  const dispatcher = createWebhookDispatcher({
    deliveries,
    merchants,
    secretBox: createSecretBox(config.encryptionKey),
    clock,
    logger,
    allowPrivateTargets: config.allowPrivateTargets,
    ...(config.retryScheduleMs ? { schedule: config.retryScheduleMs } : {}),
  })
  const recorder = createDeliveryRecorder({
    bus,
    // the notifier's own copy of payment state, apart from the gateway's read model
    payments: createSqlitePaymentReadModel(db, { table: 'notifier_payments' }),
    deliveries,
    merchants,
    clock,
    logger,
    onRecorded: () => dispatcher.wake(),
  })
  return {
    services: [
      recorder,
      dispatcher,
      healthService({ host: config.host, port: config.healthPort, logger, readiness: sqliteAnswers(db) }),
    ],
    async close() {
      await bus.close()
      db.close()
    },
  }
}
