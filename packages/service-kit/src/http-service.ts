// A fastify app as a lifecycle Service: built and listening on start, closed on stop.

import type { Logger, Service } from '@chainpay/platform'
import type { FastifyInstance } from 'fastify'

export interface HttpServiceOptions {
  name: string
  host: string
  port: number
  logger: Logger
  build: () => FastifyInstance | Promise<FastifyInstance>
}

export function httpService(options: HttpServiceOptions): Service {
  let app: FastifyInstance | undefined
  return {
    name: options.name,
    async start() {
      const built = await options.build()
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
