// Unauthenticated routes: liveness, readiness and the OpenAPI document.

import { API_BASE_PATH, buildOpenApiDocument } from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import type { FastifyPluginAsync } from 'fastify'

export interface ServiceRoutesDeps {
  /** true when the gateway's dependencies answer; a rejection counts as not ready */
  readiness: () => Promise<boolean>
}

export const serviceRoutes: FastifyPluginAsync<ServiceRoutesDeps> = async (app, { readiness }) => {
  const openApiDocument = JSON.stringify(buildOpenApiDocument())

  app.get('/healthz', async () => ({ status: 'ok' }))

  app.get('/readyz', async (request) => {
    const ready = await readiness().catch((error: unknown) => {
      request.log.warn({ err: error }, 'readiness check failed')
      return false
    })
    if (!ready) throw new DomainError('SERVICE_UNAVAILABLE', 'not ready: a dependency is unavailable')
    return { status: 'ready' }
  })

  app.get(`${API_BASE_PATH}/openapi.json`, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(openApiDocument),
  )
}
