import { rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { openSqliteCommandSide } from '../testing/sqlite-command-side.js'
import { buildCommandApi } from './command-api.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function startApi(): Promise<{ app: FastifyInstance; baseUrl: string }> {
  const side = openSqliteCommandSide()
  const app = buildCommandApi({ handler: side.handler, logger: side.logger })
  await app.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(
    () => side.close(),
    () => app.close(),
  )
  return { app, baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

async function send(baseUrl: string, method: 'GET' | 'POST', path: string, body?: string) {
  const response = await request(`${baseUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whatever JSON came back
  return { status: response.statusCode, body: (await response.body.json()) as any }
}

const createBody = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    merchantId: 'merchant-1',
    feePolicy: { feeBps: 100, fixedFees: {} },
    request: { amount: '10.5', currency: 'USDT', network: 'TRON', idempotencyKey: 'order-1' },
    ...fields,
  })

describe('buildCommandApi', () => {
  it('answers a create with 201, its replay with 200, and a reused key with 409', async () => {
    const { baseUrl } = await startApi()
    const created = await send(baseUrl, 'POST', '/internal/v1/payments', createBody())
    expect(created).toMatchObject({ status: 201, body: { outcome: 'created', revision: 0 } })
    const replayed = await send(baseUrl, 'POST', '/internal/v1/payments', createBody())
    expect(replayed).toEqual({ status: 200, body: { ...created.body, outcome: 'replayed' } })
    const reused = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      createBody({ request: { amount: '1', currency: 'USDT', network: 'TRON', idempotencyKey: 'order-1' } }),
    )
    expect(reused).toEqual({
      status: 409,
      body: {
        error: {
          code: 'IDEMPOTENCY_KEY_REUSED',
          message: 'idempotencyKey: already used with a different request',
        },
      },
    })
  })

  it('cancels and gets by id, and answers 404 PAYMENT_NOT_FOUND for an unknown one', async () => {
    const { baseUrl } = await startApi()
    const { body } = await send(baseUrl, 'POST', '/internal/v1/payments', createBody())
    const paymentId = body.payment.created.paymentId
    const canceled = await send(
      baseUrl,
      'POST',
      `/internal/v1/payments/${paymentId}/cancel`,
      '{"merchantId":"merchant-1"}',
    )
    expect(canceled).toMatchObject({ status: 200, body: { revision: 1, payment: { status: 'canceled' } } })
    const got = await send(baseUrl, 'GET', `/internal/v1/payments/${paymentId}?merchantId=merchant-1`)
    expect(got).toEqual(canceled)
    const other = await send(baseUrl, 'GET', `/internal/v1/payments/${paymentId}?merchantId=merchant-2`)
    expect(other).toMatchObject({ status: 404, body: { error: { code: 'PAYMENT_NOT_FOUND' } } })
  })

  it('answers an id of any length like any unknown one: 404 PAYMENT_NOT_FOUND, not a 500', async () => {
    const { baseUrl } = await startApi()
    for (const id of ['a'.repeat(101), 'a'.repeat(5000)]) {
      const got = await send(baseUrl, 'GET', `/internal/v1/payments/${id}?merchantId=merchant-1`)
      expect(got).toMatchObject({ status: 404, body: { error: { code: 'PAYMENT_NOT_FOUND' } } })
      const body = '{"merchantId":"merchant-1"}'
      const canceled = await send(baseUrl, 'POST', `/internal/v1/payments/${id}/cancel`, body)
      expect(canceled).toMatchObject({ status: 404, body: { error: { code: 'PAYMENT_NOT_FOUND' } } })
    }
  })

  it('answers malformed requests with 400 VALIDATION_ERROR and unknown routes with 404 NOT_FOUND', async () => {
    const { baseUrl } = await startApi()
    const notJson = await send(baseUrl, 'POST', '/internal/v1/payments', '{"merchantId":')
    expect(notJson).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } })
    const noMerchant = await send(baseUrl, 'POST', '/internal/v1/payments', createBody({ merchantId: '' }))
    expect(noMerchant).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } })
    const badAmount = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      createBody({ request: { amount: 10.5, currency: 'USDT', network: 'TRON' } }),
    )
    expect(badAmount).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^amount/) } },
    })
    const noQuery = await send(baseUrl, 'GET', `/internal/v1/payments/${crypto.randomUUID()}`)
    expect(noQuery).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } })
    const unknown = await send(baseUrl, 'GET', '/internal/v1/elsewhere')
    expect(unknown).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } })
  })

  it('keeps the request exactly as sent: defaults are not filled in, so fingerprints stay the merchant’s', async () => {
    const { baseUrl } = await startApi()
    const withoutExpiry = await send(baseUrl, 'POST', '/internal/v1/payments', createBody())
    const withDefault = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      createBody({
        request: {
          amount: '10.5',
          currency: 'USDT',
          network: 'TRON',
          idempotencyKey: 'order-1',
          expiresInMinutes: 30,
        },
      }),
    )
    expect(withoutExpiry.status).toBe(201)
    expect(withDefault).toMatchObject({ status: 409, body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } } })
  })
})

describe('buildCommandApi when a store fails', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while its database is closed, through the HTTP client too', async () => {
    const side = openSqliteCommandSide()
    const app = buildCommandApi({ handler: side.handler, logger: side.logger })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    side.db.close()
    cleanups.push(
      () => rm(side.dir, { recursive: true, force: true }),
      () => side.eventStore.close(),
      () => app.close(),
    )

    const response = await request(`${baseUrl}/internal/v1/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: createBody(),
    })
    expect(response.statusCode).toBe(503)
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0)
    expect(await response.body.json()).toEqual({
      error: {
        code: 'SERVICE_UNAVAILABLE',
        message: 'a service chainpay depends on is unavailable; retry later',
      },
    })

    const commands = createHttpPaymentCommands({ baseUrl, timeoutMs: 5_000 })
    cleanups.push(() => commands.close())
    await expect(
      commands.getPayment({ merchantId: 'merchant-1', paymentId: crypto.randomUUID() }),
    ).rejects.toMatchObject({ name: 'DomainError', code: 'SERVICE_UNAVAILABLE' })
  })

  it('keeps a mistake in a statement a 500 INTERNAL_ERROR without internals', async () => {
    const side = openSqliteCommandSide()
    cleanups.push(() => side.close())
    const handler = {
      ...side.handler,
      getPayment: async () => side.db.prepare('SELECT * FROM no_such_table').get() as never,
    }
    const app = buildCommandApi({ handler, logger: side.logger })
    await app.listen({ host: '127.0.0.1', port: 0 })
    cleanups.push(() => app.close())
    const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
    const got = await send(baseUrl, 'GET', `/internal/v1/payments/${crypto.randomUUID()}?merchantId=m`)
    expect(got).toEqual({
      status: 500,
      body: {
        error: { code: 'INTERNAL_ERROR', message: expect.stringMatching(/^internal error; request id /) },
      },
    })
  })
})
