// The rate service's configuration (docs/operations.md, "Exchange rates"), read by payment-command
// and standalone alike: which sources, their addresses and timeouts, the age limit, the spread, the
// pegs and the fiat currencies a price may be in.

import { defaultPriceCurrencies, type RatePeg } from '@chainpay/domain'
import type { Clock, EnvReader } from '@chainpay/platform'
import { COINBASE_URL, createCoinbaseSource } from './coinbase-source.js'
import { COINGECKO_URL, createCoinGeckoSource } from './coingecko-source.js'
import { createKrakenSource, KRAKEN_URL } from './kraken-source.js'
import { defaultRatePolicy, type RateServicePolicy } from './rate-service.js'
import type { RateSource } from './rate-source.js'
import { createSimulatedRateSource, type SimulatedRateSource } from './simulated-source.js'

export const rateSourceKinds = ['coingecko', 'kraken', 'coinbase', 'simulated'] as const
export type RateSourceKind = (typeof rateSourceKinds)[number]

export interface RateConfig {
  /** RATE_SOURCES: default coingecko,kraken,coinbase; simulated with simulated chains */
  sources: RateSourceKind[]
  /** RATE_COINGECKO_URL, RATE_KRAKEN_URL, RATE_COINBASE_URL */
  coingeckoUrl: string
  krakenUrl: string
  coinbaseUrl: string
  /** RATE_COINGECKO_API_KEY: a CoinGecko demo key, sent as x-cg-demo-api-key */
  coingeckoApiKey: string | undefined
  /** RATE_TIMEOUT_MS: for one source's whole answer; default 3000 */
  timeoutMs: number
  policy: RateServicePolicy
  /** PRICE_CURRENCIES: ISO 4217 codes a price may be in; default USD,EUR */
  priceCurrencies: string[]
}

const DECIMAL = /^[0-9]{1,6}(\.[0-9]{1,6})?$/
const PEG = /^([A-Z0-9]{2,10}):([A-Z]{3})=([0-9]{1,6}(\.[0-9]{1,8})?)$/

/** `simulatedChains`: the default source is the simulated one (standalone without CHAIN_MODE=rpc) */
export function readRateConfig(read: EnvReader, options: { simulatedChains: boolean }): RateConfig {
  const defaults: RateSourceKind[] = options.simulatedChains
    ? ['simulated']
    : ['coingecko', 'kraken', 'coinbase']
  const names = read.list('RATE_SOURCES', { default: defaults })
  const sources: RateSourceKind[] = []
  for (const name of names) {
    if (!(rateSourceKinds as readonly string[]).includes(name)) {
      read.problem(`RATE_SOURCES: unknown source '${name}' (expected some of ${rateSourceKinds.join(', ')})`)
    } else if (!sources.includes(name as RateSourceKind)) {
      sources.push(name as RateSourceKind)
    }
  }
  if (names.length === 0) read.problem('RATE_SOURCES: name at least one source')
  const spread = read.string('RATE_MAX_SPREAD_PERCENT', { default: defaultRatePolicy.maxSpreadPercent })
  if (!DECIMAL.test(spread))
    read.problem(`RATE_MAX_SPREAD_PERCENT: expected a decimal such as 2 or 0.5, got '${spread}'`)
  const pegs = readPegs(read)
  const priceCurrencies = read.list('PRICE_CURRENCIES', { default: [...defaultPriceCurrencies] })
  const known = new Set(Intl.supportedValuesOf('currency'))
  for (const currency of priceCurrencies) {
    if (!/^[A-Z]{3}$/.test(currency) || !known.has(currency)) {
      read.problem(`PRICE_CURRENCIES: '${currency}' is not an ISO 4217 currency code`)
    }
  }
  return {
    sources,
    coingeckoUrl: readUrl(read, 'RATE_COINGECKO_URL', COINGECKO_URL),
    krakenUrl: readUrl(read, 'RATE_KRAKEN_URL', KRAKEN_URL),
    coinbaseUrl: readUrl(read, 'RATE_COINBASE_URL', COINBASE_URL),
    coingeckoApiKey: read.optionalString('RATE_COINGECKO_API_KEY'),
    timeoutMs: read.int('RATE_TIMEOUT_MS', { default: 3000, min: 100, max: 60_000 }),
    policy: {
      maxAgeSeconds: read.int('RATE_MAX_AGE_SECONDS', {
        default: defaultRatePolicy.maxAgeSeconds,
        min: 1,
        max: 86_400,
      }),
      maxSpreadPercent: DECIMAL.test(spread) ? spread : defaultRatePolicy.maxSpreadPercent,
      pegs,
      minSources: read.int('RATE_MIN_SOURCES', { default: defaultRatePolicy.minSources, min: 1, max: 10 }),
      cacheSeconds: read.int('RATE_CACHE_SECONDS', {
        default:
          options.simulatedChains && sources.every((source) => source === 'simulated')
            ? 0
            : defaultRatePolicy.cacheSeconds,
        min: 0,
        max: 3600,
      }),
    },
    priceCurrencies,
  }
}

/** RATE_PEGS: "USDT:USD=1,USDC:USD=1" (the default); "none" for no peg */
function readPegs(read: EnvReader): RatePeg[] {
  const text = read.optionalString('RATE_PEGS')
  if (text === undefined) return [...defaultRatePolicy.pegs]
  if (text === 'none') return []
  const pegs: RatePeg[] = []
  for (const item of text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    const match = PEG.exec(item)
    if (match === null) {
      read.problem(`RATE_PEGS: expected items such as USDT:USD=1, got '${item}'`)
      continue
    }
    pegs.push({ base: match[1] as string, quote: match[2] as string, value: match[3] as string })
  }
  return pegs
}

function readUrl(read: EnvReader, name: string, fallback: string): string {
  const text = read.string(name, { default: fallback })
  try {
    const url = new URL(text)
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)')
  } catch {
    read.problem(`${name}: expected an http(s) URL, got '${text}'`)
  }
  return text
}

/** the configured sources; `simulated` is the simulated one when configured, for the dev routes */
export function createRateSources(
  config: RateConfig,
  clock: Clock,
): { sources: RateSource[]; simulated: SimulatedRateSource | null } {
  let simulated: SimulatedRateSource | null = null
  const sources = config.sources.map((kind): RateSource => {
    switch (kind) {
      case 'coingecko':
        return createCoinGeckoSource({
          baseUrl: config.coingeckoUrl,
          timeoutMs: config.timeoutMs,
          clock,
          ...(config.coingeckoApiKey === undefined ? {} : { apiKey: config.coingeckoApiKey }),
        })
      case 'kraken':
        return createKrakenSource({ baseUrl: config.krakenUrl, timeoutMs: config.timeoutMs, clock })
      case 'coinbase':
        return createCoinbaseSource({ baseUrl: config.coinbaseUrl, timeoutMs: config.timeoutMs, clock })
      case 'simulated':
        simulated = createSimulatedRateSource({ clock })
        return simulated
      default: {
        const unknown: never = kind
        throw new Error(`unknown rate source ${String(unknown)}`)
      }
    }
  })
  return { sources, simulated }
}
