// Forwards the chain simulator's routes (docs/api.md, "Development endpoints") to the chain-indexer's
// simulator, so that a merchant's development flow (pay an address, mine blocks) uses the same host
// and port as the merchant API, as in standalone.
//
// Only those routes reach the chain-indexer's port, which serves more (/metrics): each is registered
// here by name, and the forwarded path is built from its parameters, which must be plain names, never
// from the request target, so that no dot segment or slash, encoded or not
// (`/dev/chains/%2e%2e/%2e%2e/metrics`), can lead anywhere else. Callers are held to the simulator's
// own rule (docs/operations.md, "The chain simulator's routes"), and the forwarded request carries
// the token this gateway is configured with.

import { DomainError } from '@chainpay/domain'
import { notFoundError, SIMULATOR_TOKEN_HEADER, simulatorAccess } from '@chainpay/service-kit'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

export interface ChainSimulatorProxyOptions {
  /** the chain-indexer's port, e.g. http://chain-indexer:8092 (CHAIN_SIMULATOR_URL) */
  url: string
  /** SIMULATOR_TOKEN: required from callers, and sent on; undefined: loopback callers only */
  token: string | undefined
}

/** the simulator's dev routes (packages/chain-sim/src/routes.ts), and nothing else */
export const FORWARDED_SIMULATOR_ROUTES = [
  { method: 'POST', url: '/dev/chains/:network/transfers' },
  { method: 'POST', url: '/dev/chains/:network/transactions' },
  { method: 'POST', url: '/dev/chains/:network/blocks' },
  { method: 'POST', url: '/dev/chains/:network/transactions/:txHash/drop' },
  { method: 'GET', url: '/dev/chains/:network/head' },
] as const

/** what a network name or a transaction hash is made of: nothing that can move a path */
const PLAIN_SEGMENT = /^[A-Za-z0-9_-]{1,128}$/

/** the simulator answers at once; anything slower means it is gone */
const FORWARD_TIMEOUT_MS = 10_000

export function chainSimulatorProxy(options: ChainSimulatorProxyOptions): FastifyPluginAsync {
  const { url: simulatorUrl, token } = options
  return async (app) => {
    app.addHook('onRequest', simulatorAccess(token))
    // the body goes on byte for byte, whatever its type; the simulator validates it
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

    for (const route of FORWARDED_SIMULATOR_ROUTES) {
      app.route({
        method: route.method,
        url: route.url,
        handler: (request, reply) => forward(request, reply, forwardedPath(route.url, request)),
      })
    }
  }

  /** the route's path with its parameters filled in, or 404 when one is not a plain name */
  function forwardedPath(pattern: string, request: FastifyRequest): string {
    const params = request.params as Record<string, string>
    return pattern.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
      const value = params[name] ?? ''
      if (!PLAIN_SEGMENT.test(value)) throw notFoundError(request.method, request.url)
      return value
    })
  }

  async function forward(request: FastifyRequest, reply: FastifyReply, path: string): Promise<FastifyReply> {
    const target = `${simulatorUrl}${path}`
    const contentType = request.headers['content-type']
    let response: Response
    try {
      response = await fetch(target, {
        method: request.method,
        headers: {
          ...(contentType ? { 'content-type': contentType } : {}),
          ...(token === undefined ? {} : { [SIMULATOR_TOKEN_HEADER]: token }),
        },
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
  }
}
