import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { checkApiTimestamp, signWebhook, verifyApiSignature } from '@chainpay/signing'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createMerchantClient, verifyWebhook } from './index.js'

const apiKey = 'pk_test_client'
const apiSecret = 'sk_test_7Hq2mV9xR4pL8wN3'
const fixedNow = 1_763_733_787_123

interface SeenRequest {
  method: string
  target: string
  headers: IncomingHttpHeaders
  body: string
  signatureValid: boolean
  timestamp: string
}

// A stand-in merchant API that verifies every request's signature the way the gateway does and
// answers with what it saw, so the tests check the client against the signing rule itself.
let server: Server
let baseUrl: string
let seen: SeenRequest[] = []
let reply: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' }

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const timestamp = String(req.headers['x-service-timestamp'] ?? '')
      const signature = String(req.headers['x-service-signature'] ?? '')
      const request = { timestamp, method: req.method ?? '', path: req.url ?? '', body }
      const signatureValid =
        req.headers['x-service-key'] === apiKey &&
        checkApiTimestamp(timestamp, fixedNow) === 'ok' &&
        verifyApiSignature(apiSecret, request, signature)
      seen.push({
        method: request.method,
        target: request.path,
        headers: req.headers,
        body,
        signatureValid,
        timestamp,
      })
      if (!signatureValid) {
        res.writeHead(401, { 'content-type': 'application/json' })
        res.end('{"error":{"code":"INVALID_SIGNATURE","message":"signature mismatch"}}')
        return
      }
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
      res.end(reply.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  baseUrl = `http://127.0.0.1:${port}/api/merchant/v1`
})

afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
})

beforeEach(() => {
  seen = []
  reply = { status: 200, body: '{}' }
})

const client = () => createMerchantClient({ baseUrl, apiKey, apiSecret, now: () => fixedNow })

describe('createMerchantClient', () => {
  it('signs a create request and returns status, headers and parsed body', async () => {
    reply = {
      status: 201,
      body: '{"paymentId":"p1","status":"pending"}',
      headers: { location: '/api/merchant/v1/payments/p1' },
    }
    const body = { amount: '10.50', currency: 'USDT', network: 'TRON', metadata: { note: 'Café ☕' } }
    const response = await client().createPayment(body)
    expect(response).toMatchObject({
      status: 201,
      headers: { location: '/api/merchant/v1/payments/p1', 'content-type': 'application/json' },
      body: { paymentId: 'p1', status: 'pending' },
    })
    const [request] = seen
    expect(request).toMatchObject({
      method: 'POST',
      target: '/api/merchant/v1/payments',
      body: JSON.stringify(body),
      signatureValid: true,
      timestamp: String(fixedNow),
    })
    expect(request?.headers['content-type']).toBe('application/json')
  })

  it('sends a raw body verbatim, signed as sent', async () => {
    const rawBody = '{"amount": "1",  "currency":"SOL","network":"SOLANA"}'
    await client().createPayment({ amount: '0', currency: 'X', network: 'Y' }, { rawBody })
    expect(seen[0]).toMatchObject({ body: rawBody, signatureValid: true })
  })

  it('signs a GET with an empty body and no content type', async () => {
    await client().getPayment('0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b')
    expect(seen[0]).toMatchObject({
      method: 'GET',
      target: '/api/merchant/v1/payments/0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b',
      body: '',
      signatureValid: true,
    })
    expect(seen[0]?.headers['content-type']).toBeUndefined()
  })

  it('encodes an id that is not URL-safe and signs the encoded target', async () => {
    await client().getPayment('not a/uuid')
    expect(seen[0]).toMatchObject({
      target: '/api/merchant/v1/payments/not%20a%2Fuuid',
      signatureValid: true,
    })
  })

  it('cancels with no body, or with the body given', async () => {
    await client().cancelPayment('p1')
    await client().cancelPayment('p1', { body: '{}' })
    expect(
      seen.map(({ method, target, body, signatureValid }) => ({ method, target, body, signatureValid })),
    ).toEqual([
      { method: 'POST', target: '/api/merchant/v1/payments/p1/cancel', body: '', signatureValid: true },
      { method: 'POST', target: '/api/merchant/v1/payments/p1/cancel', body: '{}', signatureValid: true },
    ])
  })

  it('signs the query string as part of the path', async () => {
    await client().request('get', '/payments?status=pending&limit=10')
    expect(seen[0]).toMatchObject({
      method: 'GET',
      target: '/api/merchant/v1/payments?status=pending&limit=10',
      signatureValid: true,
    })
  })

  it('accepts a base URL with a trailing slash', async () => {
    const trailing = createMerchantClient({ baseUrl: `${baseUrl}/`, apiKey, apiSecret, now: () => fixedNow })
    await trailing.getPayment('p1')
    expect(seen[0]).toMatchObject({ target: '/api/merchant/v1/payments/p1', signatureValid: true })
  })

  it('returns HTTP errors without throwing', async () => {
    reply = { status: 404, body: '{"error":{"code":"PAYMENT_NOT_FOUND","message":"no payment p2"}}' }
    const response = await client().getPayment('p2')
    expect(response.status).toBe(404)
    expect(response.body).toEqual({ error: { code: 'PAYMENT_NOT_FOUND', message: 'no payment p2' } })
  })

  it('returns text that is not JSON as text, and an empty body as null', async () => {
    reply = { status: 502, body: 'Bad Gateway' }
    expect((await client().getPayment('p1')).body).toBe('Bad Gateway')
    reply = { status: 204, body: '' }
    expect((await client().getPayment('p1')).body).toBeNull()
  })

  it('lets extra headers replace the signature', async () => {
    const response = await client().request('GET', '/payments/p1', undefined, {
      'X-Service-Signature': '0'.repeat(64),
      'X-Request-Id': 'req-1',
    })
    expect(response.status).toBe(401)
    expect(seen[0]).toMatchObject({ signatureValid: false })
    expect(seen[0]?.headers['x-request-id']).toBe('req-1')
  })

  it('uses the clock for the timestamp, so a skewed clock is rejected', async () => {
    const skewed = createMerchantClient({ baseUrl, apiKey, apiSecret, now: () => fixedNow - 300_001 })
    const response = await skewed.getPayment('p1')
    expect(response.status).toBe(401)
  })
})

describe('verifyWebhook', () => {
  it("is re-exported from the signing package, and checks the body's id against X-Event-Id", () => {
    const rawBody = '{"id":"evt_1","event":"payment.pending"}'
    const signature = signWebhook('whsec_1', 1_763_733_787, rawBody)
    const signed = { rawBody, signature, timestamp: '1763733787' }
    expect(verifyWebhook('whsec_1', { ...signed, eventId: 'evt_1' }, 1_763_733_787)).toEqual({ ok: true })
    expect(verifyWebhook('whsec_1', { ...signed, eventId: 'evt_2' }, 1_763_733_787)).toEqual({
      ok: false,
      reason: 'event_id_mismatch',
    })
  })
})
