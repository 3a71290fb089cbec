// Liveness and readiness for orchestrators, on every service's HTTP servers: /healthz says the
// process serves HTTP, /readyz that what it depends on answers (503 SERVICE_UNAVAILABLE when not);
// and /metrics, for Prometheus. buildHealthApp is the whole server of a deployable that has no API
// of its own.

import { DomainError } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { createHttpApp } from './http/http-app.js'
import { type HttpRequestMetrics, METRICS_PATH } from './metrics.js'

/** what GET /metrics answers with: a prom-client Registry, or anything shaped like one */
export interface MetricsExposition {
  readonly contentType: string
  metrics(): Promise<string>
}

export interface HealthRoutesOptions {
  /** true when the service can do its work; a rejection counts as not ready */
  readiness: () => Promise<boolean>
  /** served at GET /metrics in the Prometheus text format; no /metrics when absent */
  metricsRegistry?: MetricsExposition | undefined
}

// probes come every few seconds: only their failures are worth a log line
const probe = { logLevel: 'warn' } as const

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (
  app,
  { readiness, metricsRegistry },
) => {
  app.get('/healthz', probe, async () => ({ status: 'ok' }))

  app.get('/readyz', probe, async (request) => {
    const ready = await readiness().catch((error: unknown) => {
      request.log.warn({ err: error }, 'readiness check failed')
      return false
    })
    if (!ready) throw new DomainError('SERVICE_UNAVAILABLE', 'not ready: a dependency is unavailable')
    return { status: 'ready' }
  })

  if (metricsRegistry) {
    // scraped every few seconds too
    app.get(METRICS_PATH, probe, async (_request, reply) =>
      reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
    )
  }
}

export interface HealthAppOptions extends HealthRoutesOptions {
  logger: Logger
  /** observes every request but the scrapes of /metrics */
  requestMetrics?: HttpRequestMetrics
  /** more routes on the same port */
  routes?: FastifyPluginAsync
}

/** health, readiness and metrics (and `routes`) on the one HTTP foundation */
export async function buildHealthApp(options: HealthAppOptions): Promise<FastifyInstance> {
  const app = createHttpApp({
    logger: options.logger,
    component: 'health',
    ...(options.requestMetrics ? { requestMetrics: options.requestMetrics } : {}),
  })
  const { readiness, metricsRegistry } = options
  await app.register(healthRoutes, { readiness, metricsRegistry })
  if (options.routes) await app.register(options.routes)
  return app
}
