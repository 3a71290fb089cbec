// Kraken's public "Get Ticker Information" (docs/operations.md, "Exchange rates"; documented at
// https://docs.kraken.com/api-reference/market-data/get-ticker-information):
//   GET {base}/0/public/Ticker?pair=SOLUSD
//   200 {"error":[],"result":{"SOLUSD":{"a":[..],"b":[..],"c":["142.37000","0.5"],"v":[..],...,"o":"140.1"}}}
// `c` is the last trade closed, [price, lot volume], prices as decimal strings. A refused query
// answers 200 with `error` naming it ("EQuery:Unknown asset pair") and no result. The result is keyed
// by Kraken's own name of the pair, which may differ from the one asked for (USDTUSD answers as
// USDTZUSD): an answer with one pair is that pair. The ticker carries no time, so its price is as of
// the answer.

import type { Clock } from '@chainpay/platform'
import { createJsonGetter, isRecord } from './http-json.js'
import { type RatePair, type RateQuote, type RateSource, RateSourceFailure } from './rate-source.js'
import { rateValueOf } from './rate-value.js'

export const KRAKEN_URL = 'https://api.kraken.com'

export interface KrakenSourceOptions {
  /** default https://api.kraken.com (RATE_KRAKEN_URL) */
  baseUrl?: string
  timeoutMs: number
  /** `${base}/${quote}` -> Kraken's pair name; default the two codes joined (SOLUSD, USDTEUR) */
  pairs?: Readonly<Record<string, string>>
  clock: Clock
}

export function createKrakenSource(options: KrakenSourceOptions): RateSource {
  const name = 'kraken'
  const base = (options.baseUrl ?? KRAKEN_URL).replace(/\/+$/, '')
  const http = createJsonGetter(name, options.timeoutMs)

  return {
    name,
    async quote(pair: RatePair): Promise<RateQuote> {
      const krakenPair = options.pairs?.[`${pair.base}/${pair.quote}`] ?? `${pair.base}${pair.quote}`
      const body = await http.get(`${base}/0/public/Ticker?${new URLSearchParams({ pair: krakenPair })}`)
      if (!isRecord(body) || !Array.isArray(body.error)) {
        throw new RateSourceFailure(name, 'malformed', 'the answer has no error array')
      }
      if (body.error.length > 0) {
        const messages = body.error.map(String).join('; ')
        const unknown = messages.includes('Unknown asset pair')
        throw new RateSourceFailure(
          name,
          unknown ? 'unsupported_pair' : 'unreachable',
          `refused ${krakenPair}: ${messages}`,
        )
      }
      if (!isRecord(body.result)) throw new RateSourceFailure(name, 'malformed', 'the answer has no result')
      const keys = Object.keys(body.result)
      const key = keys.includes(krakenPair) ? krakenPair : keys.length === 1 ? keys[0] : undefined
      const ticker = key === undefined ? undefined : body.result[key]
      if (!isRecord(ticker) || !Array.isArray(ticker.c) || ticker.c.length < 1) {
        throw new RateSourceFailure(
          name,
          'malformed',
          `result has no ticker with a last trade (c) for ${krakenPair}`,
        )
      }
      const value = rateValueOf(name, ticker.c[0], `${krakenPair}.c[0]`)
      return { source: name, value, at: options.clock.now().toISOString() }
    },
    close: () => http.close(),
  }
}
