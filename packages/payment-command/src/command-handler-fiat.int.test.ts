// Creates priced in fiat through the command handler, with the rate service over two real local
// price APIs (CoinGecko's and Kraken's documented shapes): the rate is locked before an address is
// spent, recorded in PaymentCreated, and no usable rate is 503 RATE_UNAVAILABLE with nothing created
// (docs/api.md, "Prices in fiat").

import { paymentIdForIdempotencyKey, toPaymentStreamId } from '@chainpay/domain'
import { createManualClock, createRootLogger } from '@chainpay/platform'
import {
  createCoinGeckoSource,
  createKrakenSource,
  createRateService,
  defaultRatePolicy,
} from '@chainpay/rates'
import { type PriceApiServer, startPriceApiServer } from '@chainpay/rates/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openSqliteCommandSide, type SqliteCommandSide } from './testing/sqlite-command-side.js'

const merchantId = 'merchant-1'
const start = '2026-11-21T14:00:00.000Z'
const priced = {
  priceAmount: '20',
  priceCurrency: 'USD',
  currency: 'SOL',
  network: 'SOLANA',
  idempotencyKey: 'order-7',
}

describe('createPayment priced in fiat', () => {
  const clock = createManualClock(start)
  let coingecko: PriceApiServer
  let kraken: PriceApiServer
  let side: SqliteCommandSide

  beforeEach(async () => {
    coingecko = await startPriceApiServer({ now: () => clock.now() })
    kraken = await startPriceApiServer({ now: () => clock.now() })
    const rates = createRateService({
      sources: [
        createCoinGeckoSource({ baseUrl: coingecko.url, timeoutMs: 300, clock }),
        createKrakenSource({ baseUrl: kraken.url, timeoutMs: 300, clock }),
      ],
      policy: { ...defaultRatePolicy, cacheSeconds: 0 },
      clock,
      logger: createRootLogger({ service: 'fiat-test', level: 'silent' }),
    })
    side = openSqliteCommandSide({ clock, rates })
    await side.addMerchant(merchantId)
  })

  afterEach(async () => {
    await side.close()
    await coingecko.close()
    await kraken.close()
  })

  it('locks the median rate, rounds the amount up to the asset decimals and records price and rate', async () => {
    coingecko.setPrice('SOL', 'USD', '142.36')
    kraken.setPrice('SOL', 'USD', '142.38000')
    const created = await side.handler.createPayment({ merchantId, request: priced })
    // 20 / 142.37 = 0.14047903350...
    expect(created.payment.created).toMatchObject({
      amount: '0.140479034',
      amountUnits: '140479034',
      priceAmount: '20',
      priceCurrency: 'USD',
      rate: { value: '142.37', sources: ['coingecko', 'kraken'], at: start },
    })
    const [event] = await side.eventStore.readStream(toPaymentStreamId(created.payment.created.paymentId))
    expect(event?.data).toMatchObject({ rate: { value: '142.37' }, priceAmount: '20' })
  })

  it('is 503 RATE_UNAVAILABLE with nothing created when no source answers usably: no event, no address spent', async () => {
    coingecko.behave('hang')
    kraken.behave('garbage')
    await expect(side.handler.createPayment({ merchantId, request: priced })).rejects.toMatchObject({
      name: 'DomainError',
      code: 'RATE_UNAVAILABLE',
    })
    expect(
      await side.eventStore.readStream(toPaymentStreamId(paymentIdForIdempotencyKey(merchantId, 'order-7'))),
    ).toEqual([])
    expect(side.allocator.allocations).toEqual([])
  })

  it('is RATE_UNAVAILABLE when the sources disagree beyond the spread, naming the pair', async () => {
    coingecko.setPrice('SOL', 'USD', '140')
    kraken.setPrice('SOL', 'USD', '150')
    await expect(side.handler.createPayment({ merchantId, request: priced })).rejects.toMatchObject({
      code: 'RATE_UNAVAILABLE',
      message: expect.stringContaining('SOL/USD'),
    })
    expect(side.allocator.allocations).toEqual([])
  })

  it('replays a created fiat payment at its locked rate, without asking for a rate again', async () => {
    coingecko.setPrice('SOL', 'USD', '142.37')
    kraken.setPrice('SOL', 'USD', '142.37')
    const first = await side.handler.createPayment({ merchantId, request: priced })
    const asked = coingecko.requests + kraken.requests
    coingecko.behave('error')
    kraken.behave('error')
    const replay = await side.handler.createPayment({ merchantId, request: priced })
    expect(replay.outcome).toBe('replayed')
    expect(replay.payment.created.rate).toEqual(first.payment.created.rate)
    expect(coingecko.requests + kraken.requests).toBe(asked)
  })

  it('validates the request before asking for a rate: a currency not on the list is VALIDATION_ERROR', async () => {
    await expect(
      side.handler.createPayment({ merchantId, request: { ...priced, priceCurrency: 'GBP' } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', message: 'priceCurrency: must be one of USD, EUR' })
    expect(coingecko.requests + kraken.requests).toBe(0)
  })
  it("records the merchant's underpayment tolerance as the merchant store has it", async () => {
    await side.merchants.updateMerchant(merchantId, { underpaymentTolerancePercent: '0.5' }, start)
    const created = await side.handler.createPayment({
      merchantId,
      request: { amount: '10', currency: 'USDT', network: 'TRON' },
    })
    expect(created.payment.created).toMatchObject({ underpaymentTolerancePercent: '0.5', rate: null })
  })
})
