// CoinGecko's "Coin Price by IDs" (docs/operations.md, "Exchange rates"; documented at
// https://docs.coingecko.com/reference/simple-price):
//   GET {base}/api/v3/simple/price?ids=solana&vs_currencies=usd&include_last_updated_at=true&precision=full
//   200 {"solana":{"usd":142.37,"last_updated_at":1732780800}}
// The price is a JSON number (read as its exact text), last_updated_at the UNIX time in seconds of
// the price, which the rate service holds to its age limit. A coin or currency CoinGecko does not
// price is absent from the answer ({} for an unknown id).

import type { Clock } from '@chainpay/platform'
import { createJsonGetter, isRecord, JsonNumberText } from './http-json.js'
import { type RatePair, type RateQuote, type RateSource, RateSourceFailure } from './rate-source.js'
import { rateValueOf } from './rate-value.js'

export const COINGECKO_URL = 'https://api.coingecko.com'

/** CoinGecko's API ids of the registry's currencies (its /coins/list) */
export const defaultCoinGeckoIds: Readonly<Record<string, string>> = {
  SOL: 'solana',
  TRX: 'tron',
  USDT: 'tether',
  USDC: 'usd-coin',
}

export interface CoinGeckoSourceOptions {
  /** default https://api.coingecko.com (RATE_COINGECKO_URL) */
  baseUrl?: string
  timeoutMs: number
  /** currency -> CoinGecko id; default defaultCoinGeckoIds */
  ids?: Readonly<Record<string, string>>
  /** a demo API key, sent as x-cg-demo-api-key (RATE_COINGECKO_API_KEY); none by default */
  apiKey?: string
  clock: Clock
}

export function createCoinGeckoSource(options: CoinGeckoSourceOptions): RateSource {
  const name = 'coingecko'
  const base = (options.baseUrl ?? COINGECKO_URL).replace(/\/+$/, '')
  const ids = options.ids ?? defaultCoinGeckoIds
  const http = createJsonGetter(name, options.timeoutMs)
  const headers = options.apiKey === undefined ? undefined : { 'x-cg-demo-api-key': options.apiKey }

  return {
    name,
    async quote(pair: RatePair): Promise<RateQuote> {
      const id = ids[pair.base]
      if (id === undefined)
        throw new RateSourceFailure(name, 'unsupported_pair', `no CoinGecko id for ${pair.base}`)
      const vs = pair.quote.toLowerCase()
      const query = new URLSearchParams({
        ids: id,
        vs_currencies: vs,
        include_last_updated_at: 'true',
        precision: 'full',
      })
      const body = await http.get(`${base}/api/v3/simple/price?${query}`, headers)
      if (!isRecord(body)) throw new RateSourceFailure(name, 'malformed', 'the answer is not an object')
      const entry = body[id]
      if (entry === undefined)
        throw new RateSourceFailure(name, 'unsupported_pair', `${id} is not in the answer`)
      if (!isRecord(entry)) throw new RateSourceFailure(name, 'malformed', `${id} is not an object`)
      if (entry[vs] === undefined) {
        throw new RateSourceFailure(name, 'unsupported_pair', `${id} has no price in ${vs}`)
      }
      const value = rateValueOf(name, entry[vs], `${id}.${vs}`)
      return { source: name, value, at: updatedAt(entry.last_updated_at, options.clock) }
    },
    close: () => http.close(),
  }

  function updatedAt(raw: unknown, clock: Clock): string {
    const text = raw instanceof JsonNumberText ? raw.text : undefined
    if (text === undefined || !/^[0-9]{1,12}$/.test(text)) {
      throw new RateSourceFailure(name, 'malformed', 'last_updated_at is not a UNIX time in seconds')
    }
    const ms = Number(text) * 1000
    // a price from the future is the source's clock, not news: it counts as of now
    return new Date(Math.min(ms, clock.now().getTime())).toISOString()
  }
}
