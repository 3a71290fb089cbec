import { rmSync } from 'node:fs'
import { buildGatewayApp } from '@chainpay/gateway'
import { openSqliteCommandSide } from '@chainpay/payment-command/testing'
import { createRootLogger } from '@chainpay/platform'
import { type PaymentCommands, UnavailableError } from '@chainpay/ports'
import type { HttpRequestObservation, MetricsExposition } from '@chainpay/service-kit'
import { signApiRequest } from '@chainpay/signing'
import { createSqlitePaymentReadModel, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { json, type MerchantApiFixture, openMerchantApiFixture } from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const SOME_ID = '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
const base = { amount: '10.5', currency: 'USDT', network: 'TRON' }
const errorOf = (response: { body: string }) =>
  json<{ error: { code: string; message: string } }>(response).error

let fixture: MerchantApiFixture

afterEach(() => fixture.close())

/** PaymentCommands whose every call fails with `error` */
function failingCommands(error: () => Error): () => PaymentCommands {
  return () => ({
    createPayment: async () => {
      throw error()
    },
    cancelPayment: async () => {
      throw error()
    },
    getPayment: async () => {
      throw error()
    },
    recordSweep: async () => {
      throw error()
    },
    getPaymentHistory: async () => {
      throw error()
    },
  })
}

describe('routing', () => {
  it('answers unknown routes with 404 NOT_FOUND in the error body format', async () => {
    fixture = await openMerchantApiFixture()
    for (const url of ['/', '/api/merchant/v2/payments', `${PAYMENTS}/${SOME_ID}/refund?x=1`]) {
      const response = await fixture.app.inject({ method: 'GET', url })
      expect(response.statusCode).toBe(404)
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'NOT_FOUND', message: `no route for GET ${url.split('?')[0]}` },
      })
      expect(response.headers['x-request-id']).toBeTruthy()
    }
  })

  it("issues no keys and manages no merchants: that is the operator's admin API, not the merchant API", async () => {
    fixture = await openMerchantApiFixture()
    const signed: Array<[string, string]> = [
      ['POST', '/api/merchant/v1/api-keys'],
      ['POST', '/api/merchant/v1/keys'],
      ['POST', '/api/merchant/v1/merchants'],
      ['GET', '/api/merchant/v1/merchants'],
    ]
    for (const [method, url] of signed) {
      const response = await fixture.send(method, url, method === 'POST' ? { body: '{}' } : {})
      expect(response.statusCode, `${method} ${url}`).toBe(404)
      expect(errorOf(response).code).toBe('NOT_FOUND')
    }
    const admin = await fixture.app.inject({ method: 'POST', url: '/admin/v1/merchants', payload: {} })
    expect(admin.statusCode).toBe(404)
  })

  it('answers a known path with another method with 405 METHOD_NOT_ALLOWED and Allow', async () => {
    fixture = await openMerchantApiFixture()
    const cases: Array<[string, string, string]> = [
      ['DELETE', PAYMENTS, 'GET, POST, HEAD'],
      ['POST', `${PAYMENTS}/${SOME_ID}/events`, 'GET, HEAD'],
      ['DELETE', `${PAYMENTS}/${SOME_ID}`, 'GET, HEAD'],
      ['PUT', `${PAYMENTS}/${SOME_ID}`, 'GET, HEAD'],
      ['GET', `${PAYMENTS}/${SOME_ID}/cancel`, 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
    ]
    for (const [method, url, allow] of cases) {
      const response = await fixture.app.inject({ method: method as 'GET', url })
      expect(response.statusCode, `${method} ${url}`).toBe(405)
      expect(response.headers.allow).toBe(allow)
      expect(errorOf(response).code).toBe('METHOD_NOT_ALLOWED')
      expect(response.headers['x-request-id']).toBeTruthy()
    }
  })
})

describe('X-Request-Id', () => {
  it('echoes a sane caller id on success and on errors', async () => {
    fixture = await openMerchantApiFixture()
    const created = await fixture.send('POST', PAYMENTS, {
      body: JSON.stringify(base),
      headers: { 'x-request-id': 'order-7.attempt:1' },
    })
    expect(created.statusCode).toBe(201)
    expect(created.headers['x-request-id']).toBe('order-7.attempt:1')
    const unauthorized = await fixture.app.inject({
      method: 'GET',
      url: `${PAYMENTS}/${SOME_ID}`,
      headers: { 'x-request-id': 'abc' },
    })
    expect(unauthorized.statusCode).toBe(401)
    expect(unauthorized.headers['x-request-id']).toBe('abc')
    const missing = await fixture.app.inject({
      method: 'GET',
      url: '/nowhere',
      headers: { 'x-request-id': 'r-404' },
    })
    expect(missing.headers['x-request-id']).toBe('r-404')
  })

  it('generates one when the caller sent none or an insane one', async () => {
    fixture = await openMerchantApiFixture()
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
    const none = await fixture.app.inject({ method: 'GET', url: '/healthz' })
    expect(none.headers['x-request-id']).toMatch(uuid)
    for (const insane of ['has space', 'x'.repeat(129), '<script>']) {
      const response = await fixture.app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': insane },
      })
      expect(response.headers['x-request-id']).toMatch(uuid)
    }
    const again = await fixture.app.inject({ method: 'GET', url: '/healthz' })
    expect(again.headers['x-request-id']).not.toBe(none.headers['x-request-id'])
  })
})

describe('failures of the command side', () => {
  it('answers 500 INTERNAL_ERROR without internals, and logs the details with the request id', async () => {
    fixture = await openMerchantApiFixture({
      commands: failingCommands(() => new Error('SQLITE_CORRUPT: /var/lib/chainpay/chainpay.sqlite')),
    })
    const response = await fixture.send('POST', PAYMENTS, {
      body: JSON.stringify(base),
      headers: { 'x-request-id': 'req-500' },
    })
    expect(response.statusCode).toBe(500)
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'internal error; request id req-500' },
    })
    expect(response.body).not.toContain('SQLITE')
    const logged = fixture
      .logLines()
      .map((line) => JSON.parse(line))
      .find((line) => line.level === 'error')
    expect(logged).toMatchObject({
      requestId: 'req-500',
      err: { message: expect.stringContaining('SQLITE_CORRUPT') },
    })
  })

  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when a dependency is down', async () => {
    fixture = await openMerchantApiFixture({
      commands: failingCommands(() => new UnavailableError('payment-command: connect ECONNREFUSED')),
    })
    const created = await fixture.send('POST', PAYMENTS, { body: JSON.stringify(base) })
    expect(created.statusCode).toBe(503)
    expect(errorOf(created).code).toBe('SERVICE_UNAVAILABLE')
    expect(created.body).not.toContain('ECONNREFUSED')
    expect(Number(created.headers['retry-after'])).toBeGreaterThan(0)
    // a GET the read model cannot answer falls back to the command side, which is down
    const read = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`)
    expect(read.statusCode).toBe(503)
    expect(read.headers['retry-after']).toBeDefined()
  })
})

describe('failures of a store, in-process', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After when the event store or the read model is closed', async () => {
    const closedSide = openSqliteCommandSide()
    closedSide.db.close()
    const readModelDb = openSqliteDatabase(':memory:')
    const closedReadModel = createSqlitePaymentReadModel(readModelDb)
    readModelDb.close()
    try {
      fixture = await openMerchantApiFixture({ commands: () => closedSide.handler })
      const created = await fixture.send('POST', PAYMENTS, { body: JSON.stringify(base) })
      expect(created.statusCode).toBe(503)
      expect(errorOf(created).code).toBe('SERVICE_UNAVAILABLE')
      expect(created.body).not.toContain('database')
      expect(Number(created.headers['retry-after'])).toBeGreaterThan(0)
      await fixture.close()

      fixture = await openMerchantApiFixture({ readModel: () => closedReadModel })
      const read = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`)
      expect(read.statusCode).toBe(503)
      expect(errorOf(read).code).toBe('SERVICE_UNAVAILABLE')
      expect(Number(read.headers['retry-after'])).toBeGreaterThan(0)
    } finally {
      await closedSide.eventStore.close()
      rmSync(closedSide.dir, { recursive: true, force: true })
    }
  })

  it('keeps a mistake in a statement a 500 INTERNAL_ERROR', async () => {
    const db = openSqliteDatabase(':memory:')
    fixture = await openMerchantApiFixture({
      commands: failingCommands(() => {
        try {
          db.exec('SELECT * FROM no_such_table')
        } catch (error) {
          return error as Error
        }
        throw new Error('the statement was expected to fail')
      }),
    })
    const response = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`)
    db.close()
    expect(response.statusCode).toBe(500)
    expect(errorOf(response).code).toBe('INTERNAL_ERROR')
    expect(response.headers['retry-after']).toBeUndefined()
  })
})

describe('rate limiting', () => {
  it('answers 429 RATE_LIMITED with Retry-After per API key once the key used up its window', async () => {
    fixture = await openMerchantApiFixture({ rateLimit: { max: 3, windowMs: 60_000, perAddressMax: 100 } })
    const get = (credentials = fixture.merchant) =>
      fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { credentials })
    for (let request = 0; request < 3; request += 1) expect((await get()).statusCode).toBe(404)
    const limited = await get()
    expect(limited.statusCode).toBe(429)
    expect(errorOf(limited).code).toBe('RATE_LIMITED')
    expect(errorOf(limited).message).toMatch(/^too many requests for this API key/)
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // another key has its own budget
    expect((await get(fixture.otherMerchant)).statusCode).toBe(404)
    // unauthenticated requests are refused before they count
    const anonymous = await fixture.app.inject({ method: 'GET', url: `${PAYMENTS}/${SOME_ID}` })
    expect(anonymous.statusCode).toBe(401)
  })
})

describe('rate limiting per address, before authentication (docs/operations.md, "HTTP limits")', () => {
  it('answers 429 RATE_LIMITED with Retry-After once an address used up its window, before authentication', async () => {
    fixture = await openMerchantApiFixture({ rateLimit: { max: 100, windowMs: 60_000, perAddressMax: 3 } })
    const unsigned = (remoteAddress: string) =>
      fixture.app.inject({ method: 'GET', url: `${PAYMENTS}/${SOME_ID}`, remoteAddress })
    for (let request = 0; request < 3; request += 1) {
      expect((await unsigned('203.0.113.7')).statusCode).toBe(401)
    }
    // the fourth is not even looked at: 429, not 401
    const limited = await unsigned('203.0.113.7')
    expect(limited.statusCode).toBe(429)
    expect(errorOf(limited)).toEqual({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(
        /^too many requests from this address \(at most 3 per 60 s\); retry in \d+ s$/,
      ),
    })
    const retryAfter = Number(limited.headers['retry-after'])
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(60)
    // a correctly signed request from there waits too; one from elsewhere has its own budget
    const signed = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { remoteAddress: '203.0.113.7' })
    expect(signed.statusCode).toBe(429)
    const elsewhere = await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`, { remoteAddress: '203.0.113.8' })
    expect(elsewhere.statusCode).toBe(404)
    // answers within the budget carry the API key's X-RateLimit-* headers, not the address's
    expect(elsewhere.headers['x-ratelimit-limit']).toBe('100')
  })
})

describe('client addresses behind a reverse proxy (TRUSTED_PROXIES)', () => {
  it("counts a trusted proxy's requests per the client its X-Forwarded-For names, and an untrusted one's per its own address", async () => {
    fixture = await openMerchantApiFixture({
      rateLimit: { max: 100, windowMs: 60_000, perAddressMax: 2, trustedProxies: ['10.0.0.0/8'] },
    })
    const viaProxy = (proxy: string, client: string) =>
      fixture.app.inject({
        method: 'GET',
        url: `${PAYMENTS}/${SOME_ID}`,
        remoteAddress: proxy,
        headers: { 'x-forwarded-for': client },
      })
    // two clients behind the trusted proxy: each its own budget of 2
    for (const client of ['198.51.100.1', '198.51.100.1', '198.51.100.2', '198.51.100.2'])
      expect((await viaProxy('10.1.2.3', client)).statusCode).toBe(401)
    expect((await viaProxy('10.1.2.3', '198.51.100.1')).statusCode).toBe(429)
    expect((await viaProxy('10.1.2.3', '198.51.100.3')).statusCode).toBe(401)
    // a caller that is no trusted proxy cannot choose its address by the header
    for (const client of ['198.51.100.4', '198.51.100.5'])
      expect((await viaProxy('203.0.113.9', client)).statusCode).toBe(401)
    expect((await viaProxy('203.0.113.9', '198.51.100.6')).statusCode).toBe(429)
  })
})

describe('health, readiness and the OpenAPI document', () => {
  it('GET /healthz is 200 {status: ok}', async () => {
    fixture = await openMerchantApiFixture()
    const response = await fixture.app.inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(200)
    expect(JSON.parse(response.body)).toEqual({ status: 'ok' })
  })

  it('GET /readyz follows the readiness check: 200, or 503 SERVICE_UNAVAILABLE when false or failing', async () => {
    let ready: boolean | 'throws' = true
    fixture = await openMerchantApiFixture({
      readiness: async () => {
        if (ready === 'throws') throw new Error('event store closed')
        return ready
      },
    })
    expect((await fixture.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
    for (const state of [false, 'throws'] as const) {
      ready = state
      const response = await fixture.app.inject({ method: 'GET', url: '/readyz' })
      expect(response.statusCode).toBe(503)
      expect(errorOf(response).code).toBe('SERVICE_UNAVAILABLE')
      expect(response.headers['retry-after']).toBeDefined()
    }
  })

  it('serves the OpenAPI document without authentication', async () => {
    fixture = await openMerchantApiFixture()
    const response = await fixture.app.inject({ method: 'GET', url: '/api/merchant/v1/openapi.json' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/^application\/json/)
    const document = JSON.parse(response.body)
    expect(document.openapi).toBe('3.1.0')
    expect(Object.keys(document.paths)).toEqual([
      '/payments',
      '/payments/{paymentId}',
      '/payments/{paymentId}/events',
      '/payments/{paymentId}/cancel',
      '/webhook-endpoints',
      '/webhook-endpoints/{endpointId}',
      '/webhook-endpoints/{endpointId}/rotate-secret',
      '/webhook-endpoints/{endpointId}/test',
      '/webhook-deliveries',
      '/webhook-deliveries/{deliveryId}/redeliver',
      '/invoices',
      '/invoices/{invoiceId}',
      '/invoices/{invoiceId}/cancel',
      // refunds, payouts and balances (docs/api.md, "Refunds and payouts")
      '/payments/{paymentId}/refunds',
      '/payouts',
      '/refunds',
      '/refunds/{refundId}',
      '/refunds/{refundId}/cancel',
      '/payouts/{payoutId}',
      '/payouts/{payoutId}/cancel',
      '/balances',
      // deposit addresses per customer (docs/api.md, "Deposit addresses")
      '/deposit-addresses',
      '/deposits',
      // the customer's page, tagged checkout, at the origin's root
      '/pay/{token}',
      '/pay/{token}/status',
      '/pay/{token}/logo',
      '/pay/{token}/cancel',
      '/pay/assets/checkout.css',
      '/pay/assets/checkout.js',
      '/pay/assets/icon.svg',
      '/favicon.ico',
      // the invoice's page (docs/api.md, "The invoice's page")
      '/pay/invoice/{token}',
      '/pay/invoice/{token}/pick',
      '/pay/assets/invoice.css',
      '/refund/{token}',
      '/refund/{token}/logo',
      '/refund/{token}/address',
      '/refund/{token}/confirm',
    ])
  })
})

describe('metrics', () => {
  const exposition: MetricsExposition = {
    contentType: 'text/plain; version=0.0.4; charset=utf-8',
    metrics: async () => '# HELP up 1 when scraped\n# TYPE up gauge\nup 1\n',
  }

  it('observes every request by its route pattern, never its URL, with status and duration', async () => {
    const observed: HttpRequestObservation[] = []
    fixture = await openMerchantApiFixture({
      requestMetrics: { observeRequest: (request) => observed.push(request) },
      metricsRegistry: exposition,
    })
    const created = await fixture.create(base)
    expect(created.statusCode).toBe(201)
    const id = json<{ paymentId: string }>(created).paymentId
    expect((await fixture.send('GET', `${PAYMENTS}/${id}`)).statusCode).toBe(200)
    expect((await fixture.send('GET', `${PAYMENTS}/${SOME_ID}`)).statusCode).toBe(404)
    expect((await fixture.app.inject({ method: 'GET', url: `${PAYMENTS}/${id}` })).statusCode).toBe(401)
    expect((await fixture.app.inject({ method: 'DELETE', url: `${PAYMENTS}/${id}` })).statusCode).toBe(405)
    expect((await fixture.app.inject({ method: 'GET', url: `/nothing/${id}` })).statusCode).toBe(404)
    expect((await fixture.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)

    const byPattern = `${PAYMENTS}/:paymentId`
    expect(observed.map(({ method, route, statusCode }) => [method, route, statusCode])).toEqual([
      ['POST', PAYMENTS, 201],
      ['GET', byPattern, 200],
      ['GET', byPattern, 404],
      ['GET', byPattern, 401],
      ['DELETE', byPattern, 405],
      ['GET', undefined, 404],
      ['GET', '/healthz', 200],
    ])
    expect(observed.every(({ durationSeconds }) => durationSeconds >= 0 && durationSeconds < 60)).toBe(true)
    expect(JSON.stringify(observed)).not.toContain(id)
  })

  it('serves GET /metrics unauthenticated in the exposition format, without observing the scrapes', async () => {
    const observed: HttpRequestObservation[] = []
    fixture = await openMerchantApiFixture({
      requestMetrics: { observeRequest: (request) => observed.push(request) },
      metricsRegistry: exposition,
    })
    const scrape = await fixture.app.inject({ method: 'GET', url: '/metrics' })
    expect(scrape.statusCode).toBe(200)
    expect(scrape.headers['content-type']).toBe(exposition.contentType)
    expect(scrape.body).toBe(await exposition.metrics())
    expect(observed).toEqual([])
    // scraped every few seconds: not worth a log line each
    expect(fixture.logLines().filter((line) => line.includes('/metrics'))).toEqual([])
    const post = await fixture.app.inject({ method: 'POST', url: '/metrics' })
    expect(post.statusCode).toBe(405)
    expect(post.headers.allow).toBe('GET, HEAD')
  })

  it('has no /metrics without a registry', async () => {
    fixture = await openMerchantApiFixture()
    expect((await fixture.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404)
  })
})

describe('logging', () => {
  it('writes one line per request with method, path, status, duration and request id', async () => {
    fixture = await openMerchantApiFixture()
    await fixture.send('GET', `${PAYMENTS}/${SOME_ID}?ref=mail`, { headers: { 'x-request-id': 'req-log' } })
    const lines = fixture
      .logLines()
      .map((line) => JSON.parse(line))
      .filter((line) => line.requestId === 'req-log')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      url: `${PAYMENTS}/${SOME_ID}`,
      statusCode: 404,
      durationMs: expect.any(Number),
    })
  })

  it('never logs the API secret or the signature, whatever the outcome', async () => {
    fixture = await openMerchantApiFixture()
    const body = JSON.stringify({ ...base, metadata: { note: 'logged nowhere' } })
    const timestamp = String(fixture.clock.now().getTime())
    const signature = signApiRequest(fixture.merchant.apiSecret, {
      timestamp,
      method: 'POST',
      path: PAYMENTS,
      body,
    })
    expect((await fixture.send('POST', PAYMENTS, { body, timestamp })).statusCode).toBe(201)
    expect((await fixture.send('POST', PAYMENTS, { body, timestamp, sign: { body: '' } })).statusCode).toBe(
      401,
    )
    expect((await fixture.send('POST', PAYMENTS, { body: '{', timestamp })).statusCode).toBe(400)
    const everything = fixture.logLines().join('\n')
    expect(everything.match(/request completed/g)).toHaveLength(3)
    expect(everything).not.toContain(fixture.merchant.apiSecret)
    expect(everything).not.toContain(signature)
    expect(everything).not.toContain('logged nowhere')
  })
})

describe('extraRoutes', () => {
  it('mounts more routes on the same server, with the same request ids and error bodies', async () => {
    fixture = await openMerchantApiFixture()
    const app = await buildGatewayApp({
      ...fixture.checkoutDeps,
      commands: fixture.handler,
      readModel: fixture.readModel,
      authenticator: fixture.authenticator,
      clock: fixture.clock,
      logger: createRootLogger({ service: 'gateway-test', level: 'silent' }),
      rateLimit: { max: 10, windowMs: 1_000, perAddressMax: 10 },
      extraRoutes: async (scope) => {
        scope.get('/dev/ping', async () => ({ pong: true }))
        scope.post('/dev/echo', async (request) => ({ received: request.body }))
      },
    })
    const response = await app.inject({
      method: 'GET',
      url: '/dev/ping',
      headers: { 'x-request-id': 'dev-1' },
    })
    expect(JSON.parse(response.body)).toEqual({ pong: true })
    expect(response.headers['x-request-id']).toBe('dev-1')
    expect((await app.inject({ method: 'GET', url: '/dev/pong' })).statusCode).toBe(404)
    // the merchant API's raw-text bodies stay in the merchant API: extra routes get parsed JSON
    const echoed = await app.inject({ method: 'POST', url: '/dev/echo', payload: { count: 2 } })
    expect(JSON.parse(echoed.body)).toEqual({ received: { count: 2 } })
    await app.close()
  })
})
