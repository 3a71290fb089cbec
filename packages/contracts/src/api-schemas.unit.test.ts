import { defaultAssetRegistry, ErrorCodes, validateCreatePaymentRequest } from '@chainpay/domain'
import { Compile } from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import {
  CreatedPaymentViewSchema,
  CreatePaymentBodySchema,
  PaymentIdParamsSchema,
  PaymentViewSchema,
} from './api-schemas.js'
import { ErrorBodySchema } from './errors.js'
import { describeProblems } from './schema-kit.js'

const createBody = Compile(CreatePaymentBodySchema)
const paymentView = Compile(PaymentViewSchema)
const createdView = Compile(CreatedPaymentViewSchema)
const errorBody = Compile(ErrorBodySchema)
const paymentIdParams = Compile(PaymentIdParamsSchema)

const minimal = { amount: '10.5', currency: 'USDT', network: 'TRON' }

const full = {
  ...minimal,
  tokenStandard: 'TRC20',
  addressMode: 'PER_PAYMENT',
  description: 'Order #1042',
  metadata: { orderId: '1042', $where: 'kept', 'a.b': 1, vip: true, note: null },
  callbackUrl: 'https://merchant.example/hooks/chainpay',
  successRedirectUrl: 'https://merchant.example/paid',
  cancelRedirectUrl: 'https://merchant.example/cart',
  expiresInMinutes: 30,
  idempotencyKey: 'order-1042',
}

describe('CreatePaymentBodySchema', () => {
  it('describes what the domain accepts: what the domain takes, the schema takes; a shape it refuses, the domain refuses', () => {
    const domainTakes = (body: unknown) => {
      try {
        validateCreatePaymentRequest(body, defaultAssetRegistry, { allowInsecureCallbackUrls: true })
        return true
      } catch {
        return false
      }
    }
    const refusedShapes = [
      { ...minimal, amount: 10.5 },
      { ...minimal, extra: 1 },
      { ...minimal, expiresInMinutes: 0 },
      { ...minimal, metadata: { a: {} } },
      { ...minimal, idempotencyKey: '' },
      { ...minimal, callbackUrl: 'not a url' },
      { ...minimal, description: 'd'.repeat(1001) },
      { currency: 'USDT', network: 'TRON' },
      { ...minimal, priceAmount: '10', priceCurrency: 'USD' },
      { currency: 'USDT', network: 'TRON', priceAmount: '10' },
      { currency: 'USDT', network: 'TRON', priceCurrency: 'USD' },
      { currency: 'USDT', network: 'TRON', priceAmount: '10', priceCurrency: 'usd' },
    ]
    const priced = { currency: 'USDT', network: 'TRON', priceAmount: '19.99', priceCurrency: 'EUR' }
    for (const body of [minimal, full, priced])
      expect([domainTakes(body), createBody.Check(body)]).toEqual([true, true])
    for (const body of refusedShapes)
      expect([domainTakes(body), createBody.Check(body)]).toEqual([false, false])
  })

  it('accepts the required fields alone and every field together', () => {
    expect(createBody.Check(minimal)).toBe(true)
    expect(createBody.Check(full)).toBe(true)
  })

  it.each(['currency', 'network'])('requires %s', (field) => {
    const body: Record<string, unknown> = { ...minimal }
    delete body[field]
    expect(createBody.Check(body)).toBe(false)
    expect(describeProblems(createBody, body)).toContain(field)
  })

  it.each([
    ['0', true],
    ['10', true],
    ['10.50', true],
    ['123456789012345678.123456', true],
    ['0.000000001', true],
    ['-1', false],
    ['+1', false],
    ['1e3', false],
    ['01', false],
    ['1.', false],
    ['.5', false],
    [' 1', false],
    ['1234567890123456789', false],
    ['', false],
  ])('amount %j valid: %s', (amount, valid) => {
    expect(createBody.Check({ ...minimal, amount })).toBe(valid)
  })

  it('rejects an amount sent as a JSON number', () => {
    expect(createBody.Check({ ...minimal, amount: 10.5 })).toBe(false)
  })

  it('rejects unknown fields, naming them', () => {
    const body = { ...minimal, amount_usd: '1' }
    expect(createBody.Check(body)).toBe(false)
    expect(describeProblems(createBody, body)).toContain('amount_usd')
  })

  it.each([
    ['expiresInMinutes 0', { expiresInMinutes: 0 }],
    ['expiresInMinutes 1441', { expiresInMinutes: 1441 }],
    ['expiresInMinutes 1.5', { expiresInMinutes: 1.5 }],
    ['expiresInMinutes as text', { expiresInMinutes: '30' }],
    ['description of 1001 characters', { description: 'x'.repeat(1001) }],
    ['addressMode other than PER_PAYMENT', { addressMode: 'SHARED' }],
    ['callbackUrl that is not a URL', { callbackUrl: 'merchant.example/hook' }],
    ['callbackUrl longer than 2048', { callbackUrl: `https://merchant.example/${'a'.repeat(2030)}` }],
    ['empty idempotencyKey', { idempotencyKey: '' }],
    ['idempotencyKey of 256 characters', { idempotencyKey: 'k'.repeat(256) }],
    ['metadata that is an array', { metadata: ['a'] }],
    ['metadata with an object value', { metadata: { nested: { a: 1 } } }],
    ['metadata with an array value', { metadata: { list: [1] } }],
    ['metadata with an empty key', { metadata: { '': 'x' } }],
    ['metadata with a 65-character key', { metadata: { ['k'.repeat(65)]: 'x' } }],
    ['metadata with a 501-character value', { metadata: { note: 'x'.repeat(501) } }],
    [
      'metadata with 51 keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) },
    ],
  ])('rejects %s', (_case, fields) => {
    expect(createBody.Check({ ...minimal, ...fields })).toBe(false)
  })

  it.each([
    ['expiresInMinutes 1 and 1440', [{ expiresInMinutes: 1 }, { expiresInMinutes: 1440 }]],
    ['a 1000-character description', [{ description: 'x'.repeat(1000) }]],
    ['a 255-character idempotencyKey', [{ idempotencyKey: 'k'.repeat(255) }]],
    [
      '50 metadata keys of 64 characters',
      [{ metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`${i}`.padEnd(64, 'k'), 'v'])) }],
    ],
    ['a 500-character metadata value', [{ metadata: { note: 'x'.repeat(500) } }]],
  ])('accepts the bounds: %s', (_case, variants) => {
    for (const fields of variants) expect(createBody.Check({ ...minimal, ...fields })).toBe(true)
  })
})

const view = {
  paymentId: '0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b',
  status: 'pending',
  network: 'TRON',
  currency: 'USDT',
  tokenStandard: 'TRC20',
  amount: '10.50',
  expectedAmount: '10.5',
  receivedAmount: null,
  generatedAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
  generatedTokenAccount: null,
  addressMode: 'PER_PAYMENT',
  merchantUserId: null,
  txHash: null,
  confirmations: 0,
  createdAt: '2026-11-21T14:03:07.123Z',
  confirmedAt: null,
  expiresAt: '2026-11-21T14:33:07.123Z',
  metadata: { orderId: '1042' },
  feeAmount: '0.105',
  netAmount: '10.395',
  description: null,
  requiredConfirmations: 20,
  lateFunds: [],
  receivedFeeAmount: null,
  receivedNetAmount: null,
  checkoutUrl: 'https://pay.example.com/pay/C7h8UmxvTh6aey8dHDxaa3FZ4kKx1o8pY2Qf2yVb1cU7bHw',
  foreignFunds: [],
  priceAmount: null,
  priceCurrency: null,
  rate: null,
  underpaymentTolerancePercent: '0',
  shortfallAmount: null,
  invoiceId: null,
}

describe('PaymentViewSchema and CreatedPaymentViewSchema', () => {
  it('accept a payment priced in fiat with its locked rate', () => {
    const priced = {
      ...view,
      priceAmount: '19.99',
      priceCurrency: 'EUR',
      rate: { value: '0.9312', sources: ['peg', 'coingecko'], at: '2026-11-21T14:03:00.000Z' },
    }
    expect(paymentView.Check(priced)).toBe(true)
    expect(paymentView.Check({ ...priced, rate: { value: 0.9312, sources: [], at: priced.rate.at } })).toBe(
      false,
    )
  })

  it('accept a pending and a confirmed payment', () => {
    expect(paymentView.Check(view)).toBe(true)
    const confirmed = {
      ...view,
      status: 'confirmed',
      receivedAmount: '10.5',
      txHash: 'a1b2c3',
      confirmations: 20,
      confirmedAt: '2026-11-21T14:05:07.000Z',
      description: 'Order #1042',
      lateFunds: [{ txHash: 'd4e5f6', amount: '1.5', receivedAt: '2026-11-21T15:00:00.000Z' }],
      receivedFeeAmount: '0.105',
      receivedNetAmount: '10.395',
    }
    expect(paymentView.Check(confirmed)).toBe(true)
    expect(paymentView.Check({ ...confirmed, lateFunds: [{ txHash: 'd4e5f6', amount: '1.5' }] })).toBe(false)
  })

  it('reject an unknown status and a missing field, and take the merchantUserId of a PER_USER payment', () => {
    expect(paymentView.Check({ ...view, status: 'PENDING' })).toBe(false)
    const { netAmount: _omitted, ...withoutNet } = view
    expect(paymentView.Check(withoutNet)).toBe(false)
    expect(paymentView.Check({ ...view, addressMode: 'PER_USER', merchantUserId: 'u1' })).toBe(true)
    expect(paymentView.Check({ ...view, merchantUserId: 7 })).toBe(false)
  })

  it('keep the URLs out of the get view and require them, nullable, in the created view', () => {
    const urls = {
      callbackUrl: 'https://merchant.example/hook',
      successRedirectUrl: null,
      cancelRedirectUrl: null,
    }
    expect(paymentView.Check({ ...view, ...urls })).toBe(false)
    expect(createdView.Check({ ...view, ...urls })).toBe(true)
    expect(createdView.Check(view)).toBe(false)
  })

  it('list their properties in the order of the table of the payment object (docs/api.md)', () => {
    expect(Object.keys(CreatedPaymentViewSchema.properties)).toEqual(SPEC_PAYMENT_FIELDS)
    expect(Object.keys(PaymentViewSchema.properties)).toEqual(
      SPEC_PAYMENT_FIELDS.filter(
        (field) => !['callbackUrl', 'successRedirectUrl', 'cancelRedirectUrl'].includes(field),
      ),
    )
  })
})

/** the rows of the payment table of docs/api.md, "The payment object", in order */
const SPEC_PAYMENT_FIELDS = [
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
  // v1.1, decisions section 14
  'description',
  'requiredConfirmations',
  'lateFunds',
  'receivedFeeAmount',
  'receivedNetAmount',
  'foreignFunds',
  'checkoutUrl',
  // v1.3, decisions section 21
  'priceAmount',
  'priceCurrency',
  'rate',
  'underpaymentTolerancePercent',
  'shortfallAmount',
  'invoiceId',
]

describe('ErrorBodySchema', () => {
  it('accepts every error code', () => {
    for (const code of ErrorCodes) {
      expect(errorBody.Check({ error: { code, message: 'something was wrong' } })).toBe(true)
    }
  })

  it('rejects an unknown code and extra fields', () => {
    expect(errorBody.Check({ error: { code: 'TEAPOT', message: 'x' } })).toBe(false)
    expect(errorBody.Check({ error: { code: 'NOT_FOUND', message: 'x', status: 404 } })).toBe(false)
    expect(errorBody.Check({ error: { code: 'NOT_FOUND', message: 'x' }, requestId: 'r' })).toBe(false)
  })
})

describe('PaymentIdParamsSchema', () => {
  it('takes any string id, leaving its format to the handler', () => {
    expect(paymentIdParams.Check({ paymentId: 'not-a-uuid' })).toBe(true)
    expect(paymentIdParams.Check({})).toBe(false)
  })
})
