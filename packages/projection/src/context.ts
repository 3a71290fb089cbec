// What the projection runs on, built from its configuration: the read model fold on the bus, and its
// health port. Which adapters back the ports (the embedded SQLite file, or Kafka and MongoDB) is
// @chainpay/infrastructure' choice, from the environment; in standalone, the process's shared ones.

import { infrastructureFor, type SharedRuntime } from '@chainpay/infrastructure'
import type { Logger } from '@chainpay/platform'
import {
  createServiceMetrics,
  healthService,
  metricsService,
  type ServiceContext,
} from '@chainpay/service-kit'
import type { ProjectionConfig } from './config.js'
import { createDepositProjection } from './deposit-projection.js'
import { createInvoiceProjection } from './invoice-projection.js'
import { createOutgoingProjection } from './outgoing-projection.js'
import { createProjectionService } from './projection-service.js'

export interface ProjectionContextOptions {
  /** standalone: the process's infrastructure and metrics; then no health port of its own */
  shared?: SharedRuntime
}

export async function buildProjectionContext(
  config: ProjectionConfig,
  logger: Logger,
  options: ProjectionContextOptions = {},
): Promise<ServiceContext> {
  const { shared } = options
  const metrics = shared?.metrics ?? createServiceMetrics('projection')
  const { infrastructure, release } = await infrastructureFor({
    infrastructure: config.infrastructure,
    databaseFile: config.databaseFile,
    serviceName: 'projection',
    logger,
    metrics: metrics.registry,
    shared,
  })
  const readiness = () => infrastructure.answers()
  const projection = createProjectionService({
    bus: infrastructure.bus(),
    readModel: infrastructure.stores.readModel(),
    receivedNet: infrastructure.stores.receivedNet(),
    logger,
  })
  const invoiceProjection = createInvoiceProjection({
    bus: infrastructure.bus(),
    readModel: infrastructure.stores.invoiceReadModel(),
    logger,
  })
  const outgoingProjection = createOutgoingProjection({
    bus: infrastructure.bus(),
    readModel: infrastructure.stores.outgoingReadModel(),
    logger,
  })
  const depositProjection = createDepositProjection({
    bus: infrastructure.bus(),
    depositAddresses: infrastructure.stores.depositAddressReadModel(),
    deposits: infrastructure.stores.depositReadModel(),
    receivedNet: infrastructure.stores.receivedNet(),
    logger,
  })
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
      ? [projection, invoiceProjection, outgoingProjection, depositProjection]
      : [projection, invoiceProjection, outgoingProjection, depositProjection, healthPort, metricsPort],
    readiness,
    close: release,
  }
}
