// Rate limiting of the merchant API (docs/api.md, "Errors"): 429 RATE_LIMITED with Retry-After in
// seconds. Per client address before authentication, so that unsigned or badly signed requests cannot
// be sent without bound (docs/operations.md, "HTTP limits"); per API key after it. An answer past a
// limit is counted in chainpay_http_rate_limited_total and logged sampled, never one line each.

import { DomainError } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import {
  createSampledLog,
  type HttpRefusalMetrics,
  logSampledInstead,
  type RateLimitReason,
} from '@chainpay/service-kit'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'

export interface RateLimitSettings {
  /** requests per API key per window */
  max: number
  windowMs: number
  /** requests per client address per window, authenticated or not */
  perAddressMax: number
  /**
   * TRUSTED_PROXIES: the reverse proxies (addresses or CIDR ranges) whose X-Forwarded-For names the
   * client address of a request they pass on, for the per-address limits, the dashboard's sign-in
   * lockout and the request log; absent or empty: the connection's address (docs/operations.md,
   * "HTTP limits")
   */
  trustedProxies?: string[]
}

/** the routes a limit guards, as the metric's `group` label says */
export type RateLimitedGroup = 'merchant_api' | 'checkout' | 'refund_claim' | 'dashboard'

/** the answers past a limit: counted, and logged sampled instead of one request line each */
export interface RateLimitedAnswers {
  /** `client` is what the limit counts: the address (an IPv6 /64), or key:<API key> */
  record(request: FastifyRequest, group: RateLimitedGroup, reason: RateLimitReason, client: string): void
}

/** one line per client, route group and reason per minute */
const RATE_LIMITED_LOG_WINDOW_MS = 60_000

export function createRateLimitedAnswers(options: {
  logger: Logger
  clock: Clock
  metrics?: HttpRefusalMetrics | undefined
}): RateLimitedAnswers {
  const log = createSampledLog({
    logger: options.logger.child({ component: 'gateway' }),
    windowMs: RATE_LIMITED_LOG_WINDOW_MS,
    now: () => options.clock.now().getTime(),
  })
  return {
    record(request, group, reason, client) {
      options.metrics?.requestLimited(group, reason)
      logSampledInstead(request)
      log.note(
        `${group}:${reason}:${client}`,
        // the route's pattern, not the URL: a checkout URL holds the customer's token
        { group, reason, client, method: request.method, route: request.routeOptions.url, statusCode: 429 },
        'requests past the rate limit: the first of this client per minute is logged, every one counted in chainpay_http_rate_limited_total',
      )
    },
  }
}

/** where a limiter counts its answers past the limit */
export interface RateLimitedScope {
  group: RateLimitedGroup
  answers: RateLimitedAnswers
}

/**
 * Limits the routes registered after it in `scope`, per client address (IPv6 addresses per /64, as
 * one host usually holds the whole prefix). It runs as an onRequest hook: before authentication, and
 * before the body is read.
 */
export async function limitRequestsPerAddress(
  scope: FastifyInstance,
  settings: RateLimitSettings,
  limited: RateLimitedScope,
): Promise<void> {
  await scope.register(rateLimit, {
    hook: 'onRequest',
    onExceeded: (request, key) => limited.answers.record(request, limited.group, 'per_address', key),
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
  limited: RateLimitedScope,
): Promise<void> {
  await scope.register(rateLimit, {
    hook: 'preHandler',
    onExceeded: (request, key) => limited.answers.record(request, limited.group, 'per_api_key', key),
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
