// The listener of a deployable's /metrics (METRICS_HOST, METRICS_PORT): /metrics and nothing else,
// so that whoever may scrape (a NetworkPolicy names them by port) reaches no API, and no API port
// answers a scrape (docs/operations.md, "Ports and endpoints").

import type { Logger, Service } from '@chainpay/platform'
import { type MetricsExposition, metricsRoute } from './health.js'
import { createHttpApp } from './http/http-app.js'
import type { HttpServerLimits } from './http/server-limits.js'
import { httpService } from './http-service.js'
import type { SharedConfig } from './shared-config.js'

export interface MetricsServiceOptions {
  /** METRICS_HOST, METRICS_PORT and METRICS_TOKEN, as readSharedConfig read them */
  config: Pick<SharedConfig, 'metricsHost' | 'metricsPort' | 'metricsToken'> & {
    httpLimits?: HttpServerLimits | undefined
  }
  registry: MetricsExposition
  logger: Logger
}

export function metricsService({ config, registry, logger }: MetricsServiceOptions): Service {
  return httpService({
    name: 'metrics',
    host: config.metricsHost,
    port: config.metricsPort,
    portVariable: 'METRICS_PORT',
    logger,
    limits: config.httpLimits,
    build: async () => {
      // no request metrics here: a scrape is not a request of the service's own
      const app = createHttpApp({ logger, component: 'metrics' })
      await app.register(metricsRoute, { metricsRegistry: registry, metricsToken: config.metricsToken })
      return app
    },
  })
}
