// The merchant API's webhook endpoint routes through app.inject() (docs/api.md, "Webhook endpoints").

import { setWebhookUrl } from '@chainpay/admin-api'
import { webhookEndpointSecretContext } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_START,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const ENDPOINTS = '/api/merchant/v1/webhook-endpoints'

type Body = Record<string, unknown>
const errorOf = (response: { body: string }) =>
  json<{ error: { code: string; message: string } }>(response).error

let fixture: MerchantApiFixture
beforeEach(async () => {
  fixture = await openMerchantApiFixture()
})
afterEach(() => fixture.close())

const create = (body: unknown, options: Parameters<MerchantApiFixture['send']>[2] = {}) =>
  fixture.send('POST', ENDPOINTS, { body: JSON.stringify(body), ...options })

describe('POST /webhook-endpoints', () => {
  it('creates an endpoint for every kind, shows its secret once and keeps it sealed', async () => {
    const response = await create({ url: 'https://shop.example/hooks', description: 'orders' })
    expect(response.statusCode, response.body).toBe(201)
    const created = json(response)
    expect(created).toEqual({
      id: expect.any(String),
      url: 'https://shop.example/hooks',
      events: null,
      description: 'orders',
      enabled: true,
      managedBy: 'merchant',
      previousSecretExpiresAt: null,
      createdAt: FIXTURE_START,
      updatedAt: FIXTURE_START,
      secret: expect.stringMatching(/^whsec_/),
    })
    const stored = await fixture.webhookEndpoints.get(
      fixture.merchant.merchant.merchantId,
      created.id as string,
    )
    expect(stored?.secret).not.toContain(created.secret as string)
    expect(
      fixture.secretBox.open(
        stored?.secret ?? '',
        webhookEndpointSecretContext(stored ?? { merchantId: '', endpointId: '' }),
      ),
    ).toBe(created.secret)
    const read = await fixture.send('GET', `${ENDPOINTS}/${created.id}`)
    expect(read.statusCode).toBe(200)
    expect(json(read)).not.toHaveProperty('secret')
  })

  it('takes a list of kinds', async () => {
    const response = await create({
      url: 'https://shop.example/hooks',
      events: ['payment.confirmed', 'payment.transfer_detected'],
    })
    expect(json(response).events).toEqual(['payment.confirmed', 'payment.transfer_detected'])
  })

  it.each<[string, Body, string]>([
    ['no url', {}, 'url: is required'],
    ['an http url', { url: 'http://shop.example/hooks' }, 'url: must use https'],
    ['a private host', { url: 'https://10.0.0.1/hooks' }, 'url: must not point at a private address'],
    [
      'an unknown kind',
      { url: 'https://shop.example/h', events: ['payment.nope'] },
      'events: unknown kind "payment.nope"',
    ],
    ['no kinds', { url: 'https://shop.example/h', events: [] }, 'events: must be a non-empty array'],
    ['an unknown field', { url: 'https://shop.example/h', enabled: false }, 'enabled: unknown field'],
    [
      'a long description',
      { url: 'https://shop.example/h', description: 'x'.repeat(201) },
      'description: must be at most 200',
    ],
  ])('refuses %s with VALIDATION_ERROR', async (_case, body, message) => {
    const response = await create(body)
    expect(response.statusCode, response.body).toBe(400)
    expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: expect.stringContaining(message) })
  })

  it('allows at most 16 endpoints per merchant, with a clear error', async () => {
    for (let index = 0; index < 16; index++) {
      expect((await create({ url: `https://shop.example/hooks/${index}` })).statusCode).toBe(201)
    }
    const over = await create({ url: 'https://shop.example/hooks/16' })
    expect(over.statusCode).toBe(400)
    expect(errorOf(over)).toEqual({
      code: 'VALIDATION_ERROR',
      message: expect.stringContaining('at most 16 webhook endpoints'),
    })
    // another merchant is not affected
    expect(
      (await create({ url: 'https://other.example/h' }, { credentials: fixture.otherMerchant })).statusCode,
    ).toBe(201)
  })
})

describe('GET, PATCH, DELETE /webhook-endpoints/{id}', () => {
  it("lists the merchant's own endpoints, oldest first", async () => {
    const first = json(await create({ url: 'https://shop.example/a' }))
    fixture.clock.advance(1000)
    const second = json(await create({ url: 'https://shop.example/b' }))
    await create({ url: 'https://other.example/c' }, { credentials: fixture.otherMerchant })
    const listed = await fixture.send('GET', ENDPOINTS)
    expect(listed.statusCode).toBe(200)
    expect(json<{ data: Body[] }>(listed).data.map((endpoint) => endpoint.id)).toEqual([first.id, second.id])
  })

  it('changes url, events, enabled and description; null events is every kind again', async () => {
    const { id } = json(await create({ url: 'https://shop.example/a', events: ['payment.confirmed'] }))
    fixture.clock.advance(5000)
    const patched = await fixture.send('PATCH', `${ENDPOINTS}/${id}`, {
      body: JSON.stringify({
        url: 'https://shop.example/new',
        enabled: false,
        description: 'moved',
        events: null,
      }),
    })
    expect(patched.statusCode, patched.body).toBe(200)
    expect(json(patched)).toMatchObject({
      url: 'https://shop.example/new',
      enabled: false,
      description: 'moved',
      events: null,
      createdAt: FIXTURE_START,
      updatedAt: fixture.clock.now().toISOString(),
    })
    expect(json(await fixture.send('GET', `${ENDPOINTS}/${id}`))).toEqual(json(patched))
  })

  it('refuses an empty or invalid patch', async () => {
    const { id } = json(await create({ url: 'https://shop.example/a' }))
    for (const body of [{}, { enabled: 'no' }, { url: 'ftp://x' }, { secret: 'x' }]) {
      const response = await fixture.send('PATCH', `${ENDPOINTS}/${id}`, { body: JSON.stringify(body) })
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(errorOf(response).code).toBe('VALIDATION_ERROR')
    }
  })

  it('deletes an endpoint: 204, then 404', async () => {
    const { id } = json(await create({ url: 'https://shop.example/a' }))
    expect((await fixture.send('DELETE', `${ENDPOINTS}/${id}`)).statusCode).toBe(204)
    const again = await fixture.send('DELETE', `${ENDPOINTS}/${id}`)
    expect(again.statusCode).toBe(404)
    expect(errorOf(again).code).toBe('NOT_FOUND')
  })

  it("answers 404 for another merchant's endpoint, on every route", async () => {
    const { id } = json(await create({ url: 'https://shop.example/a' }))
    const other = { credentials: fixture.otherMerchant }
    const answers = await Promise.all([
      fixture.send('GET', `${ENDPOINTS}/${id}`, other),
      fixture.send('PATCH', `${ENDPOINTS}/${id}`, { ...other, body: JSON.stringify({ enabled: false }) }),
      fixture.send('DELETE', `${ENDPOINTS}/${id}`, other),
      fixture.send('POST', `${ENDPOINTS}/${id}/rotate-secret`, other),
    ])
    for (const answer of answers) {
      expect(answer.statusCode).toBe(404)
      expect(errorOf(answer).code).toBe('NOT_FOUND')
    }
    expect(json(await fixture.send('GET', `${ENDPOINTS}/${id}`))).toMatchObject({ enabled: true })
  })
})

describe('POST /webhook-endpoints/{id}/rotate-secret', () => {
  const secretsOf = async (id: string) => {
    const stored = await fixture.webhookEndpoints.get(fixture.merchant.merchant.merchantId, id)
    if (stored === null) throw new Error('no endpoint')
    const context = webhookEndpointSecretContext(stored)
    return {
      secret: fixture.secretBox.open(stored.secret, context),
      previous:
        stored.previousSecret === null ? null : fixture.secretBox.open(stored.previousSecret, context),
    }
  }

  it('answers a new secret; the old one keeps signing for 24 hours by default', async () => {
    const created = json(await create({ url: 'https://shop.example/a' }))
    const rotated = await fixture.send('POST', `${ENDPOINTS}/${created.id}/rotate-secret`)
    expect(rotated.statusCode, rotated.body).toBe(200)
    const body = json(rotated)
    expect(body).toEqual({
      id: created.id,
      secret: expect.stringMatching(/^whsec_/),
      previousSecretExpiresAt: '2030-01-16T12:00:00.000Z',
    })
    expect(body.secret).not.toBe(created.secret)
    expect(await secretsOf(created.id as string)).toEqual({ secret: body.secret, previous: created.secret })
  })

  it('takes expiresInHours from 0 (the old secret stops at once) to 168', async () => {
    const { id, secret } = json(await create({ url: 'https://shop.example/a' }))
    const week = await fixture.send('POST', `${ENDPOINTS}/${id}/rotate-secret`, {
      body: JSON.stringify({ expiresInHours: 168 }),
    })
    expect(json(week).previousSecretExpiresAt).toBe('2030-01-22T12:00:00.000Z')
    expect((await secretsOf(id as string)).previous).toBe(secret)
    const now = await fixture.send('POST', `${ENDPOINTS}/${id}/rotate-secret`, {
      body: JSON.stringify({ expiresInHours: 0 }),
    })
    expect(json(now).previousSecretExpiresAt).toBeNull()
    expect(await secretsOf(id as string)).toEqual({ secret: json(now).secret, previous: null })
    for (const expiresInHours of [-1, 169, 1.5, '24']) {
      const refused = await fixture.send('POST', `${ENDPOINTS}/${id}/rotate-secret`, {
        body: JSON.stringify({ expiresInHours }),
      })
      expect(refused.statusCode).toBe(400)
      expect(errorOf(refused)).toEqual({
        code: 'VALIDATION_ERROR',
        message: expect.stringContaining('expiresInHours'),
      })
    }
  })
})

describe("the merchant's default webhook URL, set by the operator: the endpoint merchant-default", () => {
  const DEFAULT = `${ENDPOINTS}/merchant-default`
  const setDefaultUrl = (url: string | null) =>
    setWebhookUrl(fixture, fixture.merchant.merchant.merchantId, url)
  const changes = (options: Parameters<MerchantApiFixture['send']>[2] = {}) =>
    Promise.all([
      fixture.send('PATCH', DEFAULT, { ...options, body: JSON.stringify({ enabled: false }) }),
      fixture.send('DELETE', DEFAULT, options),
      fixture.send('POST', `${DEFAULT}/rotate-secret`, options),
    ])

  it('is listed first and read like an endpoint, every kind, managed by the operator', async () => {
    fixture.clock.advance(60_000)
    await setDefaultUrl('https://shop.example/default')
    fixture.clock.advance(1000)
    const own = json(await create({ url: 'https://shop.example/own' }))
    const expected = {
      id: 'merchant-default',
      url: 'https://shop.example/default',
      events: null,
      description: 'your default webhook URL, set by your operator',
      enabled: true,
      managedBy: 'operator',
      previousSecretExpiresAt: null,
      // the merchant record's times
      createdAt: FIXTURE_START,
      updatedAt: '2030-01-15T12:01:00.000Z',
    }
    const listed = json<{ data: Body[] }>(await fixture.send('GET', ENDPOINTS)).data
    expect(listed).toEqual([expected, json(await fixture.send('GET', `${ENDPOINTS}/${own.id}`))])
    expect(listed[1]).toMatchObject({ id: own.id, managedBy: 'merchant' })
    const read = await fixture.send('GET', DEFAULT)
    expect(read.statusCode).toBe(200)
    expect(json(read)).toEqual(expected)
    // another merchant sees none of it
    const other = { credentials: fixture.otherMerchant }
    expect(json<{ data: Body[] }>(await fixture.send('GET', ENDPOINTS, other)).data).toEqual([])
    expect((await fixture.send('GET', DEFAULT, other)).statusCode).toBe(404)
  })

  it('shows the URL the operator set last, and is gone once the operator clears it', async () => {
    await setDefaultUrl('https://shop.example/first')
    await setDefaultUrl('https://shop.example/second')
    expect(json(await fixture.send('GET', DEFAULT)).url).toBe('https://shop.example/second')
    await setDefaultUrl(null)
    const gone = await fixture.send('GET', DEFAULT)
    expect(gone.statusCode).toBe(404)
    expect(errorOf(gone)).toEqual({
      code: 'NOT_FOUND',
      message: 'webhook endpoint merchant-default not found',
    })
    expect(json<{ data: Body[] }>(await fixture.send('GET', ENDPOINTS)).data).toEqual([])
    for (const answer of await changes()) expect(answer.statusCode).toBe(404)
  })

  it('refuses PATCH, DELETE and rotate-secret with a clear error and stays as the operator set it', async () => {
    await setDefaultUrl('https://shop.example/default')
    const before = await fixture.merchants.getMerchant(fixture.merchant.merchant.merchantId)
    for (const answer of await changes()) {
      expect(answer.statusCode, answer.body).toBe(400)
      expect(errorOf(answer)).toEqual({
        code: 'VALIDATION_ERROR',
        message:
          'endpointId: webhook endpoint merchant-default is set by your operator: ask them to change it',
      })
    }
    expect(await fixture.merchants.getMerchant(fixture.merchant.merchant.merchantId)).toEqual(before)
    expect(json(await fixture.send('GET', DEFAULT))).toMatchObject({ enabled: true })
  })

  it("is not counted toward the merchant's 16 endpoints", async () => {
    await setDefaultUrl('https://shop.example/default')
    for (let index = 0; index < 16; index++) {
      expect((await create({ url: `https://shop.example/hooks/${index}` })).statusCode).toBe(201)
    }
    expect((await create({ url: 'https://shop.example/hooks/16' })).statusCode).toBe(400)
    const listed = json<{ data: Body[] }>(await fixture.send('GET', ENDPOINTS)).data
    expect(listed).toHaveLength(17)
    expect(listed.filter((endpoint) => endpoint.managedBy === 'operator')).toHaveLength(1)
  })
})
