// The authenticated merchant of a merchant API request, for the webhook routes.

import type { FastifyRequest } from 'fastify'

/** the caller's merchant id; authentication ran as the route's preValidation hook, so there is one */
export function merchantIdOf(request: FastifyRequest): string {
  if (request.caller === null) throw new Error(`${request.url} reached without an authenticated caller`)
  return request.caller.merchant.merchantId
}
