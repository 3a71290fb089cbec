// Forwards /dev/chains/* to the chain-indexer's simulator, so that a merchant's development flow
// (pay an address, mine blocks) uses the same host and port as the merchant API, as in standalone.

import { DomainError } from '@chainpay/domain'
import type { FastifyPluginAsync } from 'fastify'

/** the simulator answers at once; anything slower means it is gone */
const FORWARD_TIMEOUT_MS = 10_000

export function chainSimulatorProxy(simulatorUrl: string): FastifyPluginAsync {
  return async (app) => {
    // the body goes on byte for byte, whatever its type; the simulator validates it
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    app.all('/dev/chains/*', async (request, reply) => {
      const target = `${simulatorUrl}${request.url}`
      const contentType = request.headers['content-type']
      let response: Response
      try {
        response = await fetch(target, {
          method: request.method,
          headers: contentType ? { 'content-type': contentType } : {},
          ...(request.body instanceof Buffer && request.body.length > 0 ? { body: request.body } : {}),
          redirect: 'manual',
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        })
      } catch (error) {
        request.log.warn({ err: error, target }, 'the chain simulator did not answer')
        throw new DomainError('SERVICE_UNAVAILABLE', 'the chain simulator is unavailable')
      }
      const answerType = response.headers.get('content-type')
      if (answerType) reply.type(answerType)
      return reply.code(response.status).send(Buffer.from(await response.arrayBuffer()))
    })
  }
}
