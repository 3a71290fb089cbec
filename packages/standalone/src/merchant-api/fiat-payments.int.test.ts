// POST /payments priced in fiat through the gateway's app and payment-command's handler, as one
// process serves them (docs/api.md, "Prices in fiat"), with the simulated rate source of simulated
// chains, moved by the test: the amount rounded up, the locked rate in every shape of the payment,
// and no usable rate 503 RATE_UNAVAILABLE with nothing created.

import { createRootLogger } from '@chainpay/platform'
import { createRateService, createSimulatedRateSource, defaultRatePolicy } from '@chainpay/rates'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_START,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const priced = { priceAmount: '25.00', priceCurrency: 'EUR', currency: 'TRX', network: 'TRON' }

let fixture: MerchantApiFixture
const simulated = createSimulatedRateSource({ clock: { now: () => new Date(FIXTURE_START) } })

beforeEach(async () => {
  simulated.set({ base: 'TRX', quote: 'EUR', value: '0.23' })
  const rates = createRateService({
    sources: [simulated],
    policy: { ...defaultRatePolicy, cacheSeconds: 0 },
    clock: { now: () => new Date(FIXTURE_START) },
    logger: createRootLogger({ service: 'fiat-api-test', level: 'silent' }),
  })
  fixture = await openMerchantApiFixture({ rates })
})

afterEach(() => fixture.close())

const errorOf = (response: { body: string }) =>
  json<{ error: { code: string; message: string } }>(response).error

describe('POST /payments priced in fiat', () => {
  it('answers 201 with the amount rounded up and the price and locked rate, which GET and the list show too', async () => {
    const response = await fixture.create({ ...priced, idempotencyKey: 'order-eur-1' })
    expect(response.statusCode, response.body).toBe(201)
    const payment = json(response)
    // 25 / 0.23 = 108.6956521...: 108.695653 TRX
    expect(payment).toMatchObject({
      amount: '108.695653',
      expectedAmount: '108.695653',
      feeAmount: '1.086957',
      netAmount: '107.608696',
      priceAmount: '25.00',
      priceCurrency: 'EUR',
      rate: { value: '0.23', sources: ['simulated'], at: FIXTURE_START },
      underpaymentTolerancePercent: '0',
      shortfallAmount: null,
    })
    const read = json(await fixture.send('GET', `${PAYMENTS}/${payment.paymentId}`))
    expect(read).toMatchObject({
      amount: '108.695653',
      priceAmount: '25.00',
      priceCurrency: 'EUR',
      rate: payment.rate,
    })
    const list = json<{ data: Array<Record<string, unknown>> }>(await fixture.send('GET', PAYMENTS))
    expect(list.data[0]).toMatchObject({
      paymentId: payment.paymentId,
      priceAmount: '25.00',
      rate: payment.rate,
    })
    // the creation event records the rate (docs/api.md, "Event types")
    const history = json<{ data: Array<{ type: string; data: Record<string, unknown> }> }>(
      await fixture.send('GET', `${PAYMENTS}/${payment.paymentId}/events`),
    )
    expect(history.data[0]).toMatchObject({
      type: 'payment.created',
      data: { priceAmount: '25.00', priceCurrency: 'EUR', rate: payment.rate },
    })
  })

  it('replays the same request at the rate it locked, whatever the rate now', async () => {
    const first = json(await fixture.create({ ...priced, idempotencyKey: 'order-eur-2' }))
    simulated.set({ base: 'TRX', quote: 'EUR', value: '0.5' })
    const replay = await fixture.create({ ...priced, idempotencyKey: 'order-eur-2' })
    expect(replay.statusCode).toBe(200)
    expect(json(replay)).toMatchObject({ amount: first.amount, rate: first.rate })
    const fresh = json(await fixture.create({ ...priced, idempotencyKey: 'order-eur-3' }))
    expect(fresh).toMatchObject({ amount: '50', rate: { value: '0.5' } })
  })

  it('answers 503 RATE_UNAVAILABLE with Retry-After when no rate can be had, and creates nothing', async () => {
    simulated.set({ base: 'TRX', quote: 'EUR', value: '0.23', failure: 'timeout' })
    const response = await fixture.create({ ...priced, idempotencyKey: 'order-eur-4' })
    expect(response.statusCode).toBe(503)
    expect(response.headers['retry-after']).toBe('5')
    expect(errorOf(response)).toEqual({
      code: 'RATE_UNAVAILABLE',
      message: expect.stringContaining('no usable rate of TRX in EUR right now'),
    })
    expect(json<{ data: unknown[] }>(await fixture.send('GET', PAYMENTS)).data).toEqual([])
  })

  it('answers 503 RATE_UNAVAILABLE for a rate older than the age limit', async () => {
    simulated.set({ base: 'TRX', quote: 'EUR', value: '0.23', at: '2030-01-15T11:58:59.000Z' })
    const response = await fixture.create(priced)
    expect(response.statusCode).toBe(503)
    expect(errorOf(response).code).toBe('RATE_UNAVAILABLE')
  })

  it.each([
    [
      { ...priced, amount: '10' },
      'amount: must not be sent with priceAmount and priceCurrency (send one or the other)',
    ],
    [{ priceAmount: '25', currency: 'TRX', network: 'TRON' }, 'priceCurrency: is required with priceAmount'],
    [
      { priceCurrency: 'EUR', currency: 'TRX', network: 'TRON' },
      'priceAmount: is required with priceCurrency',
    ],
    [{ ...priced, priceCurrency: 'JPY' }, 'priceCurrency: must be one of USD, EUR'],
    [{ ...priced, priceCurrency: 'eur' }, 'priceCurrency: must be an ISO 4217 code such as "USD"'],
    [{ ...priced, priceAmount: '25.001' }, 'priceAmount: at most 2 decimal places for EUR'],
    [{ ...priced, priceAmount: '0' }, 'priceAmount: must be greater than 0'],
    [{ ...priced, priceAmount: 25 }, 'priceAmount: must be a string'],
    [{ currency: 'TRX', network: 'TRON' }, 'amount: is required'],
  ])('refuses %j: 400 VALIDATION_ERROR', async (body, message) => {
    const response = await fixture.create(body)
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message })
  })
})
