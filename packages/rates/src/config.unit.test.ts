import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { readRateConfig } from './config.js'

const read = (env: Record<string, string>, simulatedChains = false) => {
  const reader = readEnv(env)
  const config = readRateConfig(reader, { simulatedChains })
  reader.done()
  return config
}

describe('readRateConfig', () => {
  it('defaults: CoinGecko, Kraken and Coinbase, USD and EUR, 60 s, 2 %, USDT and USDC pegged to 1 USD', () => {
    expect(read({})).toEqual({
      sources: ['coingecko', 'kraken', 'coinbase'],
      coingeckoUrl: 'https://api.coingecko.com',
      krakenUrl: 'https://api.kraken.com',
      coinbaseUrl: 'https://api.coinbase.com',
      coingeckoApiKey: undefined,
      timeoutMs: 3000,
      policy: {
        maxAgeSeconds: 60,
        maxSpreadPercent: '2',
        pegs: [
          { base: 'USDT', quote: 'USD', value: '1' },
          { base: 'USDC', quote: 'USD', value: '1' },
        ],
        minSources: 1,
        cacheSeconds: 10,
      },
      priceCurrencies: ['USD', 'EUR'],
    })
  })

  it('uses the simulated source with simulated chains, answered fresh every time', () => {
    expect(read({}, true)).toMatchObject({ sources: ['simulated'], policy: { cacheSeconds: 0 } })
  })

  it('reads every variable', () => {
    expect(
      read({
        RATE_SOURCES: 'kraken',
        PRICE_CURRENCIES: 'USD,GBP,JPY',
        RATE_MAX_AGE_SECONDS: '30',
        RATE_MAX_SPREAD_PERCENT: '0.5',
        RATE_PEGS: 'none',
        RATE_MIN_SOURCES: '2',
        RATE_CACHE_SECONDS: '0',
        RATE_TIMEOUT_MS: '1500',
        RATE_KRAKEN_URL: 'http://127.0.0.1:9999',
      }),
    ).toMatchObject({
      sources: ['kraken'],
      krakenUrl: 'http://127.0.0.1:9999',
      timeoutMs: 1500,
      priceCurrencies: ['USD', 'GBP', 'JPY'],
      policy: { maxAgeSeconds: 30, maxSpreadPercent: '0.5', pegs: [], minSources: 2, cacheSeconds: 0 },
    })
  })

  it('reports every problem at once, naming the variable', () => {
    expect(() =>
      read({
        RATE_SOURCES: 'coingecko,binance',
        PRICE_CURRENCIES: 'USD,XYZ,eur',
        RATE_MAX_SPREAD_PERCENT: '2%',
        RATE_PEGS: 'USDT=1',
        RATE_COINGECKO_URL: 'ftp://mirror',
      }),
    ).toThrow(
      [
        "RATE_SOURCES: unknown source 'binance' (expected some of coingecko, kraken, coinbase, simulated)",
        "RATE_MAX_SPREAD_PERCENT: expected a decimal such as 2 or 0.5, got '2%'",
        "RATE_PEGS: expected items such as USDT:USD=1, got 'USDT=1'",
        "PRICE_CURRENCIES: 'XYZ' is not an ISO 4217 currency code",
        "PRICE_CURRENCIES: 'eur' is not an ISO 4217 currency code",
        "RATE_COINGECKO_URL: expected an http(s) URL, got 'ftp://mirror'",
      ].join('\n  - '),
    )
  })
})
