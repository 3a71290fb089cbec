// What the projection runs on, built from its configuration. Which adapters back the ports (the
// embedded SQLite file, or Kafka and MongoDB) is @chainpay/adapters' choice, from the environment.

import { openInfrastructure } from '@chainpay/adapters'
import type { Logger } from '@chainpay/platform'
import { createProjectionService } from '@chainpay/projection'
import { createServiceMetrics, healthService, type ServiceContext } from '@chainpay/service-kit'
import type { ProjectionConfig } from './config.js'

export async function buildProjectionContext(
  config: ProjectionConfig,
  logger: Logger,
): Promise<ServiceContext> {
  const metrics = createServiceMetrics('projection')
  const infrastructure = await openInfrastructure({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'projection',
    logger,
    metrics: metrics.registry,
  })
  return {
    services: [
      createProjectionService({
        bus: infrastructure.bus(),
        readModel: infrastructure.stores.readModel(),
        logger,
      }),
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
