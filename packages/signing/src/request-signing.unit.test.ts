import { describe, expect, it } from 'vitest'
import {
  API_CLOCK_SKEW_MS,
  type ApiRequestToSign,
  apiAuthHeaders,
  apiSigningMessage,
  checkApiTimestamp,
  signApiRequest,
  verifyApiSignature,
} from './request-signing.js'

const secret = 'sk_test_7Hq2mV9xR4pL8wN3'
const timestamp = '1763733787123'
const paymentPath = '/api/merchant/v1/payments/0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b'

const createRequest: ApiRequestToSign = {
  timestamp,
  method: 'POST',
  path: '/api/merchant/v1/payments',
  body: '{"amount":"10.50","currency":"USDT","network":"TRON","idempotencyKey":"order-1042"}',
}

// Expected signatures were computed with openssl, independently of this package, e.g.
//   printf '%s' '<timestamp>.<METHOD>.<path>.<body>' | openssl dgst -sha256 -hmac 'sk_test_7Hq2mV9xR4pL8wN3'
const vectors: { name: string; request: ApiRequestToSign; signature: string }[] = [
  {
    // printf '%s' '1763733787123.POST./api/merchant/v1/payments.{"amount":"10.50","currency":"USDT","network":"TRON","idempotencyKey":"order-1042"}' | openssl dgst -sha256 -hmac 'sk_test_7Hq2mV9xR4pL8wN3'
    name: 'POST create with a JSON body',
    request: createRequest,
    signature: '57e81e7100d7b01c7e06c07be161a0d84d23ed2ab5878d40824f795f9d042bbb',
  },
  {
    // printf '%s' '1763733787123.GET./api/merchant/v1/payments/0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b.' | openssl dgst -sha256 -hmac 'sk_test_7Hq2mV9xR4pL8wN3'
    name: 'GET with an empty body',
    request: { timestamp, method: 'GET', path: paymentPath, body: '' },
    signature: '1f5da62a9cfd2e2b9f539eddac77c0eab798929d6aeef267ba9b0bd6a2428471',
  },
  {
    // printf '%s' '1763733787123.GET./api/merchant/v1/payments/0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b?expand=transfers&lang=en.' | openssl dgst -sha256 -hmac 'sk_test_7Hq2mV9xR4pL8wN3'
    name: 'path with a query string',
    request: { timestamp, method: 'GET', path: `${paymentPath}?expand=transfers&lang=en`, body: '' },
    signature: 'c0273634bc57db5217643bdfa5e3e83070be0cd952c7cc7ab25b559e35ba43e2',
  },
  {
    // printf '%s' '1763733787123.POST./api/merchant/v1/payments.{"amount":"1","currency":"SOL","network":"SOLANA","description":"Café ☕ 東京 — 5€"}' | openssl dgst -sha256 -hmac 'sk_test_7Hq2mV9xR4pL8wN3'
    name: 'UTF-8 body with non-ASCII characters',
    request: {
      timestamp,
      method: 'POST',
      path: '/api/merchant/v1/payments',
      body: '{"amount":"1","currency":"SOL","network":"SOLANA","description":"Café ☕ 東京 — 5€"}',
    },
    signature: 'c7ce124caa2c7e43b4f57b0f18e05d5ddeee669dd98e1a244b2836267325910d',
  },
]

describe('apiSigningMessage', () => {
  it('joins timestamp, upper-case method, path and body with dots', () => {
    expect(apiSigningMessage({ timestamp: '1', method: 'post', path: '/p?q=1', body: '{}' })).toBe(
      '1.POST./p?q=1.{}',
    )
  })

  it('ends with a dot when there is no body', () => {
    expect(apiSigningMessage({ timestamp: '1', method: 'GET', path: '/p', body: '' })).toBe('1.GET./p.')
  })
})

describe('signApiRequest', () => {
  for (const vector of vectors) {
    it(`matches the openssl vector: ${vector.name}`, () => {
      expect(signApiRequest(secret, vector.request)).toBe(vector.signature)
    })
  }
})

describe('verifyApiSignature', () => {
  for (const vector of vectors) {
    it(`accepts the openssl vector: ${vector.name}`, () => {
      expect(verifyApiSignature(secret, vector.request, vector.signature)).toBe(true)
    })
  }

  const good = vectors[0]?.signature ?? ''

  it('verifies a body given as bytes over the bytes themselves, those that are not UTF-8 included', () => {
    for (const vector of vectors) {
      const bytes = { ...vector.request, body: Buffer.from(vector.request.body, 'utf8') }
      expect(verifyApiSignature(secret, bytes, vector.signature)).toBe(true)
    }
    // printf '%s' '1763733787123.POST./api/merchant/v1/payments.{"k":"a' > m; printf '\xff"}' >> m
    // openssl dgst -sha256 -hmac 'sk_test_7Hq2mV9xR4pL8wN3' < m
    const notUtf8 = Buffer.concat([Buffer.from('{"k":"a'), Buffer.from([0xff]), Buffer.from('"}')])
    const request = { timestamp, method: 'POST', path: '/api/merchant/v1/payments', body: notUtf8 }
    const signature = 'fa0c26823f8a1c78cb169f5e7425fffe9150b61f892f7ec73eb917e13efb6e1f'
    expect(verifyApiSignature(secret, request, signature)).toBe(true)
    // read as text, the byte would be U+FFFD: another message
    expect(verifyApiSignature(secret, { ...request, body: notUtf8.toString('utf8') }, signature)).toBe(false)
  })

  it('accepts upper-case hex', () => {
    expect(verifyApiSignature(secret, createRequest, good.toUpperCase())).toBe(true)
  })

  it('rejects a signature made with another secret', () => {
    expect(verifyApiSignature('sk_test_other', createRequest, good)).toBe(false)
  })

  it.each([
    ['method', { ...createRequest, method: 'PUT' }],
    ['path', { ...createRequest, path: '/api/merchant/v1/payments?x=1' }],
    ['body', { ...createRequest, body: createRequest.body.replace('10.50', '10.51') }],
    ['timestamp', { ...createRequest, timestamp: '1763733787124' }],
  ])('rejects the signature when the %s differs', (_part, request) => {
    expect(verifyApiSignature(secret, request, good)).toBe(false)
  })

  it.each([
    ['empty', ''],
    ['truncated', good.slice(0, 63)],
    ['one hex digit too many', `${good}0`],
    ['non-hex character', `${good.slice(0, 63)}g`],
    ['hex with a trailing space', `${good.slice(0, 63)} `],
    ['base64 of the digest', Buffer.from(good, 'hex').toString('base64')],
    ['twice as long', `${good}${good}`],
  ])('rejects a malformed signature (%s) without throwing', (_case, signature) => {
    expect(verifyApiSignature(secret, createRequest, signature)).toBe(false)
  })
})

describe('checkApiTimestamp', () => {
  const now = 1_763_733_787_123

  it('accepts the current time', () => {
    expect(checkApiTimestamp(String(now), now)).toBe('ok')
  })

  it('accepts exactly 5 minutes either way', () => {
    expect(checkApiTimestamp(String(now - API_CLOCK_SKEW_MS), now)).toBe('ok')
    expect(checkApiTimestamp(String(now + API_CLOCK_SKEW_MS), now)).toBe('ok')
  })

  it('rejects one millisecond beyond 5 minutes either way', () => {
    expect(checkApiTimestamp(String(now - API_CLOCK_SKEW_MS - 1), now)).toBe('outside_window')
    expect(checkApiTimestamp(String(now + API_CLOCK_SKEW_MS + 1), now)).toBe('outside_window')
  })

  it('honours a custom skew', () => {
    expect(checkApiTimestamp(String(now - 1001), now, 1000)).toBe('outside_window')
    expect(checkApiTimestamp(String(now - 1000), now, 1000)).toBe('ok')
  })

  it('rejects Unix seconds as far outside the window', () => {
    expect(checkApiTimestamp(String(Math.floor(now / 1000)), now)).toBe('outside_window')
  })

  it.each([
    ['empty', ''],
    ['negative', '-1763733787123'],
    ['float', '1763733787123.5'],
    ['exponent', '1.763733787123e12'],
    ['non-integer text', 'now'],
    ['leading plus', '+1763733787123'],
    ['surrounding spaces', ' 1763733787123 '],
    ['hex', '0x19a9'],
    ['absurdly long', '9'.repeat(40)],
  ])('rejects a %s timestamp as malformed', (_case, timestamp) => {
    expect(checkApiTimestamp(timestamp, now)).toBe('malformed')
  })
})

describe('apiAuthHeaders', () => {
  it('sends key, millisecond timestamp and a signature the server verifies', () => {
    const now = 1_763_733_787_123
    const headers = apiAuthHeaders(
      { apiKey: 'pk_test_1', apiSecret: secret },
      { method: 'POST', path: createRequest.path, body: createRequest.body },
      now,
    )
    expect(headers['X-Service-Key']).toBe('pk_test_1')
    expect(headers['X-Service-Timestamp']).toBe(timestamp)
    expect(headers['X-Service-Signature']).toBe(vectors[0]?.signature)
  })

  it('drops fractions of a millisecond from the timestamp', () => {
    const headers = apiAuthHeaders(
      { apiKey: 'pk', apiSecret: secret },
      { method: 'GET', path: '/p', body: '' },
      1000.9,
    )
    expect(headers['X-Service-Timestamp']).toBe('1000')
    expect(checkApiTimestamp(headers['X-Service-Timestamp'] ?? '', 1000)).toBe('ok')
  })
})
