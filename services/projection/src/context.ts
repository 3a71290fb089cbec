// What the projection runs on, built from its configuration: the one place that knows which adapters
// back the ports (here the embedded SQLite ones, on the database file every service shares).

import type { Logger } from '@chainpay/platform'
import { createProjectionService } from '@chainpay/projection'
import { healthService, type ServiceContext } from '@chainpay/service-kit'
import {
  createSqliteBus,
  createSqlitePaymentReadModel,
  openSqliteDatabase,
  sqliteAnswers,
} from '@chainpay/store-sqlite'
import type { ProjectionConfig } from './config.js'

export function buildProjectionContext(config: ProjectionConfig, logger: Logger): ServiceContext {
  const db = openSqliteDatabase(config.databaseFile)
  const bus = createSqliteBus(db, { logger })
  return {
    services: [
      createProjectionService({ bus, readModel: createSqlitePaymentReadModel(db), logger }),
      healthService({ host: config.host, port: config.healthPort, logger, readiness: sqliteAnswers(db) }),
    ],
    async close() {
      await bus.close()
      db.close()
    },
  }
}
