// The admin API: merchants, their API keys, webhook secrets and URLs, fee policies, and the webhook
// delivery log, all under /admin/v1 behind one operator token. It listens apart from the merchant
// API (loopback or an internal network), never on the public port.

import { DomainError } from '@chainpay/domain'
import { constantTimeEqual, type Logger } from '@chainpay/platform'
import type { WebhookDeliveryStore } from '@chainpay/ports'
import type { FastifyInstance, FastifyRequest, HTTPMethods } from 'fastify'
import { answerOtherMethods, createHttpApp } from '../http/http-app.js'
import { METRICS_PATH, type MetricsExposition, type RequestMetrics, serveMetrics } from '../http/metrics.js'
import { type AdminRoutesDeps, deliveryAdminRoutes, merchantAdminRoutes } from './routes.js'

export const ADMIN_BASE_PATH = '/admin/v1'

export interface AdminDeps extends AdminRoutesDeps {
  /** the operator's token, sent as `Authorization: Bearer <token>` */
  adminToken: string
  logger: Logger
  deliveries?: WebhookDeliveryStore
  /** observes every request, by route pattern */
  requestMetrics?: RequestMetrics
  /** served at GET /metrics without the admin token (for Prometheus on the internal network); no /metrics when absent */
  metricsRegistry?: MetricsExposition
}

const ADMIN_ROUTES: Array<[string, HTTPMethods[]]> = [
  ['/merchants', ['GET', 'POST']],
  ['/merchants/:merchantId', ['GET']],
  ['/merchants/:merchantId/api-keys', ['POST']],
  ['/merchants/:merchantId/api-keys/:apiKey/revoke', ['POST']],
  ['/merchants/:merchantId/webhook-secret/rotate', ['POST']],
  ['/merchants/:merchantId/webhook-url', ['PUT']],
  ['/merchants/:merchantId/fee-policy', ['PUT']],
]

const DELIVERY_ROUTES: Array<[string, HTTPMethods[]]> = [
  ['/merchants/:merchantId/payments/:paymentId/deliveries', ['GET']],
  ['/deliveries/:deliveryId/redeliver', ['POST']],
]

export async function buildAdminApp(deps: AdminDeps): Promise<FastifyInstance> {
  if (deps.adminToken.trim() === '') throw new Error('admin API: the admin token must not be empty')
  const app = createHttpApp({ logger: deps.logger, component: 'admin', requestMetrics: deps.requestMetrics })
  const { deliveries, metricsRegistry } = deps

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => checkAdminToken(request, deps.adminToken))
      await admin.register(merchantAdminRoutes, deps)
      if (deliveries) await admin.register(deliveryAdminRoutes, { deliveries, clock: deps.clock })
    },
    { prefix: ADMIN_BASE_PATH },
  )
  const routes = deliveries ? [...ADMIN_ROUTES, ...DELIVERY_ROUTES] : ADMIN_ROUTES
  for (const [url, methods] of routes) answerOtherMethods(app, `${ADMIN_BASE_PATH}${url}`, methods)
  if (metricsRegistry) {
    serveMetrics(app, metricsRegistry)
    answerOtherMethods(app, METRICS_PATH, ['GET'])
  }
  return app
}

function checkAdminToken(request: FastifyRequest, adminToken: string): void {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^Bearer +(\S+)$/i.exec(header) : null
  if (match?.[1] === undefined) {
    throw new DomainError('MISSING_AUTH_HEADERS', 'Authorization: expected "Bearer <admin token>"')
  }
  if (!constantTimeEqual(match[1], adminToken)) {
    throw new DomainError('INVALID_API_KEY', 'Authorization: invalid admin token')
  }
}
