// Answers past a rate limit are counted in chainpay_http_rate_limited_total and logged sampled, never
// one line each (docs/operations.md, "HTTP limits"): a 30 s flood of /pay/{token} from one address
// once wrote 428,628 lines.

import { createServiceMetrics } from '@chainpay/service-kit'
import { prometheusSample } from '@chainpay/service-kit/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { type MerchantApiFixture, openMerchantApiFixture } from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const SOME_ID = '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
/** a token's shape; no payment behind it: the limit runs before the route looks */
const SOME_TOKEN = 'v1.c2VjcmV0LWxvb2tpbmctY2hlY2tvdXQtdG9rZW4tMDEyMzQ1Njc4OQ'

let fixture: MerchantApiFixture

afterEach(() => fixture.close())

async function openLimitedFixture(rateLimit: { max: number; perAddressMax: number }) {
  const metrics = createServiceMetrics('gateway', { processMetrics: false })
  fixture = await openMerchantApiFixture({
    rateLimit: { ...rateLimit, windowMs: 60_000 },
    refusalMetrics: metrics.refusals,
  })
  const limitedCount = async (group: string, reason: string) =>
    prometheusSample(await metrics.registry.metrics(), 'chainpay_http_rate_limited_total', {
      group,
      reason,
    }) ?? 0
  const lines = () => fixture.logLines().map((line) => JSON.parse(line) as Record<string, unknown>)
  const limitedLines = () => lines().filter((line) => String(line.msg).includes('past the rate limit'))
  const requestLines = () => lines().filter((line) => line.msg === 'request completed')
  return { limitedCount, limitedLines, requestLines }
}

describe('answers past a rate limit: counted every one, logged sampled', () => {
  it('a flood of the customer page from one address writes one line for it, and the metric counts every answer', async () => {
    const { limitedCount, limitedLines, requestLines } = await openLimitedFixture({
      max: 100,
      perAddressMax: 3,
    })
    const flood = 500
    const linesBefore = fixture.logLines().length
    const statuses: number[] = []
    for (let request = 0; request < flood; request += 1) {
      const response = await fixture.app.inject({
        method: 'GET',
        url: `/pay/${SOME_TOKEN}/status`,
        remoteAddress: '203.0.113.7',
      })
      statuses.push(response.statusCode)
    }
    expect(statuses.filter((status) => status === 429)).toHaveLength(flood - 3)
    expect(await limitedCount('checkout', 'per_address')).toBe(flood - 3)
    // the three within the limit are logged as any request; the 497 past it in one line
    expect(fixture.logLines().length - linesBefore).toBe(4)
    expect(requestLines()).toHaveLength(3)
    expect(limitedLines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        group: 'checkout',
        reason: 'per_address',
        client: '203.0.113.7',
        route: '/pay/:token/status',
        notLogged: 0,
      }),
    ])
    // the customer's token is the capability to cancel: the sampled line has the route, not the URL,
    // and the request lines have it redacted (docs/operations.md, "Logs")
    expect(fixture.logLines().filter((line) => line.includes(SOME_TOKEN))).toEqual([])

    // another address (an IPv6 /64) gets its line; its neighbours in the /64 count as it
    for (const address of ['2001:db8:0:1::1', '2001:db8:0:1::2']) {
      for (let request = 0; request < 10; request += 1) {
        await fixture.app.inject({ method: 'GET', url: `/pay/${SOME_TOKEN}`, remoteAddress: address })
      }
    }
    expect(await limitedCount('checkout', 'per_address')).toBe(flood - 3 + 17)
    expect(limitedLines()).toHaveLength(2)
    expect(limitedLines()[1]).toMatchObject({ client: '2001:db8:0:1::' })

    // a minute later, the address's next answer past the limit is logged, with how many were not
    fixture.clock.advance(60_000)
    for (let request = 0; request < 4; request += 1) {
      await fixture.app.inject({
        method: 'GET',
        url: `/pay/${SOME_TOKEN}/status`,
        remoteAddress: '203.0.113.7',
      })
    }
    expect(limitedLines()).toHaveLength(3)
    expect(limitedLines()[2]).toMatchObject({ client: '203.0.113.7', notLogged: flood - 3 - 1 })
  })

  it('a merchant past its API key limit: one line, every answer counted per_api_key on merchant_api', async () => {
    const { limitedCount, limitedLines, requestLines } = await openLimitedFixture({
      max: 3,
      perAddressMax: 10_000,
    })
    const flood = 200
    const linesBefore = fixture.logLines().length
    for (let request = 0; request < flood; request += 1) {
      await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`)
    }
    expect(fixture.logLines().length - linesBefore).toBe(4)
    expect(await limitedCount('merchant_api', 'per_api_key')).toBe(flood - 3)
    expect(await limitedCount('merchant_api', 'per_address')).toBe(0)
    expect(requestLines()).toHaveLength(3)
    expect(limitedLines()).toEqual([
      expect.objectContaining({
        group: 'merchant_api',
        reason: 'per_api_key',
        client: `key:${fixture.merchant.apiKey}`,
        route: `${PAYMENTS}/:paymentId`,
      }),
    ])
  })
})
