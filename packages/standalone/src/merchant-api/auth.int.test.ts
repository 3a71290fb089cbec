import { createApiKeyAuthenticator, createMerchant, issueApiKey, revokeApiKey } from '@chainpay/admin-api'
import { createManualClock, createSecretBox, generateSecretKey } from '@chainpay/platform'
import type { MerchantStore } from '@chainpay/ports'
import { signApiRequest } from '@chainpay/signing'
import { createSqliteMerchantStore, type DatabaseSync, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { json, type MerchantApiFixture, openMerchantApiFixture } from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const SOME_ID = '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
const validBody = JSON.stringify({ amount: '10.5', currency: 'USDT', network: 'TRON' })

describe('createApiKeyAuthenticator', () => {
  let db: DatabaseSync
  let merchants: MerchantStore
  let lookups: number
  const clock = createManualClock('2030-01-01T00:00:00.000Z')
  const secretBox = createSecretBox(generateSecretKey())

  beforeEach(() => {
    db = openSqliteDatabase(':memory:')
    const store = createSqliteMerchantStore(db)
    lookups = 0
    merchants = {
      ...store,
      findApiKey: (apiKey) => {
        lookups += 1
        return store.findApiKey(apiKey)
      },
    }
  })
  afterEach(() => db.close())

  it('returns the merchant and the opened secret of an active key', async () => {
    const created = await createMerchant({ merchants, secretBox, clock }, { name: 'Shop' })
    const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock })
    const found = await authenticator.authenticate(created.apiKey)
    expect(found?.apiSecret).toBe(created.apiSecret)
    expect(found?.merchant.merchantId).toBe(created.merchant.merchantId)
    expect(await authenticator.authenticate('ck_unknown')).toBeNull()
  })

  it('caches found and missing keys for the TTL, then looks again', async () => {
    const created = await createMerchant({ merchants, secretBox, clock }, { name: 'Shop' })
    const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock, cacheTtlMs: 5_000 })
    await authenticator.authenticate(created.apiKey)
    await authenticator.authenticate('ck_unknown')
    expect(lookups).toBe(2)
    clock.advance(4_999)
    await authenticator.authenticate(created.apiKey)
    await authenticator.authenticate('ck_unknown')
    expect(lookups).toBe(2)
    clock.advance(1)
    await authenticator.authenticate(created.apiKey)
    await authenticator.authenticate('ck_unknown')
    expect(lookups).toBe(4)
  })

  it('refuses a revoked key once the cache forgets it, at once after invalidate', async () => {
    const deps = { merchants, secretBox, clock }
    const created = await createMerchant(deps, { name: 'Shop' })
    const second = await issueApiKey(deps, created.merchant.merchantId)
    const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock, cacheTtlMs: 5_000 })
    expect(await authenticator.authenticate(created.apiKey)).not.toBeNull()
    expect(await authenticator.authenticate(second.apiKey)).not.toBeNull()
    await revokeApiKey(deps, created.merchant.merchantId, created.apiKey)
    await revokeApiKey(deps, created.merchant.merchantId, second.apiKey)
    authenticator.invalidate(created.apiKey)
    expect(await authenticator.authenticate(created.apiKey)).toBeNull()
    // still cached, until the TTL passes
    expect(await authenticator.authenticate(second.apiKey)).not.toBeNull()
    clock.advance(5_000)
    expect(await authenticator.authenticate(second.apiKey)).toBeNull()
  })

  it('keeps at most maxCachedKeys entries', async () => {
    const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock, maxCachedKeys: 2 })
    await authenticator.authenticate('ck_1')
    await authenticator.authenticate('ck_2')
    await authenticator.authenticate('ck_3')
    expect(lookups).toBe(3)
    await authenticator.authenticate('ck_3')
    await authenticator.authenticate('ck_2')
    expect(lookups).toBe(3)
    await authenticator.authenticate('ck_1')
    expect(lookups).toBe(4)
  })
})

describe('authentication over HTTP', () => {
  let fixture: MerchantApiFixture

  beforeEach(async () => {
    fixture = await openMerchantApiFixture()
  })
  afterEach(() => fixture.close())

  const errorOf = (response: { body: string }) =>
    json<{ error: { code: string; message: string } }>(response).error

  it('accepts a correctly signed request', async () => {
    const response = await fixture.send('POST', PAYMENTS, { body: validBody })
    expect(response.statusCode).toBe(201)
  })

  it.each([
    ['x-service-key', 'X-Service-Key'],
    ['x-service-timestamp', 'X-Service-Timestamp'],
    ['x-service-signature', 'X-Service-Signature'],
  ])('answers 401 MISSING_AUTH_HEADERS without %s, naming it', async (header, display) => {
    const response = await fixture.send('POST', PAYMENTS, {
      body: validBody,
      headers: { [header]: undefined },
    })
    expect(response.statusCode).toBe(401)
    expect(errorOf(response)).toEqual({ code: 'MISSING_AUTH_HEADERS', message: `missing header: ${display}` })
  })

  it('treats an empty header as missing', async () => {
    const response = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { headers: { 'x-service-key': '' } })
    expect(errorOf(response).code).toBe('MISSING_AUTH_HEADERS')
  })

  it.each(['1.5e12', 'abc', '-1', '12345678901234567'])(
    'answers 401 INVALID_TIMESTAMP for a timestamp that is not Unix milliseconds: %j',
    async (timestamp) => {
      const response = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { timestamp })
      expect(response.statusCode).toBe(401)
      expect(errorOf(response).code).toBe('INVALID_TIMESTAMP')
    },
  )

  it('accepts a timestamp up to 5 minutes either way and refuses one a millisecond beyond', async () => {
    const now = fixture.clock.now().getTime()
    const at = async (offsetMs: number) =>
      (await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { timestamp: String(now + offsetMs) })).statusCode
    expect(await at(300_000)).toBe(404)
    expect(await at(-300_000)).toBe(404)
    expect(await at(300_001)).toBe(401)
    expect(await at(-300_001)).toBe(401)
    const late = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { timestamp: String(now - 300_001) })
    expect(errorOf(late)).toEqual({
      code: 'INVALID_TIMESTAMP',
      message: 'X-Service-Timestamp: more than 5 minutes away from the server clock',
    })
  })

  it('answers 401 INVALID_API_KEY for an unknown key', async () => {
    const response = await fixture.send('POST', PAYMENTS, {
      body: validBody,
      credentials: { apiKey: 'ck_unknown', apiSecret: fixture.merchant.apiSecret },
    })
    expect(response.statusCode).toBe(401)
    expect(errorOf(response).code).toBe('INVALID_API_KEY')
  })

  it("answers 401 INVALID_API_KEY for a revoked key, while the merchant's other key still works", async () => {
    const deps = { merchants: fixture.merchants, secretBox: fixture.secretBox, clock: fixture.clock }
    const merchantId = fixture.merchant.merchant.merchantId
    const second = await issueApiKey(deps, merchantId)
    await revokeApiKey(deps, merchantId, fixture.merchant.apiKey)
    fixture.authenticator.invalidate(fixture.merchant.apiKey)
    const revoked = await fixture.send('POST', PAYMENTS, { body: validBody })
    expect(revoked.statusCode).toBe(401)
    expect(errorOf(revoked).code).toBe('INVALID_API_KEY')
    const rotated = await fixture.send('POST', PAYMENTS, { body: validBody, credentials: second })
    expect(rotated.statusCode).toBe(201)
  })

  it('answers 401 INVALID_SIGNATURE for a signature made with another secret', async () => {
    const response = await fixture.send('POST', PAYMENTS, {
      body: validBody,
      credentials: { apiKey: fixture.merchant.apiKey, apiSecret: fixture.otherMerchant.apiSecret },
    })
    expect(response.statusCode).toBe(401)
    expect(errorOf(response)).toEqual({
      code: 'INVALID_SIGNATURE',
      message: 'X-Service-Signature: does not match the request',
    })
  })

  it('checks the signature before the body: a bad signature with malformed JSON is 401, not 400', async () => {
    const response = await fixture.send('POST', PAYMENTS, { body: '{"amount":', sign: { body: 'other' } })
    expect(response.statusCode).toBe(401)
    expect(errorOf(response).code).toBe('INVALID_SIGNATURE')
  })

  it('checks the signature before the media type: a bad signature with text/plain is 401, not 415', async () => {
    const response = await fixture.send('POST', PAYMENTS, {
      body: validBody,
      contentType: 'text/plain',
      sign: { body: '' },
    })
    expect(response.statusCode).toBe(401)
  })

  it('checks the signature before validation: a bad signature with an invalid body is 401', async () => {
    const response = await fixture.send('POST', PAYMENTS, { body: '{"foo":1}', sign: { method: 'PUT' } })
    expect(response.statusCode).toBe(401)
  })

  it('signs the exact request target, query string included', async () => {
    const url = `${PAYMENTS}/${SOME_ID}?expand=none&b=%20x`
    expect((await fixture.send('GET', url)).statusCode).toBe(404)
    const withoutQuery = await fixture.send('GET', url, { sign: { path: `${PAYMENTS}/${SOME_ID}` } })
    expect(withoutQuery.statusCode).toBe(401)
    const decoded = await fixture.send('GET', url, {
      sign: { path: `${PAYMENTS}/${SOME_ID}?expand=none&b= x` },
    })
    expect(decoded.statusCode).toBe(401)
  })

  it('verifies the body bytes as sent, not a re-serialization of the JSON', async () => {
    // spacing, key order and an escaped character that JSON.stringify would write differently
    const asSent =
      '{ "network": "TRON",\n  "currency": "USDT", "amount": "10.5", "description": "caf\\u00e9 ☕" }'
    const created = await fixture.send('POST', PAYMENTS, { body: asSent })
    expect(created.statusCode, created.body).toBe(201)
    expect(json(created)).toMatchObject({ amount: '10.5', currency: 'USDT' })
    const reserialized = await fixture.send('POST', PAYMENTS, {
      body: asSent,
      sign: { body: JSON.stringify(JSON.parse(asSent)) },
    })
    expect(reserialized.statusCode).toBe(401)
    expect(errorOf(reserialized).code).toBe('INVALID_SIGNATURE')
  })

  it('signs the method as sent, in upper case', async () => {
    const response = await fixture.send('POST', PAYMENTS, { body: validBody, sign: { method: 'GET' } })
    expect(response.statusCode).toBe(401)
  })

  it('accepts the signature in upper-case hex', async () => {
    const timestamp = String(fixture.clock.now().getTime())
    const signature = signApiRequest(fixture.merchant.apiSecret, {
      timestamp,
      method: 'POST',
      path: PAYMENTS,
      body: validBody,
    }).toUpperCase()
    const response = await fixture.app.inject({
      method: 'POST',
      url: PAYMENTS,
      payload: validBody,
      headers: {
        'content-type': 'application/json',
        'x-service-key': fixture.merchant.apiKey,
        'x-service-timestamp': timestamp,
        'x-service-signature': signature,
      },
    })
    expect(response.statusCode).toBe(201)
  })

  it('signs a GET body too, and ignores it otherwise', async () => {
    const url = `${PAYMENTS}/${SOME_ID}`
    const signedBody = await fixture.send('GET', url, { body: 'not json at all', contentType: 'text/plain' })
    expect(signedBody.statusCode).toBe(404)
    const unsignedBody = await fixture.send('GET', url, { body: 'not json at all', sign: { body: '' } })
    expect(unsignedBody.statusCode).toBe(401)
  })

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a signed body that is not application/json', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      const response = await fixture.send('POST', PAYMENTS, { body: validBody, contentType })
      expect(response.statusCode).toBe(415)
      expect(errorOf(response)).toEqual({
        code: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Content-Type: must be application/json',
      })
    }
  })

  it.each([
    'application/json; charset=utf-8',
    'Application/JSON;charset=UTF-8',
    'application/json; charset="utf-8"',
  ])('accepts %s', async (contentType) => {
    const response = await fixture.send('POST', PAYMENTS, { body: validBody, contentType })
    expect(response.statusCode).toBe(201)
  })

  // docs/api.md, "Conventions": any other charset would be read as UTF-8, that is, as something else
  it.each([
    'application/json; charset=utf-16',
    'application/json; charset=UTF-16LE',
    'application/json; charset=iso-8859-1',
    'application/json; charset="latin1"',
    'application/json; charset=',
  ])('answers 415 UNSUPPORTED_MEDIA_TYPE for %s', async (contentType) => {
    const response = await fixture.send('POST', PAYMENTS, { body: validBody, contentType })
    expect(response.statusCode).toBe(415)
    expect(errorOf(response)).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type: charset must be utf-8',
    })
  })

  it('verifies the signature over the bytes as sent, and then refuses a body that is not UTF-8', async () => {
    // "\xff" is no UTF-8: read as text it would be U+FFFD, like any other such byte
    const bytes = Buffer.concat([
      Buffer.from('{"amount":"10.5","currency":"USDT","network":"TRON","idempotencyKey":"order-'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ])
    const response = await fixture.send('POST', PAYMENTS, { body: bytes })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be valid UTF-8' })
    const signedAsText = await fixture.send('POST', PAYMENTS, {
      body: bytes,
      sign: { body: bytes.toString('utf8') },
    })
    expect(signedAsText.statusCode).toBe(401)
  })

  it('answers 400 VALIDATION_ERROR for malformed JSON that is correctly signed', async () => {
    const response = await fixture.send('POST', PAYMENTS, { body: '{"amount": "10.5",' })
    expect(response.statusCode).toBe(400)
    expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: 'body: malformed JSON' })
  })

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 64 KiB, before anything else', async () => {
    const huge = JSON.stringify({
      amount: '1',
      currency: 'USDT',
      network: 'TRON',
      description: 'x'.repeat(70_000),
    })
    const signed = await fixture.send('POST', PAYMENTS, { body: huge })
    expect(signed.statusCode).toBe(413)
    expect(errorOf(signed)).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'body: larger than the limit of 64 KiB',
    })
    const unsigned = await fixture.app.inject({
      method: 'POST',
      url: PAYMENTS,
      payload: huge,
      headers: { 'content-type': 'application/json' },
    })
    expect(unsigned.statusCode).toBe(413)
    const justUnder = JSON.stringify({
      amount: '1',
      currency: 'USDT',
      network: 'TRON',
      x: 'y'.repeat(65_000),
    })
    expect(Buffer.byteLength(justUnder)).toBeLessThan(64 * 1024)
    // within the limit, the body is read and validated (the unknown field is the problem)
    expect(errorOf(await fixture.send('POST', PAYMENTS, { body: justUnder })).code).toBe('VALIDATION_ERROR')
  })

  it('answers 413 for a GET body over 64 KiB', async () => {
    const response = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { body: 'x'.repeat(70_000) })
    expect(response.statusCode).toBe(413)
  })

  it('leaves the OpenAPI document, health and readiness unauthenticated', async () => {
    for (const url of ['/api/merchant/v1/openapi.json', '/healthz', '/readyz']) {
      expect((await fixture.app.inject({ method: 'GET', url })).statusCode).toBe(200)
    }
  })
})
