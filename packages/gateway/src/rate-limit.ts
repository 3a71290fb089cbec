// Rate limiting of the merchant API (docs/api.md, "Errors"): 429 RATE_LIMITED with Retry-After in
// seconds. Per client address before authentication, so that unsigned or badly signed requests cannot
// be sent without bound (docs/operations.md, "HTTP limits"); per API key after it.

import { DomainError } from '@chainpay/domain'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'

export interface RateLimitSettings {
  /** requests per API key per window */
  max: number
  windowMs: number
  /** requests per client address per window, authenticated or not */
  perAddressMax: number
}

/**
 * Limits the routes registered after it in `scope`, per client address (IPv6 addresses per /64, as
 * one host usually holds the whole prefix). It runs as an onRequest hook: before authentication, and
 * before the body is read.
 */
export async function limitRequestsPerAddress(
  scope: FastifyInstance,
  settings: RateLimitSettings,
): Promise<void> {
  await scope.register(rateLimit, {
    hook: 'onRequest',
    max: settings.perAddressMax,
    timeWindow: settings.windowMs,
    // the X-RateLimit-* headers of a merchant's answers stay those of its API key
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    errorResponseBuilder: (_request, context) =>
      new DomainError(
        'RATE_LIMITED',
        `too many requests from this address (at most ${context.max} per ${settings.windowMs / 1000} s); retry in ${retryInSeconds(context.ttl)} s`,
      ),
  })
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
        `too many requests for this API key (at most ${context.max} per ${settings.windowMs / 1000} s); retry in ${retryInSeconds(context.ttl)} s`,
      ),
  })
}

function retryInSeconds(ttlMs: number): number {
  return Math.max(1, Math.ceil(ttlMs / 1000))
}
