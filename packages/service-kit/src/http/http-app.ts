// The one HTTP foundation of every service's servers (the merchant API, the admin API, the command
// API, the health ports): request ids, one log line per request, strict schema validation, request
// metrics, and the error body of docs/api.md ("Errors") for every error, 404 and 405 included. 404
// and 405 come from the routes the app registered: a path some route serves answers 405 with Allow
// for any other method, before any hook of that route (authentication) runs.

import { DomainError } from '@chainpay/domain'
import { isSecretFieldName, type Logger, REDACTION_CENSOR } from '@chainpay/platform'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify'
import type { HttpRequestMetrics } from '../metrics.js'
import { observeHttpRequests } from '../metrics.js'
import { notFoundError, pathOf, sendError } from './errors.js'
import { REQUEST_ID_HEADER, requestIdFor } from './request-id.js'
import { RequestLogController } from './request-log.js'
import { createRouteIndex } from './route-index.js'

export type HttpApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>

export interface HttpAppOptions {
  logger: Logger
  /** names the server in its log lines: gateway, admin, command-api, health */
  component: string
  /** observes every request but the scrapes of /metrics */
  requestMetrics?: HttpRequestMetrics
  /** largest request body in bytes; fastify's 1 MiB when absent */
  bodyLimit?: number
  /**
   * the proxies (addresses or CIDR ranges) whose X-Forwarded-For gives request.ip; none when absent:
   * request.ip is the connection's address
   */
  trustedProxies?: string[]
  /**
   * how long a request may take, from routing to the last byte of its answer, before it is answered
   * 503 SERVICE_UNAVAILABLE (Retry-After) and logged with its route; default
   * DEFAULT_HANDLER_TIMEOUT_MS. A route that streams an answer of any size (the dashboard's CSV
   * export) sets its own, longer one.
   */
  handlerTimeoutMs?: number
}

/**
 * Every request is answered within a minute, whatever it waits for: the MongoDB driver bounds its
 * waits (server selection 5 s, a silent socket 30 s, a pooled connection 30 s: store-mongo's
 * database.ts) and the command API client its calls, so this deadline is the net under what nothing
 * else bounds. Without it a request the process could no longer finish held its caller for good (seen
 * in faults-servers.e2e after MongoDB came back: a GET that never answered).
 */
export const DEFAULT_HANDLER_TIMEOUT_MS = 60_000

/**
 * The router's limit on one path parameter (fastify's default is 100 characters, and a longer one
 * failed in the router with a 500). Above any path Node accepts with its default 16 KiB of headers,
 * so that a long parameter reaches its route, whose own rules answer it like any other malformed or
 * unknown id (docs/api.md, "Errors"). No route takes a regular-expression parameter, which is what
 * the router's limit protects.
 */
export const MAX_PATH_PARAMETER_LENGTH = 16 * 1024

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const routes = createRouteIndex()
  const app = Fastify({
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // typed as fastify's logger interface, so that the app is a plain FastifyInstance
    loggerInstance: options.logger.child({ component: options.component }) as FastifyBaseLogger,
    // a path parameter named like a secret (the customer's checkout token, /pay/:token) is logged as
    // the logger censors secret fields: never in full
    logController: new RequestLogController((path) =>
      routes.censor(path, isSecretFieldName, REDACTION_CENSOR),
    ),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.trustedProxies === undefined || options.trustedProxies.length === 0
      ? {}
      : { trustProxy: options.trustedProxies }),
    handlerTimeout: options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
    genReqId: requestIdFor,
    requestIdHeader: false,
    ajv: {
      customOptions: {
        // a body is validated exactly as sent: nothing removed, coerced or filled in, so that what
        // a handler sees (and an idempotent create fingerprints) is what the caller sent
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

  app.addHook('onRoute', (route) => routes.add(route.url, route.method))
  /** requests no route matched but whose path some route serves: the pattern, for the metrics */
  const servedPaths = new WeakMap<object, string>()

  // here, before any plugin: a plugin's routes only get the hooks its parent had when registered
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    if (!request.is404) return
    // No route matched: answered here, before the body is read, with 405 where the path is served.
    const served = routes.match(pathOf(request.url))
    if (served === null) throw notFoundError(request.method, request.url)
    servedPaths.set(request, served.pattern)
    const allowed = served.methods.join(', ')
    reply.header('allow', allowed)
    throw new DomainError(
      'METHOD_NOT_ALLOWED',
      `method ${request.method} is not allowed on ${pathOf(request.url)}; allowed: ${allowed}`,
    )
  })
  if (options.requestMetrics) {
    observeHttpRequests(app, options.requestMetrics, (request) => servedPaths.get(request))
  }
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply))
  app.setNotFoundHandler((request, reply) => {
    // reached only when onRequest did not answer (never, but fastify wants a handler)
    sendError(notFoundError(request.method, request.url), request, reply)
  })
  return app
}
