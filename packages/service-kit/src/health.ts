// Liveness and readiness for orchestrators, on every service's HTTP servers: /healthz says the
// process serves HTTP, /readyz that what it depends on answers (503 SERVICE_UNAVAILABLE when not);
// and the /metrics route for Prometheus, which the services serve on a listener of its own
// (metrics-service.ts), never next to their health routes. buildHealthApp is the whole server of a deployable that has no API
// of its own. /healthz and /readyz need no token, so that kubelet probes work, and say nothing but
// ok or not; /metrics requires METRICS_TOKEN when one is set (docs/operations.md, "Internal APIs").

import { DomainError } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { createHttpApp } from './http/http-app.js'
import { type HttpRequestMetrics, METRICS_PATH } from './metrics.js'
import { bearerTokenCheck } from './service-token.js'

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
  /** METRICS_TOKEN: /metrics answers only `Authorization: Bearer <token>`; open when undefined */
  metricsToken?: string | undefined
}

// probes come every few seconds: only their failures are worth a log line
const probe = { logLevel: 'warn' } as const

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (
  app,
  { readiness, metricsRegistry, metricsToken },
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

  if (metricsRegistry) await app.register(metricsRoute, { metricsRegistry, metricsToken })
}

export interface MetricsRouteOptions {
  metricsRegistry: MetricsExposition
  /** METRICS_TOKEN: required as `Authorization: Bearer <token>` when set */
  metricsToken?: string | undefined
}

/** GET /metrics, behind METRICS_TOKEN when there is one */
export const metricsRoute: FastifyPluginAsync<MetricsRouteOptions> = async (
  app,
  { metricsRegistry, metricsToken },
) => {
  // scraped every few seconds: only failures are worth a log line
  app.get(
    METRICS_PATH,
    {
      ...probe,
      ...(metricsToken === undefined ? {} : { onRequest: bearerTokenCheck(metricsToken, 'METRICS_TOKEN') }),
    },
    async (_request, reply) => reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
  )
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
  const { readiness, metricsRegistry, metricsToken } = options
  await app.register(healthRoutes, { readiness, metricsRegistry, metricsToken })
  if (options.routes) await app.register(options.routes)
  return app
}
