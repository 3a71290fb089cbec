// The rate service over two real local price APIs answering CoinGecko's and Kraken's documented
// shapes (docs/operations.md, "Exchange rates"): the median of the fresh answers, a source down or
// stale or answering garbage counted out, disagreement beyond the spread refused, pegs, metrics.

import { createManualClock, createRootLogger } from '@chainpay/platform'
import { Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createCoinGeckoSource } from './coingecko-source.js'
import { createKrakenSource } from './kraken-source.js'
import {
  createRateService,
  defaultRatePolicy,
  type RateService,
  RateUnavailableError,
} from './rate-service.js'
import { type PriceApiServer, startPriceApiServer } from './testing/index.js'

const NOW = '2026-11-28T09:00:00.000Z'
const SOL_USD = { base: 'SOL', quote: 'USD' }
const USDT_USD = { base: 'USDT', quote: 'USD' }

describe('rate service', () => {
  const clock = createManualClock(NOW)
  let coingecko: PriceApiServer
  let kraken: PriceApiServer
  let registry: Registry
  let rates: RateService

  beforeEach(async () => {
    clock.set(NOW)
    coingecko = await startPriceApiServer({ now: () => clock.now() })
    kraken = await startPriceApiServer({ now: () => clock.now() })
    registry = new Registry()
    rates = createRateService({
      sources: [
        createCoinGeckoSource({ baseUrl: coingecko.url, timeoutMs: 300, clock }),
        createKrakenSource({ baseUrl: kraken.url, timeoutMs: 300, clock }),
      ],
      policy: { ...defaultRatePolicy, cacheSeconds: 0 },
      clock,
      logger: createRootLogger({ service: 'rate-service-test', level: 'silent' }),
      registry,
    })
  })

  afterEach(async () => {
    await rates.close()
    await coingecko.close()
    await kraken.close()
  })

  async function refusal(pair = SOL_USD): Promise<RateUnavailableError> {
    const error = await rates.lockRate(pair).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RateUnavailableError)
    return error as RateUnavailableError
  }

  it('locks the median of the answers (the mean of two), with the sources and the oldest time', async () => {
    coingecko.setPrice('SOL', 'USD', '142.30', { updatedAt: new Date('2026-11-28T08:59:40.000Z') })
    kraken.setPrice('SOL', 'USD', '142.4500')
    expect(await rates.lockRate(SOL_USD)).toEqual({
      value: '142.375',
      sources: ['coingecko', 'kraken'],
      at: '2026-11-28T08:59:40.000Z',
    })
  })

  it('prices with the rest when one source is down', async () => {
    coingecko.setPrice('SOL', 'USD', '142.3')
    kraken.setPrice('SOL', 'USD', '142.45')
    await kraken.close()
    expect(await rates.lockRate(SOL_USD)).toMatchObject({ value: '142.3', sources: ['coingecko'] })
  })

  it('counts out a source that does not answer in time, or answers garbage', async () => {
    coingecko.setPrice('SOL', 'USD', '142.3')
    kraken.setPrice('SOL', 'USD', '142.45')
    kraken.behave('hang')
    expect(await rates.lockRate(SOL_USD)).toMatchObject({ value: '142.3', sources: ['coingecko'] })
    kraken.behave('normal')
    coingecko.behave('garbage')
    expect(await rates.lockRate(SOL_USD)).toMatchObject({ value: '142.45', sources: ['kraken'] })
  })

  it('counts out an answer older than the age limit (60 s)', async () => {
    coingecko.setPrice('SOL', 'USD', '140', { updatedAt: new Date('2026-11-28T08:58:59.000Z') })
    kraken.setPrice('SOL', 'USD', '142.45')
    expect(await rates.lockRate(SOL_USD)).toMatchObject({ value: '142.45', sources: ['kraken'] })
    coingecko.setPrice('SOL', 'USD', '142', { updatedAt: new Date('2026-11-28T08:59:00.000Z') })
    expect(await rates.lockRate(SOL_USD)).toMatchObject({
      value: '142.225',
      sources: ['coingecko', 'kraken'],
    })
  })

  it('refuses when every source is down, stale or garbage', async () => {
    coingecko.setPrice('SOL', 'USD', '142', { updatedAt: new Date('2026-11-28T08:50:00.000Z') })
    kraken.behave('not_json')
    expect(await refusal()).toMatchObject({ reason: 'NO_ANSWER' })
  })

  it('refuses when the sources disagree by more than the spread (2 % of the median), and locks within it', async () => {
    coingecko.setPrice('SOL', 'USD', '100')
    kraken.setPrice('SOL', 'USD', '102.03') // 2.03 / 101.015 = 2.0096 %
    expect(await refusal()).toMatchObject({ reason: 'SPREAD' })
    kraken.setPrice('SOL', 'USD', '102.02') // 2.02 / 101.01 = 1.9998 %
    expect(await rates.lockRate(SOL_USD)).toMatchObject({ value: '101.01' })
  })

  it('pegs USDT to 1 USD while the market stays within the spread, and prices it as it trades beyond', async () => {
    coingecko.setPrice('USDT', 'USD', '0.9991')
    kraken.setPrice('USDT', 'USD', '0.9995')
    expect(await rates.lockRate(USDT_USD)).toMatchObject({
      value: '1',
      sources: ['peg', 'coingecko', 'kraken'],
    })
    coingecko.setPrice('USDT', 'USD', '0.95')
    kraken.setPrice('USDT', 'USD', '0.951')
    expect(await rates.lockRate(USDT_USD)).toMatchObject({
      value: '0.9505',
      sources: ['coingecko', 'kraken'],
    })
  })

  it('never pegs without a market: no answer is no rate', async () => {
    coingecko.behave('error')
    kraken.behave('error')
    expect(await refusal(USDT_USD)).toMatchObject({ reason: 'NO_ANSWER' })
  })

  it('asks each source once per pair while its answer is kept', async () => {
    const cached = createRateService({
      sources: [createKrakenSource({ baseUrl: kraken.url, timeoutMs: 300, clock })],
      policy: { ...defaultRatePolicy, cacheSeconds: 10 },
      clock,
      logger: createRootLogger({ service: 'rate-service-test', level: 'silent' }),
    })
    kraken.setPrice('SOL', 'USD', '142')
    await Promise.all([cached.lockRate(SOL_USD), cached.lockRate(SOL_USD), cached.lockRate(SOL_USD)])
    await cached.lockRate(SOL_USD)
    expect(kraken.requests).toBe(1)
    clock.advance(10_000)
    await cached.lockRate(SOL_USD)
    expect(kraken.requests).toBe(2)
    await cached.close()
  })

  it('keeps a failure as long as an answer: while a source hangs, creates do not each wait for it', async () => {
    const cached = createRateService({
      sources: [
        createCoinGeckoSource({ baseUrl: coingecko.url, timeoutMs: 300, clock }),
        createKrakenSource({ baseUrl: kraken.url, timeoutMs: 300, clock }),
      ],
      policy: { ...defaultRatePolicy, cacheSeconds: 10 },
      clock,
      logger: createRootLogger({ service: 'rate-service-test', level: 'silent' }),
    })
    coingecko.setPrice('SOL', 'USD', '142')
    kraken.behave('hang')
    for (let create = 0; create < 3; create++) {
      expect(await cached.lockRate(SOL_USD)).toMatchObject({ value: '142', sources: ['coingecko'] })
    }
    expect(kraken.requests).toBe(1)
    kraken.behave('normal')
    kraken.setPrice('SOL', 'USD', '142.2')
    clock.advance(10_000)
    expect(await cached.lockRate(SOL_USD)).toMatchObject({ value: '142.1', sources: ['coingecko', 'kraken'] })
    await cached.close()
  })

  it('shows the age of the last rate per pair and the sources answering', async () => {
    coingecko.setPrice('SOL', 'USD', '142', { updatedAt: new Date('2026-11-28T08:59:50.000Z') })
    kraken.setPrice('SOL', 'USD', '142.1')
    await rates.lockRate(SOL_USD)
    kraken.behave('error')
    await rates.lockRate(SOL_USD)
    clock.advance(5_000)
    const text = await registry.metrics()
    expect(text).toContain('chainpay_rate_age_seconds{pair="SOL/USD"} 15')
    expect(text).toContain('chainpay_rate_sources_answering{pair="SOL/USD"} 1')
    expect(text).toContain('chainpay_rate_source_failures_total{source="kraken",reason="http_status"} 1')
  })
})
