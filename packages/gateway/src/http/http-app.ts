// What the merchant API and the admin API share: request ids, one log line per request, strict
// schema validation, and the merchant API's error body for every error, 404 and 405 included.

import { DomainError } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type HTTPMethods,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import { notFoundError, pathOf, sendError } from '../errors.js'
import { BODY_LIMIT_BYTES } from './limits.js'
import { observeRequests, type RequestMetrics } from './metrics.js'
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js'
import { RequestLogController } from './request-log.js'

export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface HttpAppOptions {
  logger: Logger
  component: string
  /** observes every request but the scrapes of /metrics */
  requestMetrics?: RequestMetrics
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const app = Fastify({
    // typed as fastify's logger interface, so that the app is a plain FastifyInstance
    loggerInstance: options.logger.child({ component: options.component }) as FastifyBaseLogger,
    logController: new RequestLogController(),
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: requestIdFor,
    requestIdHeader: false,
    ajv: {
      customOptions: {
        // the body is validated exactly as sent: nothing removed, coerced or filled in, so that the
        // request fingerprint of an idempotent create is the fingerprint of what the merchant sent
        removeAdditional: false,
        coerceTypes: false,
        useDefaults: false,
        allErrors: false,
      },
    },
    frameworkErrors: (error, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id)
      sendError(error, request, reply)
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id)
  })
  // here, before any plugin: a plugin's routes only get the hooks its parent had when registered
  if (options.requestMetrics) observeRequests(app, options.requestMetrics)
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply))
  app.setNotFoundHandler((request, reply) =>
    sendError(notFoundError(request.method, request.url), request, reply),
  )
  return app
}

const ROUTABLE_METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** answers every other method on `url` with 405 METHOD_NOT_ALLOWED and an Allow header */
export function answerOtherMethods(app: HttpApp, url: string, allowed: HTTPMethods[]): void {
  const allow = allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'] : allowed
  const others = ROUTABLE_METHODS.filter((method) => !allow.includes(method))
  app.route({
    method: others,
    url,
    handler: async (request, reply) => {
      reply.header('allow', allow.join(', '))
      throw new DomainError(
        'METHOD_NOT_ALLOWED',
        `method ${request.method} is not allowed on ${pathOf(request.url)}; allowed: ${allow.join(', ')}`,
      )
    },
  })
}
