// The SDK signs through Web Crypto; node:crypto, a separate implementation, checks it.
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { hmacSha256Hex, hmacSha256Matches, signRequest } from './signing.js'

const hmac = (secret: string, message: string) =>
  createHmac('sha256', secret).update(message, 'utf8').digest('hex')

describe('request signing', () => {
  it('signs timestamp.METHOD.path.body with the API secret, lower-case hex', async () => {
    const body = '{"amount":"25.5","currency":"USDT","network":"TRON","description":"café ☕"}'
    const headers = await signRequest(
      { apiKey: 'ck_test', apiSecret: 'cs_sécret' },
      { method: 'post', path: '/api/merchant/v1/payments?x=1', body },
      1_795_356_187_123.9,
    )
    expect(headers).toEqual({
      'x-service-key': 'ck_test',
      'x-service-timestamp': '1795356187123',
      'x-service-signature': hmac('cs_sécret', `1795356187123.POST./api/merchant/v1/payments?x=1.${body}`),
    })
  })

  it('signs an empty body as the empty string', async () => {
    const headers = await signRequest(
      { apiKey: 'k', apiSecret: 's' },
      { method: 'GET', path: '/p', body: '' },
      1,
    )
    expect(headers['x-service-signature']).toBe(hmac('s', '1.GET./p.'))
  })
})

describe('HMAC comparison', () => {
  it('accepts the signature in either case and refuses any other', async () => {
    const signature = await hmacSha256Hex('secret', 'message')
    expect(signature).toBe(hmac('secret', 'message'))
    expect(await hmacSha256Matches('secret', 'message', signature)).toBe(true)
    expect(await hmacSha256Matches('secret', 'message', signature.toUpperCase())).toBe(true)
    expect(await hmacSha256Matches('secret', 'message!', signature)).toBe(false)
    expect(await hmacSha256Matches('other', 'message', signature)).toBe(false)
    expect(await hmacSha256Matches('secret', 'message', signature.slice(0, 62))).toBe(false)
    expect(await hmacSha256Matches('secret', 'message', `${signature.slice(0, 62)}zz`)).toBe(false)
  })
})
