// A merchant's API keys (docs/operations.md, "API keys") through the admin API and the merchant
// API together: a roll gives a new key whose secret is shown once and stored sealed, the old key is
// accepted until its end of overlap and refused after it (401 INVALID_API_KEY), a revoked key at once.

import { apiSecretContext } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_ADMIN_TOKEN,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const SOME_PAYMENT = '/api/merchant/v1/payments/0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
const HOUR_MS = 3_600_000

interface ApiKeyView {
  apiKey: string
  status: string
  expiresAt: string | null
  revokedAt: string | null
}

describe('API keys: create, roll with an overlap, revoke', () => {
  let fixture: MerchantApiFixture
  let merchantId: string

  beforeEach(async () => {
    fixture = await openMerchantApiFixture()
    merchantId = fixture.merchant.merchant.merchantId
  })
  afterEach(() => fixture.close())

  const admin = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    fixture.adminApp.inject({
      method,
      url: `/admin/v1/merchants/${merchantId}${url}`,
      headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    })
  /** the merchant API's answer to a request signed with the key: 404 passed authentication */
  const signedWith = async (credentials: { apiKey: string; apiSecret: string }) => {
    const response = await fixture.send('GET', SOME_PAYMENT, { credentials })
    return response.statusCode === 401
      ? `401 ${json<{ error: { code: string } }>(response).error.code}`
      : response.statusCode
  }
  const keys = async () => json<{ apiKeys: ApiKeyView[] }>(await admin('GET', '/api-keys')).apiKeys

  it('accepts the rolled key until its end of overlap and refuses it after; the new key works on', async () => {
    const old = { apiKey: fixture.merchant.apiKey, apiSecret: fixture.merchant.apiSecret }
    expect(await signedWith(old)).toBe(404)

    // a new key a second later: keys list oldest first (keys of the same millisecond by id)
    fixture.clock.advance(1_000)
    const rolled = await admin('POST', `/api-keys/${old.apiKey}/roll`, { overlapHours: 2 })
    expect(rolled.statusCode).toBe(201)
    const answer = json<{ apiKey: string; apiSecret: string; rolled: { apiKey: string; expiresAt: string } }>(
      rolled,
    )
    const expiresAt = new Date(fixture.clock.now().getTime() + 2 * HOUR_MS).toISOString()
    expect(answer.rolled).toEqual({ apiKey: old.apiKey, expiresAt })
    const fresh = { apiKey: answer.apiKey, apiSecret: answer.apiSecret }

    // the secret is shown this once: stored sealed to its key, never in plain text, never listed
    const stored = await fixture.merchants.findApiKey(fresh.apiKey)
    expect(stored?.secret).not.toContain(fresh.apiSecret)
    expect(
      fixture.secretBox.open(stored?.secret ?? '', apiSecretContext({ apiKey: fresh.apiKey, merchantId })),
    ).toBe(fresh.apiSecret)
    expect(JSON.stringify(await keys())).not.toContain(fresh.apiSecret)
    expect(await keys()).toEqual([
      expect.objectContaining({ apiKey: old.apiKey, status: 'expiring', expiresAt, revokedAt: null }),
      expect.objectContaining({ apiKey: fresh.apiKey, status: 'active', expiresAt: null }),
    ])

    // within the overlap, both keys sign
    fixture.clock.advance(2 * HOUR_MS - 1)
    expect(await signedWith(old)).toBe(404)
    expect(await signedWith(fresh)).toBe(404)

    // from its end of overlap on, the old key is refused, though the authenticator cached it
    fixture.clock.advance(1)
    expect(await signedWith(old)).toBe('401 INVALID_API_KEY')
    expect(await signedWith(fresh)).toBe(404)
    expect((await keys())[0]).toEqual(expect.objectContaining({ apiKey: old.apiKey, status: 'expired' }))

    // an expired key is not rolled again
    const again = await admin('POST', `/api-keys/${old.apiKey}/roll`, {})
    expect(again.statusCode).toBe(404)
  })

  it('refuses a revoked key at once, also within a roll overlap', async () => {
    const old = { apiKey: fixture.merchant.apiKey, apiSecret: fixture.merchant.apiSecret }
    fixture.clock.advance(1_000)
    const rolled = json<{ apiKey: string; apiSecret: string }>(
      await admin('POST', `/api-keys/${old.apiKey}/roll`, {}),
    )
    expect(await signedWith(old)).toBe(404)
    const revoked = await admin('POST', `/api-keys/${old.apiKey}/revoke`)
    expect(revoked.statusCode).toBe(200)
    expect(await signedWith(old)).toBe('401 INVALID_API_KEY')
    expect(await signedWith(rolled)).toBe(404)
    expect((await keys())[0]).toEqual(expect.objectContaining({ apiKey: old.apiKey, status: 'revoked' }))
  })

  it('creates several keys, each shown once, each working', async () => {
    const created = await Promise.all([admin('POST', '/api-keys'), admin('POST', '/api-keys')])
    const [second, third] = created.map((response) => json<{ apiKey: string; apiSecret: string }>(response))
    expect(created.map((response) => response.statusCode)).toEqual([201, 201])
    expect(await signedWith(second as { apiKey: string; apiSecret: string })).toBe(404)
    expect(await signedWith(third as { apiKey: string; apiSecret: string })).toBe(404)
    expect((await keys()).map((key) => key.status)).toEqual(['active', 'active', 'active'])
  })

  it("refuses a roll of another merchant's key, of an unknown key, and a bad overlap", async () => {
    const other = fixture.otherMerchant.apiKey
    expect((await admin('POST', `/api-keys/${other}/roll`, {})).statusCode).toBe(404)
    expect((await admin('POST', '/api-keys/ck_unknown/roll', {})).statusCode).toBe(404)
    const tooLong = await admin('POST', `/api-keys/${fixture.merchant.apiKey}/roll`, { overlapHours: 721 })
    expect(tooLong.statusCode).toBe(400)
    expect(json<{ error: { code: string } }>(tooLong).error.code).toBe('VALIDATION_ERROR')
    expect((await keys()).map((key) => key.status)).toEqual(['active'])
    const unknown = await fixture.adminApp.inject({
      method: 'GET',
      url: '/admin/v1/merchants/mer_unknown/api-keys',
      headers: { authorization: `Bearer ${FIXTURE_ADMIN_TOKEN}` },
    })
    expect(unknown.statusCode).toBe(404)
  })
})
