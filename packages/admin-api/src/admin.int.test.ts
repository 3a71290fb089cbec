import {
  createManualClock,
  createRootLogger,
  createSecretBox,
  generateSecretKey,
  type ManualClock,
  type SecretBox,
} from '@chainpay/platform'
import {
  apiSecretContext,
  type MerchantStore,
  type WebhookDelivery,
  type WebhookDeliveryStore,
  webhookSecretContext,
} from '@chainpay/ports'
import type { HttpRequestObservation } from '@chainpay/service-kit'
import {
  createSqliteDeliveryStore,
  createSqliteMerchantStore,
  type DatabaseSync,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type ApiKeyAuthenticator, createApiKeyAuthenticator } from './api-key-authenticator.js'
import { type AdminDeps, buildAdminApp } from './app.js'

const TOKEN = 'admin-token-for-tests-0123456789'
const NOW = '2030-02-01T08:00:00.000Z'

let db: DatabaseSync
let merchants: MerchantStore
let deliveries: WebhookDeliveryStore
let secretBox: SecretBox
let clock: ManualClock
let authenticator: ApiKeyAuthenticator
let app: FastifyInstance
let logLines: string[]

async function buildApp(
  options: { withDeliveries?: boolean } & Pick<AdminDeps, 'requestMetrics'> = {},
): Promise<FastifyInstance> {
  const { withDeliveries, ...metrics } = options
  return buildAdminApp({
    merchants,
    secretBox,
    adminToken: TOKEN,
    clock,
    logger: createRootLogger({
      service: 'admin-test',
      level: 'debug',
      destination: { write: (line: string) => void logLines.push(line) },
    }),
    authenticator,
    ...(withDeliveries === false ? {} : { deliveries }),
    ...metrics,
  })
}

beforeEach(async () => {
  db = openSqliteDatabase(':memory:')
  merchants = createSqliteMerchantStore(db)
  deliveries = createSqliteDeliveryStore(db)
  secretBox = createSecretBox(generateSecretKey())
  clock = createManualClock(NOW)
  authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock, cacheTtlMs: 60_000 })
  logLines = []
  app = await buildApp()
})

afterEach(async () => {
  await app.close()
  db.close()
})

function admin(method: string, url: string, body?: unknown, token: string | null = TOKEN) {
  return app.inject({
    method: method as 'GET',
    url: `/admin/v1${url}`,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    ...(body === undefined ? {} : { payload: body as object }),
  })
}

const json = (response: LightMyRequestResponse) => JSON.parse(response.body)

async function newMerchant(body: Record<string, unknown> = { name: 'Bäckerei Müller' }) {
  const response = await admin('POST', '/merchants', body)
  expect(response.statusCode, response.body).toBe(201)
  return json(response) as {
    merchant: { merchantId: string; feePolicy: unknown; webhookUrl: string | null }
    apiKey: string
    apiSecret: string
    webhookSecret: string
  }
}

describe('admin authentication', () => {
  it('wants Authorization: Bearer with the admin token', async () => {
    const missing = await admin('GET', '/merchants', undefined, null)
    expect(missing.statusCode).toBe(401)
    expect(json(missing)).toEqual({
      error: { code: 'MISSING_AUTH_HEADERS', message: 'Authorization: expected "Bearer <admin token>"' },
    })
    const wrong = await admin('GET', '/merchants', undefined, `${TOKEN}x`)
    expect(wrong.statusCode).toBe(401)
    expect(json(wrong)).toEqual({
      error: { code: 'INVALID_API_KEY', message: 'Authorization: invalid admin token' },
    })
    const basic = await app.inject({
      method: 'GET',
      url: '/admin/v1/merchants',
      headers: { authorization: TOKEN },
    })
    expect(basic.statusCode).toBe(401)
    expect((await admin('GET', '/merchants')).statusCode).toBe(200)
  })

  it('guards every route, before the body is looked at', async () => {
    const { merchant } = await newMerchant()
    const id = merchant.merchantId
    const routes: Array<[string, string]> = [
      ['POST', '/merchants'],
      ['GET', '/merchants'],
      ['GET', `/merchants/${id}`],
      ['POST', `/merchants/${id}/api-keys`],
      ['POST', `/merchants/${id}/api-keys/ck_x/revoke`],
      ['POST', `/merchants/${id}/webhook-secret/rotate`],
      ['PUT', `/merchants/${id}/webhook-url`],
      ['PUT', `/merchants/${id}/display-name`],
      ['PUT', `/merchants/${id}/underpayment-tolerance`],
      ['PUT', `/merchants/${id}/logo-url`],
      ['PUT', `/merchants/${id}/fee-policy`],
      ['GET', `/merchants/${id}/payments/p/deliveries`],
      ['POST', '/deliveries/d/redeliver'],
      ['POST', '/secrets/reseal'],
    ]
    for (const [method, url] of routes) {
      const response = await admin(method, url, method === 'GET' ? undefined : { bogus: true }, 'wrong')
      expect(response.statusCode, `${method} ${url}`).toBe(401)
    }
  })

  it.each([
    ['without a token', '  ', /weak admin token: too short/],
    ['with a short token', 'adm_operator', /weak admin token: too short: at least 32 characters/],
    ['with a patterned token', 'abcd'.repeat(10), /weak admin token: a repeated pattern/],
    [
      'with a placeholder',
      'changeme-changeme-changeme-changeme-1234',
      /weak admin token: looks like a placeholder/,
    ],
  ])('refuses to start %s, saying how to generate one', async (_case, adminToken, message) => {
    const building = buildAdminApp({
      merchants,
      secretBox,
      adminToken,
      clock,
      logger: createRootLogger({ service: 'admin-test', level: 'silent' }),
      authenticator,
    })
    await expect(building).rejects.toThrow(message)
    await expect(building).rejects.toThrow('generate one with `openssl rand -hex 32`')
  })
})

describe('POST /admin/v1/merchants', () => {
  it('creates a merchant and shows its secrets once, storing them sealed', async () => {
    const created = await newMerchant({ name: 'Shop', webhookUrl: 'https://shop.example/hooks', feeBps: 250 })
    expect(created.apiKey).toMatch(/^ck_[A-Za-z0-9_-]{32}$/)
    expect(created.apiSecret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/)
    expect(created.webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    expect(created.merchant).toEqual({
      merchantId: expect.stringMatching(/^mer_/),
      name: 'Shop',
      displayName: null,
      logoUrl: null,
      webhookUrl: 'https://shop.example/hooks',
      feePolicy: { feeBps: 250, fixedFees: {} },
      underpaymentTolerancePercent: '0',
      createdAt: NOW,
      updatedAt: NOW,
    })
    const stored = await merchants.getMerchant(created.merchant.merchantId)
    expect(stored?.webhookSecret).not.toContain(created.webhookSecret)
    expect(
      secretBox.open(stored?.webhookSecret ?? '', webhookSecretContext(created.merchant.merchantId)),
    ).toBe(created.webhookSecret)
    const key = await merchants.findApiKey(created.apiKey)
    expect(key?.secret).not.toContain(created.apiSecret)
    expect(
      secretBox.open(
        key?.secret ?? '',
        apiSecretContext({ apiKey: created.apiKey, merchantId: created.merchant.merchantId }),
      ),
    ).toBe(created.apiSecret)
    expect((await authenticator.authenticate(created.apiKey))?.apiSecret).toBe(created.apiSecret)
  })

  it('binds each sealed secret to its row: copied into another merchant’s, it does not open there', async () => {
    const victim = await newMerchant({ name: 'Victim' })
    const intruder = await newMerchant({ name: 'Intruder' })
    // someone who can write to the database copies the intruder's sealed API secret, which the
    // intruder knows, into the victim's key, to sign requests as the victim
    const victimKey = await merchants.findApiKey(victim.apiKey)
    const intruderKey = await merchants.findApiKey(intruder.apiKey)
    await merchants.replaceSealedApiSecret(victim.apiKey, victimKey?.secret ?? '', intruderKey?.secret ?? '')
    await expect(authenticator.authenticate(victim.apiKey)).rejects.toThrow(/sealed for another record/)
    // and the webhook secret likewise
    const intruderRow = await merchants.getMerchant(intruder.merchant.merchantId)
    const victimRow = await merchants.getMerchant(victim.merchant.merchantId)
    await merchants.replaceSealedWebhookSecret(
      victim.merchant.merchantId,
      victimRow?.webhookSecret ?? '',
      intruderRow?.webhookSecret ?? '',
    )
    expect(() =>
      secretBox.open(intruderRow?.webhookSecret ?? '', webhookSecretContext(victim.merchant.merchantId)),
    ).toThrow(/sealed for another record/)
    expect((await authenticator.authenticate(intruder.apiKey))?.apiSecret).toBe(intruder.apiSecret)
  })

  it('defaults to a fee of 100 bps and no webhook URL', async () => {
    const { merchant } = await newMerchant({ name: 'Plain' })
    expect(merchant).toMatchObject({ webhookUrl: null, feePolicy: { feeBps: 100, fixedFees: {} } })
  })

  it('validates the body, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'name: is required'],
      [{ name: '' }, 'name: must be at least 1 characters'],
      [{ name: '   ' }, 'name: must be a non-empty string'],
      [{ name: 'x', feeBps: 10_001 }, 'feeBps: must be at most 10000'],
      [{ name: 'x', feeBps: 1.5 }, 'feeBps: must be an integer'],
      [{ name: 'x', webhookUrl: 'http://shop.example/hooks' }, 'webhookUrl: must use https'],
      [
        { name: 'x', webhookUrl: 'https://10.1.2.3/hooks' },
        'webhookUrl: must not point at a private address',
      ],
      [{ name: 'x', extra: 1 }, "body: unknown field 'extra'"],
    ]
    for (const [body, message] of cases) {
      const response = await admin('POST', '/merchants', body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(json(response)).toEqual({ error: { code: 'VALIDATION_ERROR', message } })
    }
    const malformed = await app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      payload: '{"name":',
    })
    expect(json(malformed)).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'body: malformed JSON' } })
  })

  it('never logs the secrets it hands out', async () => {
    const created = await newMerchant()
    const logs = logLines.join('\n')
    expect(logs).toContain('request completed')
    for (const secret of [created.apiSecret, created.webhookSecret, TOKEN]) expect(logs).not.toContain(secret)
  })
})

describe('reading merchants', () => {
  it('lists merchants without any secret', async () => {
    const first = await newMerchant({ name: 'First' })
    const second = await newMerchant({ name: 'Second' })
    const response = await admin('GET', '/merchants')
    expect(response.statusCode).toBe(200)
    const listed = json(response).merchants as Array<{ merchantId: string }>
    expect(listed.map((merchant) => merchant.merchantId).sort()).toEqual(
      [first.merchant.merchantId, second.merchant.merchantId].sort(),
    )
    expect(response.body).not.toMatch(/webhookSecret|whsec_|cs_|"v1\./)
  })

  it('shows one merchant with its keys, without secrets; 404 NOT_FOUND for an unknown one', async () => {
    const created = await newMerchant()
    const response = await admin('GET', `/merchants/${created.merchant.merchantId}`)
    expect(response.statusCode).toBe(200)
    expect(json(response)).toEqual({
      merchant: created.merchant,
      apiKeys: [
        { apiKey: created.apiKey, createdAt: NOW, revokedAt: null, expiresAt: null, status: 'active' },
      ],
    })
    expect(response.body).not.toMatch(/whsec_|cs_|"v1\./)
    const unknown = await admin('GET', '/merchants/mer_unknown')
    expect(unknown.statusCode).toBe(404)
    expect(json(unknown)).toEqual({ error: { code: 'NOT_FOUND', message: 'merchant mer_unknown not found' } })
  })
})

describe('API keys', () => {
  it('issues another key that authenticates alongside the first', async () => {
    const created = await newMerchant()
    const response = await admin('POST', `/merchants/${created.merchant.merchantId}/api-keys`)
    expect(response.statusCode).toBe(201)
    const issued = json(response)
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'apiSecret'])
    expect(issued.apiKey).not.toBe(created.apiKey)
    expect((await authenticator.authenticate(issued.apiKey))?.apiSecret).toBe(issued.apiSecret)
    expect((await authenticator.authenticate(created.apiKey))?.apiSecret).toBe(created.apiSecret)
    expect((await admin('POST', '/merchants/mer_unknown/api-keys')).statusCode).toBe(404)
  })

  it('revokes a key at once, even one the authenticator has cached', async () => {
    const created = await newMerchant()
    const id = created.merchant.merchantId
    expect(await authenticator.authenticate(created.apiKey)).not.toBeNull()
    clock.advance(1_000)
    const response = await admin('POST', `/merchants/${id}/api-keys/${created.apiKey}/revoke`)
    expect(response.statusCode).toBe(200)
    expect(json(response)).toEqual({ apiKey: created.apiKey, revokedAt: '2030-02-01T08:00:01.000Z' })
    expect(await authenticator.authenticate(created.apiKey)).toBeNull()
    const shown = json(await admin('GET', `/merchants/${id}`))
    expect(shown.apiKeys).toEqual([
      {
        apiKey: created.apiKey,
        createdAt: NOW,
        revokedAt: '2030-02-01T08:00:01.000Z',
        expiresAt: null,
        status: 'revoked',
      },
    ])
    const again = await admin('POST', `/merchants/${id}/api-keys/${created.apiKey}/revoke`)
    expect(again.statusCode).toBe(404)
    expect(json(again).error.code).toBe('NOT_FOUND')
    expect((await admin('POST', `/merchants/${id}/api-keys/ck_unknown/revoke`)).statusCode).toBe(404)
  })

  it("does not revoke another merchant's key", async () => {
    const first = await newMerchant({ name: 'First' })
    const second = await newMerchant({ name: 'Second' })
    const response = await admin(
      'POST',
      `/merchants/${second.merchant.merchantId}/api-keys/${first.apiKey}/revoke`,
    )
    expect(response.statusCode).toBe(404)
    expect(await authenticator.authenticate(first.apiKey)).not.toBeNull()
  })
})

describe('webhook secret and URL', () => {
  it('rotates the webhook secret, storing the new one sealed', async () => {
    const created = await newMerchant()
    const id = created.merchant.merchantId
    const response = await admin('POST', `/merchants/${id}/webhook-secret/rotate`)
    expect(response.statusCode).toBe(200)
    const { webhookSecret } = json(response)
    expect(webhookSecret).toMatch(/^whsec_/)
    expect(webhookSecret).not.toBe(created.webhookSecret)
    const stored = (await merchants.getMerchant(id))?.webhookSecret ?? ''
    expect(secretBox.open(stored, webhookSecretContext(id))).toBe(webhookSecret)
    expect((await admin('POST', '/merchants/mer_unknown/webhook-secret/rotate')).statusCode).toBe(404)
  })

  it('sets and clears the webhook URL, under the URL policy', async () => {
    const { merchant } = await newMerchant()
    const url = `/merchants/${merchant.merchantId}/webhook-url`
    const set = await admin('PUT', url, { webhookUrl: 'https://shop.example/new' })
    expect(set.statusCode).toBe(200)
    expect(json(set).merchant.webhookUrl).toBe('https://shop.example/new')
    const cleared = await admin('PUT', url, { webhookUrl: null })
    expect(json(cleared).merchant.webhookUrl).toBeNull()
    expect((await merchants.getMerchant(merchant.merchantId))?.webhookUrl).toBeNull()
    const invalid = await admin('PUT', url, { webhookUrl: 'not a url' })
    expect(json(invalid)).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'webhookUrl: must be an absolute http(s) URL' },
    })
    expect((await admin('PUT', url, {})).statusCode).toBe(400)
    expect((await admin('PUT', '/merchants/mer_unknown/webhook-url', { webhookUrl: null })).statusCode).toBe(
      404,
    )
  })
})

describe('PUT /admin/v1/merchants/:merchantId/underpayment-tolerance', () => {
  it('sets the tolerance from 0 to 5 percent, canonical, and refuses anything else naming the field', async () => {
    const { merchant } = await newMerchant({ name: 'shop-tolerant' })
    const url = `/merchants/${merchant.merchantId}/underpayment-tolerance`
    const set = await admin('PUT', url, { underpaymentTolerancePercent: '1.50' })
    expect(set.statusCode).toBe(200)
    expect(json(set).merchant.underpaymentTolerancePercent).toBe('1.5')
    expect((await merchants.getMerchant(merchant.merchantId))?.underpaymentTolerancePercent).toBe('1.5')
    for (const refused of ['5.01', '-1', '1.234', 'one', '6']) {
      const answer = await admin('PUT', url, { underpaymentTolerancePercent: refused })
      expect(answer.statusCode, refused).toBe(400)
      expect(json(answer).error.message).toMatch(/^underpaymentTolerancePercent: /)
    }
    expect((await merchants.getMerchant(merchant.merchantId))?.underpaymentTolerancePercent).toBe('1.5')
    expect((await admin('PUT', url, { underpaymentTolerancePercent: '5' })).statusCode).toBe(200)
    expect(
      (
        await admin('PUT', '/merchants/mer_unknown/underpayment-tolerance', {
          underpaymentTolerancePercent: '1',
        })
      ).statusCode,
    ).toBe(404)
  })
})

describe('PUT /admin/v1/merchants/:merchantId/display-name', () => {
  it("sets and clears what the customer's page calls the merchant", async () => {
    const { merchant } = await newMerchant({ name: 'shop-42 (internal)' })
    const url = `/merchants/${merchant.merchantId}/display-name`
    const set = await admin('PUT', url, { displayName: '  Acme Store GmbH ' })
    expect(set.statusCode).toBe(200)
    expect(json(set).merchant).toMatchObject({ name: 'shop-42 (internal)', displayName: 'Acme Store GmbH' })
    expect((await merchants.getMerchant(merchant.merchantId))?.displayName).toBe('Acme Store GmbH')
    const cleared = await admin('PUT', url, { displayName: null })
    expect(json(cleared).merchant.displayName).toBeNull()
    expect(json(await admin('PUT', url, { displayName: 'Acme\u202Eerots' }))).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message:
          'displayName: must not contain a bidirectional override, embedding or isolate (U+202E at character 5)',
      },
    })
    expect(json(await admin('PUT', url, { displayName: '   ' }))).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'displayName: must be a non-empty string' },
    })
    expect((await admin('PUT', url, {})).statusCode).toBe(400)
    expect((await admin('PUT', '/merchants/mer_unknown/display-name', { displayName: 'x' })).statusCode).toBe(
      404,
    )
  })
})

describe('PUT /admin/v1/merchants/:merchantId/logo-url', () => {
  it("sets and clears the logo of the customer's page, under the URL policy", async () => {
    const { merchant } = await newMerchant()
    const url = `/merchants/${merchant.merchantId}/logo-url`
    const set = await admin('PUT', url, { logoUrl: 'https://cdn.shop.example/logo.png' })
    expect(set.statusCode).toBe(200)
    expect(json(set).merchant.logoUrl).toBe('https://cdn.shop.example/logo.png')
    expect((await merchants.getMerchant(merchant.merchantId))?.logoUrl).toBe(
      'https://cdn.shop.example/logo.png',
    )
    expect(json(await admin('PUT', url, { logoUrl: 'http://10.0.0.7/logo.png' })).error.code).toBe(
      'VALIDATION_ERROR',
    )
    expect(json(await admin('PUT', url, { logoUrl: null })).merchant.logoUrl).toBeNull()
    expect((await admin('PUT', '/merchants/mer_unknown/logo-url', { logoUrl: null })).statusCode).toBe(404)
  })
})

describe('PUT /admin/v1/merchants/:merchantId/fee-policy', () => {
  it('sets the fee policy, and authenticated requests see it at once', async () => {
    const created = await newMerchant()
    const url = `/merchants/${created.merchant.merchantId}/fee-policy`
    expect((await authenticator.authenticate(created.apiKey))?.merchant.feePolicy.feeBps).toBe(100)
    const policy = { feeBps: 50, fixedFees: { 'TRON:USDT': '0.5', 'SOLANA:SOL': '0.000000001' } }
    const response = await admin('PUT', url, policy)
    expect(response.statusCode).toBe(200)
    expect(json(response).merchant.feePolicy).toEqual(policy)
    expect((await merchants.getMerchant(created.merchant.merchantId))?.feePolicy).toEqual(policy)
    expect((await authenticator.authenticate(created.apiKey))?.merchant.feePolicy).toEqual(policy)
    const withoutFixed = await admin('PUT', url, { feeBps: 0 })
    expect(json(withoutFixed).merchant.feePolicy).toEqual({ feeBps: 0, fixedFees: {} })
  })

  it('accepts only registered assets and amounts that fit their decimals', async () => {
    const { merchant } = await newMerchant()
    const url = `/merchants/${merchant.merchantId}/fee-policy`
    const cases: Array<[unknown, RegExp]> = [
      [{ feeBps: 10_001, fixedFees: {} }, /^feeBps: must be at most 10000$/],
      [{ feeBps: -1 }, /^feeBps: must be at least 0$/],
      [{ feeBps: 10, fixedFees: { 'TRON:BTC': '1' } }, /^fixedFees\.TRON:BTC: not a registered asset/],
      [
        { feeBps: 10, fixedFees: { 'TRON:USDT': '0.0000001' } },
        /^fixedFees\.TRON:USDT: at most 6 decimal places/,
      ],
      [{ feeBps: 10, fixedFees: { 'TRON:USDT': '1e-3' } }, /^fixedFees\.TRON:USDT: must be a decimal string/],
      [{ feeBps: 10, fixedFees: { tron_usdt: '1' } }, /^fixedFees: key 'tron_usdt' is not allowed/],
    ]
    for (const [body, message] of cases) {
      const response = await admin('PUT', url, body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(json(response).error.code).toBe('VALIDATION_ERROR')
      expect(json(response).error.message).toMatch(message)
    }
    expect((await merchants.getMerchant(merchant.merchantId))?.feePolicy).toEqual({
      feeBps: 100,
      fixedFees: {},
    })
    expect((await admin('PUT', '/merchants/mer_unknown/fee-policy', { feeBps: 1 })).statusCode).toBe(404)
  })
})

describe('webhook deliveries', () => {
  const delivery = (deliveryId: string, merchantId: string, changes: Partial<WebhookDelivery> = {}) => ({
    deliveryId,
    paymentId: 'pay-1',
    merchantId,
    eventType: 'payment.pending',
    sequence: 0,
    payload: { event: 'payment.pending', payment: { id: 'pay-1' } },
    targetUrl: 'https://shop.example/hooks',
    status: 'pending' as const,
    attempts: 0,
    nextAttemptAt: NOW,
    createdAt: NOW,
    deliveredAt: null,
    lastError: null,
    ...changes,
  })

  it("lists a payment's deliveries with their attempts, only the merchant's own", async () => {
    await deliveries.enqueue(delivery('evt-1', 'mer_a'))
    await deliveries.enqueue(delivery('evt-other', 'mer_b', { sequence: 1 }))
    await deliveries.recordAttempt(
      { deliveryId: 'evt-1', attempt: 1, at: NOW, statusCode: 500, durationMs: 12, error: 'HTTP 500' },
      { status: 'failed' },
    )
    const response = await admin('GET', '/merchants/mer_a/payments/pay-1/deliveries')
    expect(response.statusCode).toBe(200)
    const listed = json(response).deliveries
    expect(listed).toHaveLength(1)
    expect(listed[0].delivery).toMatchObject({ deliveryId: 'evt-1', status: 'failed', attempts: 1 })
    expect(listed[0].attempts).toEqual([
      { deliveryId: 'evt-1', attempt: 1, at: NOW, statusCode: 500, durationMs: 12, error: 'HTTP 500' },
    ])
    expect(json(await admin('GET', '/merchants/mer_c/payments/pay-1/deliveries')).deliveries).toEqual([])
  })

  it('puts a delivery back in line; 404 for an unknown one', async () => {
    await deliveries.enqueue(delivery('evt-1', 'mer_a'))
    await deliveries.recordAttempt(
      { deliveryId: 'evt-1', attempt: 1, at: NOW, statusCode: null, durationMs: 10_000, error: 'timeout' },
      { status: 'failed' },
    )
    clock.advance(60_000)
    const response = await admin('POST', '/deliveries/evt-1/redeliver')
    expect(response.statusCode).toBe(200)
    expect(json(response).delivery).toMatchObject({
      deliveryId: 'evt-1',
      status: 'pending',
      nextAttemptAt: '2030-02-01T08:01:00.000Z',
    })
    const unknown = await admin('POST', '/deliveries/evt-unknown/redeliver')
    expect(unknown.statusCode).toBe(404)
    expect(json(unknown).error.code).toBe('NOT_FOUND')
  })

  it("lists a merchant's failed deliveries page by page, and redelivers them all at once", async () => {
    for (let index = 0; index < 5; index++) {
      await deliveries.enqueue(
        delivery(`evt-${index}`, 'mer_a', {
          paymentId: `pay-${index}`,
          createdAt: `2030-02-01T08:00:0${index}.000Z`,
        }),
      )
      if (index !== 2) {
        await deliveries.recordAttempt(
          {
            deliveryId: `evt-${index}`,
            attempt: 1,
            at: NOW,
            statusCode: 503,
            durationMs: 5,
            error: 'HTTP 503',
          },
          { status: 'failed' },
        )
      }
    }
    await deliveries.enqueue(delivery('evt-b', 'mer_b', { status: 'failed', nextAttemptAt: null }))
    const first = json(await admin('GET', '/merchants/mer_a/deliveries?status=failed&limit=3'))
    expect(first.deliveries.map((item: { delivery: WebhookDelivery }) => item.delivery.deliveryId)).toEqual([
      'evt-4',
      'evt-3',
      'evt-1',
    ])
    expect(first.deliveries[0].attempts).toEqual([
      { deliveryId: 'evt-4', attempt: 1, at: NOW, statusCode: 503, durationMs: 5, error: 'HTTP 503' },
    ])
    const second = json(
      await admin('GET', `/merchants/mer_a/deliveries?status=failed&limit=3&cursor=${first.nextCursor}`),
    )
    expect(second.deliveries.map((item: { delivery: WebhookDelivery }) => item.delivery.deliveryId)).toEqual([
      'evt-0',
    ])
    expect(second.nextCursor).toBeNull()
    expect((await admin('GET', '/merchants/mer_a/deliveries?status=lost')).statusCode).toBe(400)

    clock.advance(60_000)
    const bulk = await admin('POST', '/merchants/mer_a/deliveries/redeliver-failed')
    expect(bulk.statusCode).toBe(200)
    expect(json(bulk)).toEqual({ redelivered: 4 })
    for (const id of ['evt-0', 'evt-1', 'evt-3', 'evt-4']) {
      expect(await deliveries.get(id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: '2030-02-01T08:01:00.000Z',
      })
    }
    // another merchant's are left alone; nothing failed is left to redeliver
    expect(await deliveries.get('evt-b')).toMatchObject({ status: 'failed' })
    expect(json(await admin('POST', '/merchants/mer_a/deliveries/redeliver-failed'))).toEqual({
      redelivered: 0,
    })
  })

  it('offers no delivery routes without a delivery store', async () => {
    await app.close()
    app = await buildApp({ withDeliveries: false })
    expect((await admin('GET', '/merchants/mer_a/payments/pay-1/deliveries')).statusCode).toBe(404)
    expect((await admin('POST', '/deliveries/evt-1/redeliver')).statusCode).toBe(404)
  })
})

describe('admin metrics', () => {
  it('observes requests by route pattern, and serves no /metrics (it has a port of its own)', async () => {
    const observed: HttpRequestObservation[] = []
    await app.close()
    app = await buildApp({ requestMetrics: { observeRequest: (request) => observed.push(request) } })
    const { merchant } = await newMerchant()
    expect((await admin('GET', `/merchants/${merchant.merchantId}`)).statusCode).toBe(200)
    expect((await admin('GET', `/merchants/${merchant.merchantId}`, undefined, null)).statusCode).toBe(401)
    const scrape = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    })
    expect(scrape.statusCode).toBe(404)
    expect(observed.map(({ method, route, statusCode }) => [method, route, statusCode])).toEqual([
      ['POST', '/admin/v1/merchants', 201],
      ['GET', '/admin/v1/merchants/:merchantId', 200],
      ['GET', '/admin/v1/merchants/:merchantId', 401],
      ['GET', undefined, 404],
    ])
  })
})

describe('admin routing', () => {
  it('answers 404 NOT_FOUND and 405 METHOD_NOT_ALLOWED in the error body format', async () => {
    const missing = await admin('GET', '/nothing')
    expect(missing.statusCode).toBe(404)
    expect(json(missing).error.code).toBe('NOT_FOUND')
    const wrongMethod = await admin('DELETE', '/merchants')
    expect(wrongMethod.statusCode).toBe(405)
    expect(wrongMethod.headers.allow).toBe('GET, POST, HEAD')
    expect(json(wrongMethod).error.code).toBe('METHOD_NOT_ALLOWED')
    expect(wrongMethod.headers['x-request-id']).toBeTruthy()
  })
})

// docs/api.md, "Conventions": the operator's JSON is read as a merchant's is
describe('admin JSON bodies', () => {
  const raw = (payload: string, contentType = 'application/json') =>
    app.inject({
      method: 'POST',
      url: '/admin/v1/merchants',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': contentType },
      payload,
    })

  it('refuses a repeated key, an inexact number and a charset other than utf-8, creating nothing', async () => {
    const repeated = await raw('{"name":"Shop","name":"Other Shop"}')
    expect(repeated.statusCode).toBe(400)
    expect(json(repeated).error).toEqual({ code: 'VALIDATION_ERROR', message: "body: duplicate key 'name'" })
    const inexact = await raw('{"name":"Shop","feeBps":100.00000000000000001}')
    expect(inexact.statusCode).toBe(400)
    expect(json(inexact).error.message).toMatch(
      /^feeBps: the number 100\.00000000000000001 would not come back/,
    )
    const utf16 = await raw('{"name":"Shop"}', 'application/json; charset=utf-16')
    expect(utf16.statusCode).toBe(415)
    expect(json(utf16).error).toEqual({
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: 'Content-Type: charset must be utf-8',
    })
    expect(await merchants.listMerchants()).toEqual([])
  })
})

describe('long path parameters', () => {
  // every admin route with a parameter, each parameter in turn too long for the router's old limit
  const routes: Array<[method: string, url: (id: string) => string, body?: object]> = [
    ['GET', (id) => `/merchants/${id}`],
    ['POST', (id) => `/merchants/${id}/api-keys`],
    ['POST', (id) => `/merchants/${id}/api-keys/ck_unknown/revoke`],
    ['POST', (id) => `/merchants/merchant-unknown/api-keys/${id}/revoke`],
    ['POST', (id) => `/merchants/${id}/webhook-secret/rotate`],
    ['PUT', (id) => `/merchants/${id}/webhook-url`, { webhookUrl: null }],
    ['PUT', (id) => `/merchants/${id}/display-name`, { displayName: null }],
    ['PUT', (id) => `/merchants/${id}/logo-url`, { logoUrl: null }],
    ['PUT', (id) => `/merchants/${id}/fee-policy`, { feeBps: 10 }],
    ['GET', (id) => `/merchants/${id}/payments/unknown/deliveries`],
    ['GET', (id) => `/merchants/merchant-unknown/payments/${id}/deliveries`],
    ['POST', (id) => `/deliveries/${id}/redeliver`],
  ]

  it('answers them as their route answers any unknown or malformed id: 404 or 400, never a logged 500', async () => {
    for (const [method, url, body] of routes) {
      // within the ids' 128 characters: unknown (or, for a listing, none)
      const unknown = await admin(method, url('x'.repeat(101)), body)
      expect([200, 404], `${method} ${url('…')}`).toContain(unknown.statusCode)
      if (unknown.statusCode === 404) expect(json(unknown).error.code).toBe('NOT_FOUND')
      // beyond them: malformed
      const malformed = await admin(method, url('x'.repeat(2000)), body)
      expect(malformed.statusCode, `${method} ${url('…')}`).toBe(400)
      expect(json(malformed).error).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/must be at most 128 characters$/),
      })
    }
    expect(logLines.filter((line) => ['error', 'fatal'].includes(JSON.parse(line).level))).toEqual([])
  })
})
