// The rate source of simulated chains (docs/api.md, "Development endpoints"): rates kept in memory,
// moved by tests and developers through the dev routes (POST /dev/rates), answered at once and
// always fresh unless a time was set with them. A pair may be told to fail, to try what a merchant
// sees when no rate can be had.

import { canonicalDecimal, isRateValue } from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import {
  type RatePair,
  type RateQuote,
  type RateSource,
  RateSourceFailure,
  type RateSourceFailureKind,
} from './rate-source.js'

export interface SimulatedRate {
  base: string
  quote: string
  value: string
  /** the time the rate is from; absent: the time it is asked for (always fresh) */
  at?: string
  /** answer with this failure instead of the rate */
  failure?: RateSourceFailureKind
}

export interface SimulatedRateSource extends RateSource {
  /** sets (or replaces) a pair's rate, fresh unless `at` says otherwise; RangeError for a value that is no rate */
  set(rate: SimulatedRate): void
  list(): SimulatedRate[]
}

/** round figures near the market of late 2026, so that a development payment looks plausible */
export const defaultSimulatedRates: readonly SimulatedRate[] = [
  { base: 'SOL', quote: 'USD', value: '150' },
  { base: 'SOL', quote: 'EUR', value: '140' },
  { base: 'TRX', quote: 'USD', value: '0.25' },
  { base: 'TRX', quote: 'EUR', value: '0.23' },
  { base: 'USDT', quote: 'USD', value: '1' },
  { base: 'USDT', quote: 'EUR', value: '0.93' },
  { base: 'USDC', quote: 'USD', value: '1' },
  { base: 'USDC', quote: 'EUR', value: '0.93' },
]

export function createSimulatedRateSource(options: {
  clock: Clock
  name?: string
  rates?: readonly SimulatedRate[]
}): SimulatedRateSource {
  const name = options.name ?? 'simulated'
  const rates = new Map<string, SimulatedRate>()
  const key = (pair: RatePair) => `${pair.base}/${pair.quote}`
  for (const rate of options.rates ?? defaultSimulatedRates) rates.set(key(rate), { ...rate })
  return {
    name,
    async quote(pair) {
      const rate = rates.get(key(pair))
      if (rate === undefined)
        throw new RateSourceFailure(name, 'unsupported_pair', `no simulated rate for ${key(pair)}`)
      if (rate.failure !== undefined)
        throw new RateSourceFailure(name, rate.failure, `simulated ${rate.failure}`)
      const quote: RateQuote = {
        source: name,
        value: rate.value,
        at: rate.at ?? options.clock.now().toISOString(),
      }
      return quote
    },
    set(rate) {
      if (!isRateValue(rate.value))
        throw new RangeError(
          `value: expected a positive decimal such as "142.5", got ${JSON.stringify(rate.value)}`,
        )
      if (rate.at !== undefined && Number.isNaN(Date.parse(rate.at)))
        throw new RangeError('at: expected an ISO 8601 time')
      rates.set(key(rate), { ...rate, value: canonicalDecimal(rate.value) })
    },
    list: () => [...rates.values()].map((rate) => ({ ...rate })),
    close: async () => {},
  }
}
