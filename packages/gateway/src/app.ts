// The gateway's HTTP app: the merchant API under /api/merchant/v1, health and readiness, the OpenAPI
// document. Built here, started by listenGateway (server.ts), so that tests can inject requests.

import { API_BASE_PATH } from '@chainpay/contracts'
import type { AssetRegistry, CreateRequestPolicy } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import type { PaymentCommands, PaymentReadModel } from '@chainpay/ports'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { type ApiKeyAuthenticator, merchantAuthentication } from './auth.js'
import { answerOtherMethods, createHttpApp } from './http/http-app.js'
import { METRICS_PATH, type MetricsExposition, type RequestMetrics, serveMetrics } from './http/metrics.js'
import { collectBodiesAsText } from './http/raw-body.js'
import { limitRequestsPerApiKey, type RateLimitSettings } from './rate-limit.js'
import { paymentRoutes } from './routes/payments.js'
import { serviceRoutes } from './routes/service.js'

export interface GatewayDeps {
  commands: PaymentCommands
  readModel: PaymentReadModel
  authenticator: ApiKeyAuthenticator
  registry: AssetRegistry
  policy: CreateRequestPolicy
  clock: Clock
  logger: Logger
  rateLimit: RateLimitSettings
  /** true when the gateway can serve; GET /readyz answers 503 otherwise. Always ready when absent. */
  readiness?: () => Promise<boolean>
  /** more routes on the same server (standalone mounts the chain simulator's dev routes here) */
  extraRoutes?: FastifyPluginAsync
  /** observes every request, by route pattern */
  requestMetrics?: RequestMetrics
  /** served at GET /metrics, unauthenticated; no /metrics when absent */
  metricsRegistry?: MetricsExposition
}

export async function buildGatewayApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const { metricsRegistry } = deps
  const app = createHttpApp({
    logger: deps.logger,
    component: 'gateway',
    requestMetrics: deps.requestMetrics,
  })
  app.decorateRequest('caller', null)
  app.decorateRequest('rawBody', '')

  await app.register(serviceRoutes, { readiness: deps.readiness ?? (async () => true) })
  if (metricsRegistry) serveMetrics(app, metricsRegistry)

  await app.register(async (api) => {
    // raw text bodies only here: extraRoutes keep fastify's JSON parsing
    collectBodiesAsText(api)
    await api.register(
      async (merchantApi) => {
        merchantApi.addHook('preValidation', merchantAuthentication(deps))
        await limitRequestsPerApiKey(merchantApi, deps.rateLimit)
        await merchantApi.register(paymentRoutes, deps)
      },
      { prefix: API_BASE_PATH },
    )
    answerOtherMethods(api, `${API_BASE_PATH}/payments`, ['POST'])
    answerOtherMethods(api, `${API_BASE_PATH}/payments/:paymentId`, ['GET'])
    answerOtherMethods(api, `${API_BASE_PATH}/payments/:paymentId/cancel`, ['POST'])
    answerOtherMethods(api, `${API_BASE_PATH}/openapi.json`, ['GET'])
    answerOtherMethods(api, '/healthz', ['GET'])
    answerOtherMethods(api, '/readyz', ['GET'])
    if (metricsRegistry) answerOtherMethods(api, METRICS_PATH, ['GET'])
  })

  if (deps.extraRoutes) await app.register(deps.extraRoutes)
  return app
}
