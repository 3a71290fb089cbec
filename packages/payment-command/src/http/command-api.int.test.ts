import { rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { createHttpPaymentCommands } from '@chainpay/command-api-client'
import { paymentIdForIdempotencyKey } from '@chainpay/domain'
import { healthRoutes } from '@chainpay/service-kit'
import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { captureLogs } from '../testing/log-capture.js'
import { openSqliteCommandSide, type SqliteCommandSide } from '../testing/sqlite-command-side.js'
import { buildCommandApi } from './command-api.js'

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** the command API on a fresh command side that knows merchant-1 (fee 1 %) */
async function startApi(
  options: { token?: string; logs?: ReturnType<typeof captureLogs> } = {},
): Promise<{ app: FastifyInstance; baseUrl: string; side: SqliteCommandSide }> {
  const side = openSqliteCommandSide(options.logs ? { logDestination: options.logs } : {})
  await side.addMerchant('merchant-1')
  const app = buildCommandApi({ handler: side.handler, logger: side.logger, token: options.token })
  // as payment-command's context serves them: next to the commands, without a token
  await app.register(healthRoutes, { readiness: async () => true })
  await app.listen({ host: '127.0.0.1', port: 0 })
  cleanups.push(
    () => side.close(),
    () => app.close(),
  )
  return { app, side, baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}` }
}

async function send(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
  })
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whatever JSON came back
  return { status: response.statusCode, body: (await response.body.json()) as any }
}

const createBody = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({
    merchantId: 'merchant-1',
    request: { amount: '10.5', currency: 'USDT', network: 'TRON', idempotencyKey: 'order-1' },
    ...fields,
  })

const COMMAND_API_TOKEN = 'command-api-token-9f8e7d6c5b4a39281706'

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

describe('buildCommandApi: who may command, for which merchant', () => {
  it("refuses a create for a merchant that does not exist, and a caller's fee policy", async () => {
    const { baseUrl, side } = await startApi()
    const stranger = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      createBody({ merchantId: 'merchant-x' }),
    )
    expect(stranger).toEqual({
      status: 404,
      body: { error: { code: 'NOT_FOUND', message: 'merchant merchant-x not found' } },
    })
    const waived = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      createBody({ feePolicy: { feeBps: 0, fixedFees: {} } }),
    )
    expect(waived).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('feePolicy') } },
    })
    expect(side.allocator.allocations).toEqual([])
    // the merchant's own fee policy is what a create charges
    const created = await send(baseUrl, 'POST', '/internal/v1/payments', createBody())
    expect(created).toMatchObject({ status: 201, body: { payment: { created: { feeUnits: '105000' } } } })
  })

  it('with COMMAND_API_TOKEN, answers only its bearer: no command without it, health still open', async () => {
    const logs = captureLogs()
    const { baseUrl, side } = await startApi({ token: COMMAND_API_TOKEN, logs })
    const bearer = { authorization: `Bearer ${COMMAND_API_TOKEN}` }
    const created = await send(baseUrl, 'POST', '/internal/v1/payments', createBody(), bearer)
    expect(created.status).toBe(201)
    // a payment id anyone can compute from the merchant id and an idempotency key
    const paymentId = paymentIdForIdempotencyKey('merchant-1', 'order-1')
    expect(created.body.payment.created.paymentId).toBe(paymentId)

    const cancel = (headers: Record<string, string>) =>
      send(
        baseUrl,
        'POST',
        `/internal/v1/payments/${paymentId}/cancel`,
        '{"merchantId":"merchant-1"}',
        headers,
      )
    expect(await cancel({})).toEqual({
      status: 401,
      body: {
        error: {
          code: 'MISSING_AUTH_HEADERS',
          message: 'Authorization: expected "Bearer <COMMAND_API_TOKEN>"',
        },
      },
    })
    expect(await cancel({ authorization: `Bearer ${COMMAND_API_TOKEN.slice(0, -1)}X` })).toEqual({
      status: 401,
      body: { error: { code: 'INVALID_API_KEY', message: 'Authorization: not the COMMAND_API_TOKEN' } },
    })
    expect(await cancel({ authorization: COMMAND_API_TOKEN })).toMatchObject({ status: 401 })
    const read = await send(baseUrl, 'GET', `/internal/v1/payments/${paymentId}?merchantId=merchant-1`)
    expect(read).toMatchObject({ status: 401, body: { error: { code: 'MISSING_AUTH_HEADERS' } } })
    const history = (headers: Record<string, string> = {}) =>
      send(
        baseUrl,
        'GET',
        `/internal/v1/payments/${paymentId}/events?merchantId=merchant-1`,
        undefined,
        headers,
      )
    expect(await history()).toMatchObject({ status: 401, body: { error: { code: 'MISSING_AUTH_HEADERS' } } })
    expect(await history(bearer)).toMatchObject({
      status: 200,
      body: { events: [{ event: { type: 'PaymentCreated', data: { paymentId } } }] },
    })
    const anotherCreate = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      createBody({ request: { amount: '1', currency: 'USDT', network: 'TRON' } }),
    )
    expect(anotherCreate.status).toBe(401)
    expect(side.allocator.allocations).toHaveLength(1)
    expect(await side.handler.getPayment({ merchantId: 'merchant-1', paymentId })).toMatchObject({
      revision: 0,
      payment: { status: 'pending' },
    })

    expect(await cancel(bearer)).toMatchObject({ status: 200, body: { payment: { status: 'canceled' } } })
    expect(await send(baseUrl, 'GET', '/healthz')).toEqual({ status: 200, body: { status: 'ok' } })
    expect(await send(baseUrl, 'GET', '/readyz')).toEqual({ status: 200, body: { status: 'ready' } })
    expect(JSON.stringify(logs.lines)).not.toContain(COMMAND_API_TOKEN)
    expect(JSON.stringify(logs.lines)).not.toContain(COMMAND_API_TOKEN.slice(0, -1))
  })

  it('the HTTP client with the token commands; without it, it gets a plain Error naming COMMAND_API_TOKEN', async () => {
    const { baseUrl } = await startApi({ token: COMMAND_API_TOKEN })
    const withToken = createHttpPaymentCommands({ baseUrl, timeoutMs: 5_000, token: COMMAND_API_TOKEN })
    const without = createHttpPaymentCommands({ baseUrl, timeoutMs: 5_000 })
    cleanups.push(
      () => withToken.close(),
      () => without.close(),
    )
    const request = { amount: '10.5', currency: 'USDT', network: 'TRON' }
    expect((await withToken.createPayment({ merchantId: 'merchant-1', request })).outcome).toBe('created')
    const refused = await without
      .createPayment({ merchantId: 'merchant-1', request })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(Error)
    expect(refused).not.toHaveProperty('code')
    expect((refused as Error).message).toMatch(/COMMAND_API_TOKEN/)
  })
})

describe('buildCommandApi when a store fails', () => {
  it('answers 503 SERVICE_UNAVAILABLE with Retry-After while its database is closed, through the HTTP client too', async () => {
    const side = openSqliteCommandSide()
    await side.addMerchant('merchant-1')
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

  // docs/api.md, "Conventions": the merchant API accepts a "__proto__" metadata key (metadata is
  // returned whatever its keys), so the command API behind it must too; a repeated key it refuses
  it('reads JSON as the merchant API does', async () => {
    const { baseUrl } = await startApi()
    const request = '{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"__proto__":"kept"}}'
    const envelope = `{"merchantId":"merchant-1","request":${request}}`
    const created = await send(baseUrl, 'POST', '/internal/v1/payments', envelope)
    expect(created.status).toBe(201)
    expect(Object.entries(created.body.payment.created.metadata)).toEqual([['__proto__', 'kept']])

    const repeated = await send(
      baseUrl,
      'POST',
      '/internal/v1/payments',
      `{"merchantId":"m-2",${envelope.slice(1)}`,
    )
    expect(repeated).toEqual({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: "body: duplicate key 'merchantId'" } },
    })
  })
})
