// Forwards the simulated rate source's dev routes (docs/api.md, "Development endpoints") to
// payment-command, which prices payments in fiat and so keeps the source, where chains are simulated:
// a developer moves rates on the merchant API's host and port, as in standalone. Callers are held to
// the chain simulator's rule (loopback, or SIMULATOR_TOKEN); the forwarded request carries
// COMMAND_API_TOKEN, which payment-command requires of every caller. Only these two routes, whose
// path is fixed: nothing a caller sends can lead anywhere else on the command API.

import { DomainError } from '@chainpay/domain'
import { simulatorAccess } from '@chainpay/service-kit'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'

export interface RateSimulatorProxyOptions {
  /** payment-command's command API (PAYMENT_COMMAND_URL) */
  paymentCommandUrl: string
  commandApiToken: string | undefined
  /** SIMULATOR_TOKEN: required from callers; undefined: loopback callers only */
  simulatorToken: string | undefined
}

const PATH = '/dev/rates'
const FORWARD_TIMEOUT_MS = 10_000

export function rateSimulatorProxy(options: RateSimulatorProxyOptions): FastifyPluginAsync {
  const target = `${options.paymentCommandUrl.replace(/\/+$/, '')}${PATH}`
  return async (app) => {
    app.addHook('onRequest', simulatorAccess(options.simulatorToken))
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
    app.get(PATH, (request, reply) => forward(request, reply))
    app.post(PATH, (request, reply) => forward(request, reply))
  }

  async function forward(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const contentType = request.headers['content-type']
    let response: Response
    try {
      response = await fetch(target, {
        method: request.method,
        headers: {
          ...(contentType ? { 'content-type': contentType } : {}),
          ...(options.commandApiToken === undefined
            ? {}
            : { authorization: `Bearer ${options.commandApiToken}` }),
        },
        ...(request.body instanceof Buffer && request.body.length > 0 ? { body: request.body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      })
    } catch (error) {
      request.log.warn({ err: error, target }, 'payment-command did not answer the rate simulator route')
      throw new DomainError('SERVICE_UNAVAILABLE', 'payment-command is unavailable')
    }
    const answerType = response.headers.get('content-type')
    if (answerType) reply.type(answerType)
    return reply.code(response.status).send(Buffer.from(await response.arrayBuffer()))
  }
}
