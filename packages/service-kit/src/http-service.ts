// A fastify app as a lifecycle Service: built and listening on start, closed on stop, with the limits
// every listening port has before any authentication runs (./http/server-limits.ts).

import type { Logger, Service } from '@chainpay/platform'
import type { FastifyInstance } from 'fastify'
import {
  applyHttpServerLimits,
  DEFAULT_HTTP_SERVER_LIMITS,
  type HttpServerLimits,
} from './http/server-limits.js'

export interface HttpServiceOptions {
  name: string
  host: string
  port: number
  logger: Logger
  build: () => FastifyInstance | Promise<FastifyInstance>
  /** the configuration's (SharedConfig.httpLimits); DEFAULT_HTTP_SERVER_LIMITS when absent */
  limits?: HttpServerLimits | undefined
}

export function httpService(options: HttpServiceOptions): Service {
  let app: FastifyInstance | undefined
  return {
    name: options.name,
    async start() {
      const built = await options.build()
      applyHttpServerLimits(built.server, options.limits ?? DEFAULT_HTTP_SERVER_LIMITS)
      try {
        const url = await built.listen({ host: options.host, port: options.port })
        options.logger.info({ url }, `${options.name} listening`)
      } catch (error) {
        await built.close()
        throw error
      }
      app = built
    },
    async stop() {
      await app?.close()
      app = undefined
    },
  }
}
