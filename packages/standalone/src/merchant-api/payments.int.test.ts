import type { PaymentReadModel } from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FIXTURE_START,
  json,
  type MerchantApiFixture,
  openMerchantApiFixture,
} from './merchant-api-fixture.js'

const PAYMENTS = '/api/merchant/v1/payments'
const UNKNOWN_ID = '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e'
const base = { amount: '10.5', currency: 'USDT', network: 'TRON' }

type Body = Record<string, unknown>
const errorOf = (response: { body: string }) =>
  json<{ error: { code: string; message: string } }>(response).error

let fixture: MerchantApiFixture

afterEach(() => fixture.close())

describe('POST /payments', () => {
  beforeEach(async () => {
    fixture = await openMerchantApiFixture()
  })

  const rejected = async (body: Body) => {
    const response = await fixture.create(body)
    expect(response.statusCode, response.body).toBe(400)
    return errorOf(response)
  }

  it('creates a pending payment: 201, Location, the full payment object', async () => {
    const body = {
      ...base,
      amount: '10.50',
      description: 'Order #7',
      metadata: { orderId: 'A-7' },
      callbackUrl: 'https://shop.example/hooks',
      successRedirectUrl: 'https://shop.example/ok',
      cancelRedirectUrl: 'https://shop.example/cancel',
      expiresInMinutes: 45,
      idempotencyKey: 'order-7',
    }
    const response = await fixture.create(body)
    expect(response.statusCode).toBe(201)
    const payment = json(response)
    expect(response.headers.location).toBe(`${PAYMENTS}/${payment.paymentId}`)
    expect(response.headers['idempotent-replayed']).toBeUndefined()
    expect(payment).toEqual({
      paymentId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      network: 'TRON',
      currency: 'USDT',
      tokenStandard: 'TRC20',
      amount: '10.50',
      expectedAmount: '10.5',
      receivedAmount: null,
      generatedAddress: 'TRON-address-0',
      generatedTokenAccount: null,
      addressMode: 'PER_PAYMENT',
      merchantUserId: null,
      txHash: null,
      confirmations: 0,
      createdAt: FIXTURE_START,
      confirmedAt: null,
      expiresAt: '2030-01-15T12:45:00.000Z',
      metadata: { orderId: 'A-7' },
      callbackUrl: 'https://shop.example/hooks',
      successRedirectUrl: 'https://shop.example/ok',
      cancelRedirectUrl: 'https://shop.example/cancel',
      feeAmount: '0.105',
      netAmount: '10.395',
      description: body.description,
      requiredConfirmations: 20,
      lateFunds: [],
      receivedFeeAmount: null,
      receivedNetAmount: null,
      checkoutUrl: fixture.checkoutDeps.checkoutLinks.urlOf(payment.paymentId as string),
      foreignFunds: [],
      priceAmount: null,
      priceCurrency: null,
      rate: null,
      underpaymentTolerancePercent: '0',
      shortfallAmount: null,
      invoiceId: null,
    })
  })

  it('defaults: 30 minutes, PER_PAYMENT, null URLs, empty metadata', async () => {
    const payment = json(await fixture.create(base))
    expect(payment).toMatchObject({
      expiresAt: '2030-01-15T12:30:00.000Z',
      addressMode: 'PER_PAYMENT',
      callbackUrl: null,
      successRedirectUrl: null,
      cancelRedirectUrl: null,
      metadata: {},
    })
  })

  it('writes the create response with its fields in the order of the table of the payment object (docs/api.md)', async () => {
    const response = await fixture.create({ ...base, callbackUrl: 'https://shop.example/hooks' })
    expect(Object.keys(json(response))).toEqual([
      'paymentId',
      'status',
      'network',
      'currency',
      'tokenStandard',
      'amount',
      'expectedAmount',
      'receivedAmount',
      'generatedAddress',
      'generatedTokenAccount',
      'addressMode',
      'merchantUserId',
      'txHash',
      'confirmations',
      'createdAt',
      'confirmedAt',
      'expiresAt',
      'metadata',
      'callbackUrl',
      'successRedirectUrl',
      'cancelRedirectUrl',
      'feeAmount',
      'netAmount',
      'description',
      'requiredConfirmations',
      'lateFunds',
      'receivedFeeAmount',
      'receivedNetAmount',
      'foreignFunds',
      'checkoutUrl',
      'priceAmount',
      'priceCurrency',
      'rate',
      'underpaymentTolerancePercent',
      'shortfallAmount',
      'invoiceId',
    ])
  })

  it('gives every payment an address of its own, across merchants', async () => {
    const addresses = [
      json(await fixture.create(base)).generatedAddress,
      json(await fixture.create(base, fixture.otherMerchant)).generatedAddress,
      json(await fixture.create(base)).generatedAddress,
    ]
    expect(new Set(addresses).size).toBe(3)
  })

  it('keeps the fee fixed at creation when the merchant fee policy changes later', async () => {
    const created = json(await fixture.create({ ...base, amount: '100' }))
    expect(created).toMatchObject({ feeAmount: '1', netAmount: '99' })
    await fixture.merchants.updateMerchant(
      fixture.merchant.merchant.merchantId,
      { feePolicy: { feeBps: 500, fixedFees: { 'TRON:USDT': '2' } } },
      FIXTURE_START,
    )
    fixture.authenticator.invalidate()
    const read = json(await fixture.send('GET', `${PAYMENTS}/${created.paymentId}`))
    expect(read).toMatchObject({ feeAmount: '1', netAmount: '99' })
    expect(json(await fixture.create({ ...base, amount: '100' }))).toMatchObject({
      feeAmount: '7',
      netAmount: '93',
    })
  })

  it('infers tokenStandard, and fills generatedTokenAccount for an SPL asset', async () => {
    const payment = json(await fixture.create({ amount: '5', currency: 'USDC', network: 'SOLANA' }))
    expect(payment.tokenStandard).toBe('SPL')
    expect(payment.generatedTokenAccount).toBe(`${payment.generatedAddress}-token-account`)
  })

  it('uses the merchant fee policy', async () => {
    await fixture.merchants.updateMerchant(
      fixture.merchant.merchant.merchantId,
      { feePolicy: { feeBps: 250, fixedFees: { 'TRON:USDT': '0.1' } } },
      FIXTURE_START,
    )
    fixture.authenticator.invalidate()
    const payment = json(await fixture.create({ ...base, amount: '100' }))
    expect(payment).toMatchObject({ feeAmount: '2.6', netAmount: '97.4' })
  })

  it('returns metadata exactly as sent, whatever the keys', async () => {
    const metadata = {
      $where: 'sleep(1)',
      'a.b': 'dotted',
      'emoji 💸': true,
      n: 1.5,
      none: null,
      __proto__x: 'p',
    }
    const payment = json(await fixture.create({ ...base, metadata }))
    expect(payment.metadata).toEqual(metadata)
  })

  describe('field rules (docs/api.md, "POST /payments")', () => {
    it.each(['amount', 'currency', 'network'])('requires %s', async (field) => {
      const body: Body = { ...base }
      delete body[field]
      expect(await rejected(body)).toEqual({ code: 'VALIDATION_ERROR', message: `${field}: is required` })
    })

    it('wants amount as a string', async () => {
      expect(await rejected({ ...base, amount: 10.5 })).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'amount: must be a string',
      })
    })

    it.each(['1e3', '-1', '01', '1.', '.5', ' 1', '1,5', ''])('refuses the amount %j', async (amount) => {
      const error = await rejected({ ...base, amount })
      expect(error.code).toBe('VALIDATION_ERROR')
      expect(error.message).toMatch(/^amount: /)
    })

    it('wants an amount greater than 0', async () => {
      expect(await rejected({ ...base, amount: '0.000' })).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'amount: must be greater than 0',
      })
    })

    it("wants at most the asset's decimals", async () => {
      expect((await fixture.create({ ...base, amount: '1.123456' })).statusCode).toBe(201)
      expect(await rejected({ ...base, amount: '1.1234567' })).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'amount: at most 6 decimal places for USDT on TRON',
      })
      expect(
        (await fixture.create({ amount: '1.123456789', currency: 'SOL', network: 'SOLANA' })).statusCode,
      ).toBe(201)
    })

    it('wants a SOL amount of at least the rent-exempt minimum of a system account, naming it', async () => {
      const sol = { currency: 'SOL', network: 'SOLANA' }
      expect(await rejected({ ...sol, amount: '0.000890879' })).toEqual({
        code: 'VALIDATION_ERROR',
        message:
          'amount: at least 0.00089088 for SOL on SOLANA (the rent-exempt minimum of a Solana account: a first transfer of less to a fresh address fails on chain)',
      })
      expect((await fixture.create({ ...sol, amount: '0.00089088' })).statusCode).toBe(201)
      expect(
        (await fixture.create({ currency: 'USDC', network: 'SOLANA', amount: '0.000001' })).statusCode,
      ).toBe(201)
    })

    it('wants at most the per-asset maximum', async () => {
      expect((await fixture.create({ ...base, amount: '1000000000' })).statusCode).toBe(201)
      expect((await rejected({ ...base, amount: '1000000000.000001' })).message).toBe(
        'amount: at most 1000000000 for USDT on TRON',
      )
    })

    it('wants expiresInMinutes as an integer from 1 to 1440', async () => {
      for (const ok of [1, 1440])
        expect((await fixture.create({ ...base, expiresInMinutes: ok })).statusCode).toBe(201)
      expect((await rejected({ ...base, expiresInMinutes: 0 })).message).toBe(
        'expiresInMinutes: must be at least 1',
      )
      expect((await rejected({ ...base, expiresInMinutes: 1441 })).message).toBe(
        'expiresInMinutes: must be at most 1440',
      )
      expect((await rejected({ ...base, expiresInMinutes: 1.5 })).message).toBe(
        'expiresInMinutes: must be an integer',
      )
      expect((await rejected({ ...base, expiresInMinutes: '30' })).message).toBe(
        'expiresInMinutes: must be an integer',
      )
    })

    it('wants a description of at most 1000 characters', async () => {
      expect((await fixture.create({ ...base, description: '☕'.repeat(1000) })).statusCode).toBe(201)
      expect((await rejected({ ...base, description: 'x'.repeat(1001) })).message).toBe(
        'description: must be at most 1000 characters',
      )
    })

    it('accepts PER_PAYMENT as addressMode and refuses one it does not know', async () => {
      expect((await fixture.create({ ...base, addressMode: 'PER_PAYMENT' })).statusCode).toBe(201)
      const error = await rejected({ ...base, addressMode: 'SHARED' })
      expect(error.code).toBe('VALIDATION_ERROR')
      expect(error.message).toMatch(/^addressMode: must be/)
    })

    it('bounds metadata: 50 keys, keys of 1 to 64 characters, flat values, strings of 500', async () => {
      const keys = (count: number) =>
        Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]))
      expect((await fixture.create({ ...base, metadata: keys(50) })).statusCode).toBe(201)
      expect((await rejected({ ...base, metadata: keys(51) })).message).toBe(
        'metadata: must have at most 50 keys',
      )
      expect((await fixture.create({ ...base, metadata: { ['k'.repeat(64)]: 1 } })).statusCode).toBe(201)
      expect((await rejected({ ...base, metadata: { ['k'.repeat(65)]: 1 } })).message).toMatch(
        /^metadata: key 'k{65}' is not allowed \(keys must be at most 64 characters\)$/,
      )
      expect((await rejected({ ...base, metadata: { '': 1 } })).message).toMatch(
        /^metadata: key '' is not allowed/,
      )
      expect((await rejected({ ...base, metadata: { note: 'x'.repeat(501) } })).message).toBe(
        'metadata.note: must be at most 500 characters',
      )
      expect((await rejected({ ...base, metadata: { nested: { a: 1 } } })).message).toBe(
        'metadata.nested: must be a string, a number, a boolean or null',
      )
      expect((await rejected({ ...base, metadata: { list: [1] } })).message).toBe(
        'metadata.list: must be a string, a number, a boolean or null',
      )
      expect((await rejected({ ...base, metadata: ['a'] })).message).toBe('metadata: must be an object')
    })

    it.each(['callbackUrl', 'successRedirectUrl', 'cancelRedirectUrl'])(
      'wants %s to be an absolute http(s) URL of at most 2048 characters',
      async (field) => {
        expect(await rejected({ ...base, [field]: '/relative' })).toEqual({
          code: 'VALIDATION_ERROR',
          message: `${field}: must be an absolute http(s) URL`,
        })
        expect((await rejected({ ...base, [field]: 'ftp://shop.example/x' })).message).toBe(
          `${field}: must be an absolute http(s) URL`,
        )
        const long = `https://shop.example/${'p'.repeat(2049 - 'https://shop.example/'.length)}`
        expect((await rejected({ ...base, [field]: long })).message).toBe(
          `${field}: must be at most 2048 characters`,
        )
      },
    )

    it('wants callbackUrl on https and a public host in production configuration', async () => {
      expect((await rejected({ ...base, callbackUrl: 'http://shop.example/hooks' })).message).toBe(
        'callbackUrl: must use https',
      )
      for (const host of ['127.0.0.1', '10.0.0.8', '169.254.169.254', '[::1]']) {
        expect((await rejected({ ...base, callbackUrl: `https://${host}/hooks` })).message).toBe(
          'callbackUrl: must not point at a private address',
        )
      }
      expect((await rejected({ ...base, callbackUrl: 'https://localhost/hooks' })).message).toBe(
        'callbackUrl: must not point at a local or internal host name',
      )
      // the redirect URLs are where a browser goes, not where the service connects
      expect((await fixture.create({ ...base, successRedirectUrl: 'http://127.0.0.1/ok' })).statusCode).toBe(
        201,
      )
    })

    it('accepts every bounded field at its upper limit', async () => {
      const url = (field: string) => `https://shop.example/${field}/${'p'.repeat(2048)}`.slice(0, 2048)
      const response = await fixture.create({
        ...base,
        description: 'd'.repeat(1000),
        metadata: { ['k'.repeat(64)]: 'v'.repeat(500) },
        callbackUrl: url('hooks'),
        successRedirectUrl: url('ok'),
        cancelRedirectUrl: url('cancel'),
        expiresInMinutes: 1440,
        idempotencyKey: 'k'.repeat(255),
      })
      expect(response.statusCode, response.body).toBe(201)
      expect(json(response).callbackUrl).toHaveLength(2048)
    })

    it('rejects unknown fields, naming them', async () => {
      expect(await rejected({ ...base, foo: 1 })).toEqual({
        code: 'VALIDATION_ERROR',
        message: "body: unknown field 'foo'",
      })
    })

    it('wants an object body', async () => {
      for (const body of ['[]', '"text"', 'null', '42']) {
        const response = await fixture.send('POST', PAYMENTS, { body })
        expect(response.statusCode).toBe(400)
        expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be an object' })
      }
    })

    it('wants idempotencyKey of 1 to 255 characters', async () => {
      expect((await fixture.create({ ...base, idempotencyKey: 'k'.repeat(255) })).statusCode).toBe(201)
      expect((await rejected({ ...base, idempotencyKey: '' })).message).toBe(
        'idempotencyKey: must be at least 1 characters',
      )
      expect((await rejected({ ...base, idempotencyKey: 'k'.repeat(256) })).message).toBe(
        'idempotencyKey: must be at most 255 characters',
      )
    })

    it('answers 400 UNSUPPORTED_ASSET for anything outside the registry, listing what is supported', async () => {
      for (const asset of [
        { currency: 'usdt', network: 'TRON' },
        { currency: 'USDT', network: 'tron' },
        { currency: 'BTC', network: 'TRON' },
        { currency: 'USDT', network: 'TRON', tokenStandard: 'SPL' },
        { currency: 'USDC', network: 'TRON' },
      ]) {
        const response = await fixture.create({ amount: '1', ...asset })
        expect(response.statusCode).toBe(400)
        const error = errorOf(response)
        expect(error.code).toBe('UNSUPPORTED_ASSET')
        expect(error.message).toContain('TRON: TRX (NATIVE), USDT (TRC20)')
      }
      expect((await fixture.create({ ...base, tokenStandard: 'TRC20' })).statusCode).toBe(201)
    })
  })

  // docs/api.md, "Conventions": a JSON text that means one thing only
  describe('the JSON body', () => {
    const sent = (body: string) => fixture.send('POST', PAYMENTS, { body })
    const refusal = async (body: string) => {
      const response = await sent(body)
      expect(response.statusCode, response.body).toBe(400)
      return errorOf(response)
    }

    it.each([
      [
        '{"amount":"10.5","currency":"USDT","network":"TRON","amount":"1000"}',
        "body: duplicate key 'amount'",
      ],
      [
        '{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"a":1,"a":2}}',
        "metadata: duplicate key 'a'",
      ],
      // the same key written two ways
      [
        '{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"orderId":"1","order\\u0049d":"2"}}',
        "metadata: duplicate key 'orderId'",
      ],
      [
        '{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"x":[{"k":1,"k":1}]}}',
        "metadata.x.0: duplicate key 'k'",
      ],
    ])('refuses a repeated key: %s', async (body, message) => {
      expect(await refusal(body)).toEqual({ code: 'VALIDATION_ERROR', message })
    })

    it.each([
      '12345678901234567890',
      '1e400',
      '-1e400',
      '1e-400',
      '0.1000000000000000055511151231257827',
      '9007199254740993',
    ])('refuses the metadata number %s, which would come back changed', async (number) => {
      const body = `{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"n":${number}}}`
      expect(await refusal(body)).toEqual({
        code: 'VALIDATION_ERROR',
        message: `metadata.n: the number ${number} would not come back as sent (JSON numbers are 64-bit floats here); send it as a string`,
      })
    })

    it('refuses such a number in any field, naming it', async () => {
      expect(
        (
          await refusal(
            '{"amount":"10.5","currency":"USDT","network":"TRON","expiresInMinutes":30.0000000000000000001}',
          )
        ).message,
      ).toMatch(/^expiresInMinutes: the number 30\.0000000000000000001 would not come back as sent/)
    })

    it('accepts a number whose value comes back, in its shortest form', async () => {
      const body =
        '{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"a":1.0,"b":1e2,"c":0.1,"d":-0,"e":9007199254740991,"f":1.7976931348623157e308,"g":5e-324}}'
      const response = await sent(body)
      expect(response.statusCode, response.body).toBe(201)
      expect(response.body).toContain(
        '"metadata":{"a":1,"b":100,"c":0.1,"d":0,"e":9007199254740991,"f":1.7976931348623157e+308,"g":5e-324}',
      )
    })

    it('refuses nesting deeper than 64 levels, however deep', async () => {
      for (const depth of [65, 30_000]) {
        const body = `{"amount":"10.5","currency":"USDT","network":"TRON","metadata":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`
        expect(await refusal(body)).toEqual({
          code: 'VALIDATION_ERROR',
          message: 'body: must not nest deeper than 64 levels',
        })
      }
    })
  })

  describe('idempotency', () => {
    it('replays the same request with 200 and Idempotent-Replayed: true', async () => {
      const body = { ...base, idempotencyKey: 'order-1', metadata: { a: 1, b: 2 } }
      const first = await fixture.create(body)
      expect(first.statusCode).toBe(201)
      // the same JSON document with its keys in another order is the same request
      const replay = await fixture.create({ metadata: { b: 2, a: 1 }, idempotencyKey: 'order-1', ...base })
      expect(replay.statusCode).toBe(200)
      expect(replay.headers['idempotent-replayed']).toBe('true')
      expect(replay.headers.location).toBeUndefined()
      expect(json(replay)).toEqual(json(first))
    })

    it('answers 409 IDEMPOTENCY_KEY_REUSED when any field differs, a default made explicit included', async () => {
      await fixture.create({ ...base, idempotencyKey: 'order-2' })
      for (const changed of [
        { ...base, amount: '10.6', idempotencyKey: 'order-2' },
        { ...base, expiresInMinutes: 30, idempotencyKey: 'order-2' },
      ]) {
        const response = await fixture.create(changed)
        expect(response.statusCode).toBe(409)
        expect(errorOf(response)).toEqual({
          code: 'IDEMPOTENCY_KEY_REUSED',
          message: 'idempotencyKey: already used with a different request',
        })
      }
    })

    it('keeps keys without expiry: the same request a year later is still a replay', async () => {
      const body = { ...base, idempotencyKey: 'order-old' }
      const first = json(await fixture.create(body))
      fixture.clock.advance(366 * 24 * 60 * 60 * 1000)
      const replay = await fixture.create(body)
      expect(replay.statusCode).toBe(200)
      expect(replay.headers['idempotent-replayed']).toBe('true')
      expect(json(replay)).toEqual(first)
      expect((await fixture.create({ ...body, amount: '11' })).statusCode).toBe(409)
    })

    it('scopes keys to the merchant', async () => {
      const mine = json(await fixture.create({ ...base, idempotencyKey: 'shared' }))
      const theirs = await fixture.create({ ...base, idempotencyKey: 'shared' }, fixture.otherMerchant)
      expect(theirs.statusCode).toBe(201)
      expect(json(theirs).paymentId).not.toBe(mine.paymentId)
    })

    it('refuses a key with an unpaired surrogate: two such keys would name one payment', async () => {
      // JSON.stringify writes them as the escapes \ud800 and \ud801
      for (const idempotencyKey of ['order-\ud800', 'order-\ud801']) {
        expect(await rejected({ ...base, idempotencyKey })).toEqual({
          code: 'VALIDATION_ERROR',
          message: 'idempotencyKey: must be well-formed Unicode (it holds an unpaired surrogate)',
        })
      }
      expect(await fixture.eventStore.readAll(null, 10)).toEqual([])
    })

    it('creates exactly one payment for 20 concurrent duplicates', async () => {
      const body = { ...base, idempotencyKey: 'burst' }
      const responses = await Promise.all(Array.from({ length: 20 }, () => fixture.create(body)))
      const statuses = responses.map((response) => response.statusCode).sort()
      expect(statuses.filter((status) => status === 201)).toHaveLength(1)
      expect(statuses.filter((status) => status === 200)).toHaveLength(19)
      expect(new Set(responses.map((response) => json(response).paymentId)).size).toBe(1)
      const created = (await fixture.eventStore.readAll(null, 1000)).filter(
        (event) => event.type === 'PaymentCreated',
      )
      expect(created).toHaveLength(1)
    })
  })
})

describe('GET /payments/:paymentId', () => {
  beforeEach(async () => {
    fixture = await openMerchantApiFixture()
  })

  it('shows a payment right after its creation, from the write-through alone, without the URLs', async () => {
    const created = json(await fixture.create({ ...base, callbackUrl: 'https://shop.example/h' }))
    const document = await fixture.readModel.get(created.paymentId as string)
    expect(document).toMatchObject({ revision: 0, merchantId: fixture.merchant.merchant.merchantId })
    const response = await fixture.send('GET', `${PAYMENTS}/${created.paymentId}`)
    expect(response.statusCode).toBe(200)
    const { callbackUrl, successRedirectUrl, cancelRedirectUrl, ...view } = created
    expect(json(response)).toEqual(view)
    expect(json(response)).not.toHaveProperty('callbackUrl')
  })

  it('accepts the id in upper case', async () => {
    const created = json(await fixture.create(base))
    const response = await fixture.send('GET', `${PAYMENTS}/${String(created.paymentId).toUpperCase()}`)
    expect(response.statusCode).toBe(200)
    expect(json(response).paymentId).toBe(created.paymentId)
  })

  it('answers 400 VALIDATION_ERROR for a malformed id', async () => {
    for (const id of ['not-a-uuid', '0b5c1a8e3f1d4c6b9a7e2d4f6a8b0c1e', `${UNKNOWN_ID}x`]) {
      const response = await fixture.send('GET', `${PAYMENTS}/${id}`)
      expect(response.statusCode).toBe(400)
      expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: 'paymentId: must be a UUID' })
    }
  })

  it('answers an id of any length like any malformed id, GET and cancel alike, logging no error', async () => {
    for (const id of ['a'.repeat(101), 'a'.repeat(5000)]) {
      for (const url of [`${PAYMENTS}/${id}`, `${PAYMENTS}/${id}/cancel`]) {
        const response = await fixture.send(url.endsWith('/cancel') ? 'POST' : 'GET', url)
        expect(response.statusCode).toBe(400)
        expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: 'paymentId: must be a UUID' })
      }
    }
    expect(fixture.logLines().filter((line) => ['error', 'fatal'].includes(JSON.parse(line).level))).toEqual(
      [],
    )
  })

  it('answers 404 PAYMENT_NOT_FOUND for an unknown id', async () => {
    const response = await fixture.send('GET', `${PAYMENTS}/${UNKNOWN_ID}`)
    expect(response.statusCode).toBe(404)
    expect(errorOf(response)).toEqual({
      code: 'PAYMENT_NOT_FOUND',
      message: `payment ${UNKNOWN_ID} not found`,
    })
  })

  it('answers 404 PAYMENT_NOT_FOUND for the Nil and Max UUIDs, well-formed ids no payment has', async () => {
    for (const id of ['00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF']) {
      for (const [method, url] of [
        ['GET', `${PAYMENTS}/${id}`],
        ['POST', `${PAYMENTS}/${id}/cancel`],
        ['GET', `${PAYMENTS}/${id}/events`],
      ] as const) {
        const response = await fixture.send(method, url)
        expect(response.statusCode, `${method} ${url}`).toBe(404)
        expect(errorOf(response)).toEqual({
          code: 'PAYMENT_NOT_FOUND',
          message: `payment ${id.toLowerCase()} not found`,
        })
      }
    }
  })

  it("answers 404 for another merchant's payment, from the read model and from the fallback", async () => {
    const projected = json(await fixture.create(base, fixture.otherMerchant))
    const response = await fixture.send('GET', `${PAYMENTS}/${projected.paymentId}`)
    expect(response.statusCode).toBe(404)
    expect(errorOf(response).code).toBe('PAYMENT_NOT_FOUND')
    const unprojected = await fixture.handler.createPayment({
      merchantId: fixture.otherMerchant.merchant.merchantId,
      request: base,
    })
    const fallback = await fixture.send('GET', `${PAYMENTS}/${unprojected.payment.created.paymentId}`)
    expect(fallback.statusCode).toBe(404)
  })

  it('falls back to payment-command for a payment the read model has not seen', async () => {
    const { payment } = await fixture.handler.createPayment({
      merchantId: fixture.merchant.merchant.merchantId,
      request: { ...base, metadata: { via: 'command side' } },
    })
    expect(await fixture.readModel.get(payment.created.paymentId)).toBeNull()
    const response = await fixture.send('GET', `${PAYMENTS}/${payment.created.paymentId}`)
    expect(response.statusCode).toBe(200)
    expect(json(response)).toMatchObject({ status: 'pending', metadata: { via: 'command side' } })
  })
})

describe('POST /payments/:paymentId/cancel', () => {
  beforeEach(async () => {
    fixture = await openMerchantApiFixture()
  })

  const cancel = (paymentId: unknown, body?: string) =>
    fixture.send('POST', `${PAYMENTS}/${String(paymentId)}/cancel`, body === undefined ? {} : { body })

  it('cancels a pending payment, and a GET right after shows it canceled', async () => {
    const created = json(await fixture.create(base))
    const response = await cancel(created.paymentId)
    expect(response.statusCode).toBe(200)
    const canceled = json(response)
    expect(canceled).toMatchObject({ paymentId: created.paymentId, status: 'canceled' })
    expect(canceled).not.toHaveProperty('callbackUrl')
    const read = await fixture.send('GET', `${PAYMENTS}/${created.paymentId}`)
    expect(json(read)).toEqual(canceled)
    expect((await fixture.readModel.get(created.paymentId as string))?.revision).toBe(1)
  })

  it('answers a repeated cancel with 200 and the same object', async () => {
    const created = json(await fixture.create(base))
    const first = json(await cancel(created.paymentId))
    const again = await cancel(created.paymentId)
    expect(again.statusCode).toBe(200)
    expect(json(again)).toEqual(first)
  })

  it('accepts no body or {}, and nothing else', async () => {
    const first = json(await fixture.create(base))
    expect((await cancel(first.paymentId, '{}')).statusCode).toBe(200)
    const second = json(await fixture.create(base))
    for (const body of ['{"reason":"x"}', '[]', 'null', '""']) {
      const response = await cancel(second.paymentId, body)
      expect(response.statusCode).toBe(400)
      expect(errorOf(response)).toEqual({ code: 'VALIDATION_ERROR', message: 'body: must be empty or {}' })
    }
    expect(json(await fixture.send('GET', `${PAYMENTS}/${second.paymentId}`)).status).toBe('pending')
  })

  it('answers 409 PAYMENT_NOT_CANCELABLE once a transfer is recorded', async () => {
    const created = json(await fixture.create(base))
    await fixture.handler.recordObservation({
      kind: 'transfer',
      network: 'TRON',
      paymentId: created.paymentId as string,
      txHash: 'ab'.repeat(32),
      transferIndex: 0,
      address: created.generatedAddress as string,
      amountUnits: '10500000',
      blockHeight: 100,
      blockTime: FIXTURE_START,
      confirmations: 1,
      status: 'seen',
      dropReason: null,
      observedAt: FIXTURE_START,
    })
    const response = await cancel(created.paymentId)
    expect(response.statusCode).toBe(409)
    expect(errorOf(response)).toEqual({
      code: 'PAYMENT_NOT_CANCELABLE',
      message:
        'payment is pending with a transfer already seen; only a pending payment with no transfer seen can be canceled',
    })
  })

  it("answers 404 for an unknown id or another merchant's payment, 400 for a malformed id", async () => {
    expect(errorOf(await cancel(UNKNOWN_ID)).code).toBe('PAYMENT_NOT_FOUND')
    const theirs = json(await fixture.create(base, fixture.otherMerchant))
    const response = await cancel(theirs.paymentId)
    expect(response.statusCode).toBe(404)
    expect(errorOf(response).code).toBe('PAYMENT_NOT_FOUND')
    expect(
      json(
        await fixture.send('GET', `${PAYMENTS}/${theirs.paymentId}`, { credentials: fixture.otherMerchant }),
      ).status,
    ).toBe('pending')
    const malformed = await cancel('nope')
    expect(malformed.statusCode).toBe(400)
    expect(errorOf(malformed).message).toBe('paymentId: must be a UUID')
  })
})

describe('read your writes', () => {
  it('is not taken back to an older status by a projection catching up with older revisions', async () => {
    fixture = await openMerchantApiFixture()
    const created = json(await fixture.create(base))
    const paymentId = created.paymentId as string
    const pending = await fixture.readModel.get(paymentId)
    expect((await fixture.send('POST', `${PAYMENTS}/${paymentId}/cancel`)).statusCode).toBe(200)
    // the projection now delivers the creation, which the write-through already stored
    expect(await fixture.readModel.save(pending as NonNullable<typeof pending>)).toBe('stale')
    const read = await fixture.send('GET', `${PAYMENTS}/${paymentId}`)
    expect(json(read).status).toBe('canceled')
  })

  it('serves create and cancel from write-through and fallback when the read model stores nothing', async () => {
    // a read model the projection never touched and whose writes are lost
    const saves: string[] = []
    fixture = await openMerchantApiFixture({
      readModel: (): PaymentReadModel => ({
        get: async () => null,
        list: async () => [],
        listFunded: async () => [],
        save: async (document) => {
          saves.push(`${document.paymentId}@${document.revision}`)
          throw new Error('read model write failed')
        },
      }),
    })
    const created = await fixture.create(base)
    expect(created.statusCode).toBe(201)
    const paymentId = json(created).paymentId as string
    expect(json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`)).status).toBe('pending')
    expect((await fixture.send('POST', `${PAYMENTS}/${paymentId}/cancel`)).statusCode).toBe(200)
    expect(json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`)).status).toBe('canceled')
    // three tries each
    expect(saves).toEqual([...Array(3).fill(`${paymentId}@0`), ...Array(3).fill(`${paymentId}@1`)])
    expect(fixture.logLines().some((line) => line.includes('write-through to the read model failed'))).toBe(
      true,
    )
  })
  /** the SQLite read model, whose saves fail while `failing` says so, and commands counting their GETs */
  async function withFlakyReadModel(failing: (revision: number, attempt: number) => boolean) {
    const attempts = new Map<number, number>()
    const commandGets: string[] = []
    fixture = await openMerchantApiFixture({
      readModel: (sqlite): PaymentReadModel => ({
        get: (paymentId) => sqlite.get(paymentId),
        list: (query) => sqlite.list(query),
        listFunded: (query) => sqlite.listFunded(query),
        save: async (document) => {
          const attempt = (attempts.get(document.revision) ?? 0) + 1
          attempts.set(document.revision, attempt)
          if (failing(document.revision, attempt)) throw new Error('SQLITE_BUSY: database is locked')
          return sqlite.save(document)
        },
      }),
      commands: (handler) => ({
        ...handler,
        getPayment: (input) => {
          commandGets.push(input.paymentId)
          return handler.getPayment(input)
        },
      }),
    })
    return { attempts, commandGets }
  }

  it('never shows the status before a cancel whose write-through the read model kept refusing', async () => {
    const { attempts, commandGets } = await withFlakyReadModel((revision) => revision >= 1)
    const paymentId = json(await fixture.create(base)).paymentId as string
    expect((await fixture.send('POST', `${PAYMENTS}/${paymentId}/cancel`)).statusCode).toBe(200)
    expect(attempts.get(1)).toBe(3)
    // the read model still holds the pending payment
    expect((await fixture.readModel.get(paymentId))?.state.status).toBe('pending')

    const read = await fixture.send('GET', `${PAYMENTS}/${paymentId}`)
    expect(json(read).status).toBe('canceled')
    expect(commandGets).toEqual([paymentId])

    // once the projection has stored the cancel, the read model answers again
    const merchantId = fixture.merchant.merchant.merchantId
    const snapshot = await fixture.handler.getPayment({ merchantId, paymentId })
    if (snapshot === null) throw new Error('the payment is missing on the command side')
    const projected = {
      paymentId,
      merchantId,
      revision: 1,
      state: snapshot.payment,
      updatedAt: FIXTURE_START,
    }
    expect(await fixture.readModel.save(projected)).toBe('applied')
    expect(json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`)).status).toBe('canceled')
    expect(commandGets).toEqual([paymentId])
  })

  it('lists a payment as its cancel left it, though the read model kept refusing the write-through', async () => {
    const { commandGets } = await withFlakyReadModel((revision) => revision >= 1)
    const paymentId = json(await fixture.create(base)).paymentId as string
    expect((await fixture.send('POST', `${PAYMENTS}/${paymentId}/cancel`)).statusCode).toBe(200)
    const listed = json(await fixture.send('GET', PAYMENTS)) as unknown as {
      data: { paymentId: string; status: string }[]
    }
    expect(listed.data.find((payment) => payment.paymentId === paymentId)?.status).toBe('canceled')
    expect(commandGets).toEqual([paymentId])
  })

  it("serves the customer's page from the same writes: a create and the customer's cancel the read model refused", async () => {
    const { commandGets } = await withFlakyReadModel(() => true)
    const paymentId = json(await fixture.create(base)).paymentId as string
    const page = new URL(fixture.checkoutDeps.checkoutLinks.urlOf(paymentId)).pathname
    const status = async () => json(await fixture.app.inject({ method: 'GET', url: `${page}/status` }))
    expect((await fixture.app.inject({ method: 'GET', url: page })).statusCode).toBe(200)
    expect(await status()).toEqual({ revision: 0, status: 'pending' })
    const canceled = await fixture.app.inject({
      method: 'POST',
      url: `${page}/cancel`,
      headers: { 'sec-fetch-site': 'same-origin' },
    })
    expect(canceled.statusCode).toBe(303)
    expect(await fixture.readModel.get(paymentId)).toBeNull()
    // the customer and the merchant both see the cancel, from payment-command
    expect(await status()).toEqual({ revision: 1, status: 'canceled' })
    expect(json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`)).status).toBe('canceled')
    expect(commandGets.length).toBeGreaterThanOrEqual(4)
  })

  it('retries a write-through that fails, and then serves the read model as usual', async () => {
    const { attempts, commandGets } = await withFlakyReadModel(
      (revision, attempt) => revision === 1 && attempt < 3,
    )
    const paymentId = json(await fixture.create(base)).paymentId as string
    expect((await fixture.send('POST', `${PAYMENTS}/${paymentId}/cancel`)).statusCode).toBe(200)
    expect(attempts.get(1)).toBe(3)
    expect((await fixture.readModel.get(paymentId))?.revision).toBe(1)
    expect(json(await fixture.send('GET', `${PAYMENTS}/${paymentId}`)).status).toBe('canceled')
    expect(commandGets).toEqual([])
  })
})
