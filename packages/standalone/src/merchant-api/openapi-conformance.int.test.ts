// The check every merchant-API test runs on close (merchant-api-fixture.ts) must fail when a
// response drifts from the served document.

import { openApiProblems, type ServedResponse } from '@chainpay/service-kit/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { json, type MerchantApiFixture, openMerchantApiFixture } from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'

let fixture: MerchantApiFixture
let documentText: string

beforeEach(async () => {
  fixture = await openMerchantApiFixture()
  documentText = (await fixture.app.inject({ method: 'GET', url: '/api/merchant/v1/openapi.json' })).body
})
afterEach(() => fixture.close())

describe('openApiProblems', () => {
  it('passes the responses served for a create, a list, a get, a history and their errors', async () => {
    const created = json<{ paymentId: string }>(
      await fixture.create({ amount: '1', currency: 'USDT', network: 'TRON' }),
    )
    await fixture.send('GET', `${PAYMENTS}?limit=1`)
    await fixture.send('GET', `${PAYMENTS}?limit=0`)
    await fixture.send('GET', `${PAYMENTS}/${created.paymentId}`)
    await fixture.send('GET', `${PAYMENTS}/${created.paymentId}/events`)
    await fixture.send('GET', `${PAYMENTS}/not-a-uuid/events`)
    expect(fixture.responses().map((response) => response.statusCode)).toEqual([201, 200, 400, 200, 200, 400])
    expect(openApiProblems(documentText, fixture.responses())).toEqual([])
  })

  it('names a field the document does not have, a wrong type, a missing field and an undocumented status', async () => {
    await fixture.create({ amount: '1', currency: 'USDT', network: 'TRON' })
    await fixture.send('GET', `${PAYMENTS}?limit=2`)
    const [created, page] = fixture.responses() as [ServedResponse, ServedResponse]
    const payment = JSON.parse(created.body) as Record<string, unknown>
    const { lateFunds: _, ...withoutLateFunds } = payment
    const drifted: ServedResponse[] = [
      { ...created, body: JSON.stringify({ ...payment, checkout: 'x' }) },
      { ...created, body: JSON.stringify({ ...payment, requiredConfirmations: '20' }) },
      { ...created, body: JSON.stringify(withoutLateFunds) },
      { ...page, body: JSON.stringify({ ...JSON.parse(page.body), nextCursor: 7 }) },
      { ...page, statusCode: 418 },
    ]
    const problems = openApiProblems(documentText, drifted)
    expect(problems).toEqual([
      expect.stringMatching(
        /^POST \/api\/merchant\/v1\/payments 201: body must NOT have additional properties/,
      ),
      expect.stringMatching(/^POST .* 201: body\/requiredConfirmations must be integer/),
      expect.stringMatching(/^POST .* 201: body must have required property 'lateFunds'/),
      expect.stringMatching(
        /^GET \/api\/merchant\/v1\/payments\?limit=2 200: body\/nextCursor must be string/,
      ),
      expect.stringMatching(/nextCursor must be null/),
      expect.stringMatching(
        /nextCursor must match exactly one schema|nextCursor must match a schema in anyOf/,
      ),
      'GET /api/merchant/v1/payments?limit=2 418: status 418 is not documented',
    ])
  })
})
