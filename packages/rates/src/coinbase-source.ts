// Coinbase's public "Get Exchange Rates" (docs/operations.md, "Exchange rates"; documented at
// https://docs.cdp.coinbase.com/coinbase-app/track-apis/exchange-rates):
//   GET {base}/v2/exchange-rates?currency=SOL
//   200 {"data":{"currency":"SOL","rates":{"USD":"142.37","EUR":"134.9",...}}}
// The rates are decimal strings, each the price of one unit of `currency` in the keyed currency. The
// answer carries no time, so its prices are as of the answer; a currency Coinbase does not price is
// absent from `rates` (an unknown base answers an error status).

import type { Clock } from '@chainpay/platform'
import { createJsonGetter, isRecord } from './http-json.js'
import { type RatePair, type RateQuote, type RateSource, RateSourceFailure } from './rate-source.js'
import { rateValueOf } from './rate-value.js'

export const COINBASE_URL = 'https://api.coinbase.com'

export interface CoinbaseSourceOptions {
  /** default https://api.coinbase.com (RATE_COINBASE_URL) */
  baseUrl?: string
  timeoutMs: number
  clock: Clock
}

export function createCoinbaseSource(options: CoinbaseSourceOptions): RateSource {
  const name = 'coinbase'
  const base = (options.baseUrl ?? COINBASE_URL).replace(/\/+$/, '')
  const http = createJsonGetter(name, options.timeoutMs)

  return {
    name,
    async quote(pair: RatePair): Promise<RateQuote> {
      const body = await http.get(`${base}/v2/exchange-rates?${new URLSearchParams({ currency: pair.base })}`)
      if (!isRecord(body) || !isRecord(body.data) || !isRecord(body.data.rates)) {
        throw new RateSourceFailure(name, 'malformed', 'the answer has no data.rates object')
      }
      if (body.data.currency !== pair.base) {
        throw new RateSourceFailure(
          name,
          'malformed',
          `the answer is for ${String(body.data.currency)}, not ${pair.base}`,
        )
      }
      const raw = body.data.rates[pair.quote]
      if (raw === undefined)
        throw new RateSourceFailure(name, 'unsupported_pair', `no rate of ${pair.base} in ${pair.quote}`)
      const value = rateValueOf(name, raw, `data.rates.${pair.quote}`)
      return { source: name, value, at: options.clock.now().toISOString() }
    },
    close: () => http.close(),
  }
}
