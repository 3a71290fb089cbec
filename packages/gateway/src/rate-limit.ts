// Per-API-key rate limiting (docs/api.md, "Errors"): 429 RATE_LIMITED with Retry-After in seconds.

import { DomainError } from '@chainpay/domain'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'

export interface RateLimitSettings {
  /** requests per key per window */
  max: number
  windowMs: number
}

/**
 * Limits the routes registered after it in `scope`. It runs as a preHandler, after authentication,
 * so it counts per authenticated API key; a request without one (there should be none here) is
 * counted per client address.
 */
export async function limitRequestsPerApiKey(
  scope: FastifyInstance,
  settings: RateLimitSettings,
): Promise<void> {
  await scope.register(rateLimit, {
    hook: 'preHandler',
    max: settings.max,
    timeWindow: settings.windowMs,
    keyGenerator: (request) => (request.caller ? `key:${request.caller.apiKey}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new DomainError(
        'RATE_LIMITED',
        `too many requests for this API key (at most ${context.max} per ${settings.windowMs / 1000} s); retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s`,
      ),
  })
}
