// Each rate source against a real local HTTP server answering its API's documented shape
// (docs/operations.md, "Exchange rates"), and the simulated source, through the one contract.

import { systemClock } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { createCoinbaseSource } from './coinbase-source.js'
import { createCoinGeckoSource } from './coingecko-source.js'
import { createKrakenSource } from './kraken-source.js'
import { RateSourceFailure } from './rate-source.js'
import { createSimulatedRateSource } from './simulated-source.js'
import { describeRateSourceContract, startPriceApiServer } from './testing/index.js'

const TIMEOUT_MS = 300
const faults = { timeout: 'hang', http_status: 'error', malformed: 'garbage' } as const

describeRateSourceContract('coingecko', async () => {
  const server = await startPriceApiServer()
  const source = createCoinGeckoSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
  return {
    source,
    setPrice: (base, quote, value) => server.setPrice(base, quote, value),
    fault: (kind) => server.behave(faults[kind]),
    startedAt: new Date(),
    teardown: async () => {
      await source.close()
      await server.close()
    },
  }
})

describeRateSourceContract('kraken', async () => {
  const server = await startPriceApiServer()
  const source = createKrakenSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
  return {
    source,
    setPrice: (base, quote, value) => server.setPrice(base, quote, value),
    fault: (kind) => server.behave(faults[kind]),
    startedAt: new Date(),
    teardown: async () => {
      await source.close()
      await server.close()
    },
  }
})

describeRateSourceContract('coinbase', async () => {
  const server = await startPriceApiServer()
  const source = createCoinbaseSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
  return {
    source,
    setPrice: (base, quote, value) => server.setPrice(base, quote, value),
    fault: (kind) => server.behave(faults[kind]),
    startedAt: new Date(),
    teardown: async () => {
      await source.close()
      await server.close()
    },
  }
})

describeRateSourceContract('simulated', async () => {
  const source = createSimulatedRateSource({ clock: systemClock, rates: [] })
  let last = { base: '', quote: '', value: '1' }
  return {
    source,
    setPrice: (base, quote, value) => {
      last = { base, quote, value }
      source.set(last)
    },
    fault: (kind) => source.set({ ...last, failure: kind }),
    startedAt: new Date(),
    teardown: () => source.close(),
  }
})

describe('coingecko source', () => {
  it("reads the price's time from last_updated_at", async () => {
    const server = await startPriceApiServer()
    const source = createCoinGeckoSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
    try {
      server.setPrice('USDT', 'EUR', '0.9312', { updatedAt: new Date('2026-11-28T08:00:00.000Z') })
      expect(await source.quote({ base: 'USDT', quote: 'EUR' })).toEqual({
        source: 'coingecko',
        value: '0.9312',
        at: '2026-11-28T08:00:00.000Z',
      })
    } finally {
      await source.close()
      await server.close()
    }
  })

  it('refuses a body that is not JSON (an HTML page) as malformed', async () => {
    const server = await startPriceApiServer()
    const source = createCoinGeckoSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
    try {
      server.behave('not_json')
      const error = await source.quote({ base: 'SOL', quote: 'USD' }).catch((caught: unknown) => caught)
      expect(error).toMatchObject({ kind: 'malformed' })
    } finally {
      await source.close()
      await server.close()
    }
  })

  it('turns a refused connection into unreachable', async () => {
    const server = await startPriceApiServer()
    await server.close()
    const source = createCoinGeckoSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
    const error = await source.quote({ base: 'SOL', quote: 'USD' }).catch((caught: unknown) => caught)
    await source.close()
    expect(error).toBeInstanceOf(RateSourceFailure)
    expect(error).toMatchObject({ kind: 'unreachable' })
  })
})

describe('kraken source', () => {
  it('reads a pair Kraken names its own way in the result (USDTUSD as USDTZUSD)', async () => {
    const server = await startPriceApiServer()
    const source = createKrakenSource({ baseUrl: server.url, timeoutMs: TIMEOUT_MS, clock: systemClock })
    try {
      server.setPrice('USDT', 'USD', '0.99950000')
      expect((await source.quote({ base: 'USDT', quote: 'USD' })).value).toBe('0.9995')
    } finally {
      await source.close()
      await server.close()
    }
  })
})
