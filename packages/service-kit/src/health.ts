// Liveness and readiness for orchestrators: /healthz says the process serves HTTP, /readyz that
// what it depends on answers (503 with the merchant API's error body when not); and /metrics, for
// Prometheus.

import type { Logger } from '@chainpay/platform'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyPluginAsync,
} from 'fastify'
import type { Registry } from 'prom-client'
import { METRICS_PATH } from './metrics.js'

export interface HealthRoutesOptions {
  /** true when the service can do its work; a rejection counts as not ready */
  readiness: () => Promise<boolean>
  /** served at GET /metrics in the Prometheus text format; no /metrics when absent */
  metricsRegistry?: Registry
}

// probes come every few seconds: only their failures are worth a log line
const probe = { logLevel: 'warn' } as const

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (
  app,
  { readiness, metricsRegistry },
) => {
  app.get('/healthz', probe, async () => ({ status: 'ok' }))

  app.get('/readyz', probe, async (request, reply) => {
    const ready = await readiness().catch((error: unknown) => {
      request.log.warn({ err: error }, 'readiness check failed')
      return false
    })
    if (ready) return { status: 'ready' }
    return reply.code(503).send(errorBody('SERVICE_UNAVAILABLE', 'not ready: a dependency is unavailable'))
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
  /** more routes on the same port */
  routes?: FastifyPluginAsync
}

/** health and readiness (and `routes`), answering anything else with the standard error body */
export async function buildHealthApp(options: HealthAppOptions): Promise<FastifyInstance> {
  const loggerInstance: FastifyBaseLogger = options.logger
  const app = Fastify({ loggerInstance })
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(errorBody('NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`)),
  )
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const code = clientErrorCodes[error.statusCode ?? 500]
    if (code) return reply.code(error.statusCode as number).send(errorBody(code, error.message))
    request.log.error({ err: error }, 'request failed')
    return reply.code(500).send(errorBody('INTERNAL_ERROR', 'internal error'))
  })
  const { readiness, metricsRegistry } = options
  await app.register(healthRoutes, { readiness, metricsRegistry })
  if (options.routes) await app.register(options.routes)
  return app
}

const clientErrorCodes: Record<number, string> = {
  400: 'VALIDATION_ERROR',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
}

function errorBody(code: string, message: string) {
  return { error: { code, message } }
}
