// The rate service's Prometheus metrics (docs/operations.md, "Metrics"): the age of the last rate
// per pair (measured when scraped, so a pair nobody priced for a while shows it), how many sources
// answered usably, and why sources failed and rates were refused.

import type { Clock } from '@chainpay/platform'
import { Counter, Gauge, type Registry } from 'prom-client'
import { pairName, type RatePair } from './rate-source.js'

export interface RateMetrics {
  answered(pair: RatePair, count: number): void
  sourceFailed(source: string, reason: string): void
  refused(pair: RatePair, reason: string): void
  locked(pair: RatePair, at: string): void
}

export function createRateMetrics(registry: Registry, clock: Clock): RateMetrics {
  const lastRateAt = new Map<string, number>()
  new Gauge({
    name: 'chainpay_rate_age_seconds',
    help: 'Age of the last rate locked for a pair (the time of its oldest answer), as of the scrape',
    labelNames: ['pair'] as const,
    registers: [registry],
    collect() {
      const now = clock.now().getTime()
      for (const [pair, at] of lastRateAt) this.set({ pair }, Math.max(0, (now - at) / 1000))
    },
  })
  const answering = new Gauge({
    name: 'chainpay_rate_sources_answering',
    help: 'Rate sources whose answer was usable (in time, the documented shape, within the age limit) when a pair was last priced',
    labelNames: ['pair'] as const,
    registers: [registry],
  })
  const failures = new Counter({
    name: 'chainpay_rate_source_failures_total',
    help: 'Answers of a rate source that were not used: timeout, unreachable, http_status, malformed, unsupported_pair, stale',
    labelNames: ['source', 'reason'] as const,
    registers: [registry],
  })
  const refusals = new Counter({
    name: 'chainpay_rate_refusals_total',
    help: 'Rates refused (503 RATE_UNAVAILABLE): NO_ANSWER, TOO_FEW, SPREAD',
    labelNames: ['pair', 'reason'] as const,
    registers: [registry],
  })
  return {
    answered: (pair, count) => answering.set({ pair: pairName(pair) }, count),
    sourceFailed: (source, reason) => failures.inc({ source, reason }),
    refused: (pair, reason) => refusals.inc({ pair: pairName(pair), reason }),
    locked: (pair, at) => lastRateAt.set(pairName(pair), Date.parse(at)),
  }
}
