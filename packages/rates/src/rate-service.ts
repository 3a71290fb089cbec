// The rate service (docs/operations.md, "Exchange rates"): asks every configured source at once,
// counts out those that fail or whose answer is older than the age limit, and makes one rate of the
// rest (combineRateQuotes: the median, refused beyond the spread, a peg while the market agrees).
// payment-command locks a fiat-priced payment's rate through it, in both shapes (docs/architecture.md,
// "Prices in fiat"); the decider only ever sees the rate it locked.
//
// Answers are kept for a few seconds (RATE_CACHE_SECONDS) so that a burst of payments asks the
// public APIs once, and one question per source and pair is in flight at a time. A failure is kept
// as long: while a source is down or hangs, creates do not each wait for its timeout.

import { combineRateQuotes, type LockedRate, type RatePeg, type RateQuote } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import type { Registry } from 'prom-client'
import { createRateMetrics, type RateMetrics } from './rate-metrics.js'
import { pairName, type RatePair, type RateSource, RateSourceFailure } from './rate-source.js'

export interface RateServicePolicy {
  /** RATE_MAX_AGE_SECONDS: an answer older than this counts as none; default 60 */
  maxAgeSeconds: number
  /** RATE_MAX_SPREAD_PERCENT: (highest - lowest) / median beyond this is refused; default "2" */
  maxSpreadPercent: string
  /** RATE_PEGS: default USDT and USDC = 1 USD */
  pegs: readonly RatePeg[]
  /** RATE_MIN_SOURCES: fewer fresh answers than this is no rate; default 1 */
  minSources: number
  /** RATE_CACHE_SECONDS: how long a source's answer is reused; 0: asked every time */
  cacheSeconds: number
}

export const defaultRatePolicy: RateServicePolicy = {
  maxAgeSeconds: 60,
  maxSpreadPercent: '2',
  pegs: [
    { base: 'USDT', quote: 'USD', value: '1' },
    { base: 'USDC', quote: 'USD', value: '1' },
  ],
  minSources: 1,
  cacheSeconds: 10,
}

/** No usable rate now: every source failed or was stale, too few answered, or they disagree. */
export class RateUnavailableError extends Error {
  override readonly name = 'RateUnavailableError'
  constructor(
    readonly pair: RatePair,
    readonly reason: 'NO_ANSWER' | 'SPREAD' | 'TOO_FEW',
    message: string,
  ) {
    super(message)
  }
}

export interface RateService {
  /** the rate to lock for the pair now; throws RateUnavailableError */
  lockRate(pair: RatePair): Promise<LockedRate>
  readonly sourceNames: readonly string[]
  close(): Promise<void>
}

export interface RateServiceOptions {
  sources: readonly RateSource[]
  policy: RateServicePolicy
  clock: Clock
  logger: Logger
  /** where the rate metrics are registered; none when absent */
  registry?: Registry
}

export function createRateService(options: RateServiceOptions): RateService {
  const { sources, policy, clock, logger } = options
  if (sources.length === 0) throw new Error('rate service: no rate source configured')
  const metrics: RateMetrics | undefined =
    options.registry === undefined ? undefined : createRateMetrics(options.registry, clock)
  const kept = new Map<string, { answer: Promise<RateQuote>; keptAt: number }>()
  const asking = new Map<string, Promise<RateQuote>>()

  /** one source's answer for the pair, reused while it is kept, shared while it is asked */
  function ask(source: RateSource, pair: RatePair): Promise<RateQuote> {
    const key = `${source.name} ${pairName(pair)}`
    const now = clock.now().getTime()
    const known = kept.get(key)
    if (known !== undefined && now - known.keptAt < policy.cacheSeconds * 1000) return known.answer
    const pending = asking.get(key)
    if (pending !== undefined) return pending
    const question: Promise<RateQuote> = source.quote(pair).finally(() => {
      asking.delete(key)
      if (policy.cacheSeconds > 0) kept.set(key, { answer: question, keptAt: clock.now().getTime() })
    })
    // a kept failure is read again by later creates: never an unhandled rejection meanwhile
    question.catch(() => {})
    asking.set(key, question)
    return question
  }

  return {
    sourceNames: sources.map((source) => source.name),

    async lockRate(pair) {
      const answers = await Promise.allSettled(sources.map((source) => ask(source, pair)))
      const now = clock.now().getTime()
      const fresh: RateQuote[] = []
      answers.forEach((answer, index) => {
        const source = sources[index] as RateSource
        if (answer.status === 'rejected') {
          const failure = answer.reason
          const kind = failure instanceof RateSourceFailure ? failure.kind : 'unreachable'
          metrics?.sourceFailed(source.name, kind)
          logger.warn({ source: source.name, pair: pairName(pair), kind, err: failure }, 'rate source failed')
          return
        }
        const ageMs = now - Date.parse(answer.value.at)
        if (!(ageMs <= policy.maxAgeSeconds * 1000)) {
          metrics?.sourceFailed(source.name, 'stale')
          logger.warn(
            {
              source: source.name,
              pair: pairName(pair),
              at: answer.value.at,
              maxAgeSeconds: policy.maxAgeSeconds,
            },
            'rate source answered a price older than the age limit',
          )
          return
        }
        fresh.push(answer.value)
      })
      metrics?.answered(pair, fresh.length)
      if (fresh.length > 0 && fresh.length < policy.minSources) {
        metrics?.refused(pair, 'TOO_FEW')
        throw new RateUnavailableError(
          pair,
          'TOO_FEW',
          `only ${fresh.length} of the rate sources answered for ${pairName(pair)} (at least ${policy.minSources} needed)`,
        )
      }
      const combined = combineRateQuotes(pair, fresh, policy)
      if (!combined.ok) {
        metrics?.refused(pair, combined.reason)
        logger.warn({ pair: pairName(pair), reason: combined.reason }, combined.detail)
        throw new RateUnavailableError(pair, combined.reason, combined.detail)
      }
      metrics?.locked(pair, combined.rate.at)
      return combined.rate
    },

    async close() {
      await Promise.allSettled(sources.map((source) => source.close()))
    },
  }
}
