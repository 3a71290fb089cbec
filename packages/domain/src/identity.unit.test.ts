import { createHash, randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { canonicalJson, isPaymentId, paymentIdForIdempotencyKey, requestFingerprint } from './identity.js'

describe('isPaymentId', () => {
  it.each([
    randomUUID(),
    '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e',
    '0B5C1A8E-3F1D-4C6B-9A7E-2D4F6A8B0C1E',
    'c232ab00-9414-11ec-b3c8-9f6bdeced846', // version 1
    '017f22e2-79b0-7cc3-98c4-dc0c0c07398f', // version 7
    '320c3d4d-cc00-875b-8ec9-32d5f69181c0', // version 8
    '00000000-0000-0000-0000-000000000000', // Nil: well-formed, no payment has it (404)
    'ffffffff-ffff-ffff-ffff-ffffffffffff', // Max
    '0b5c1a8e-3f1d-9c6b-9a7e-2d4f6a8b0c1e', // version 9: the text form is what is checked
  ])('accepts %s', (id) => {
    expect(isPaymentId(id)).toBe(true)
  })

  it.each([
    '',
    '0b5c1a8e3f1d4c6b9a7e2d4f6a8b0c1e',
    '{0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e}',
    '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1e ',
    '0b5c1a8e-3f1d-4c6b-9a7e-2d4f6a8b0c1g',
    '../payments',
  ])('rejects %j', (text) => {
    expect(isPaymentId(text)).toBe(false)
  })
})

describe('paymentIdForIdempotencyKey', () => {
  it('is a lower-case version 8 UUID with the RFC variant', () => {
    const id = paymentIdForIdempotencyKey('merchant-1', 'order-42')
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(isPaymentId(id)).toBe(true)
  })

  it('is the first 16 bytes of sha256(merchantId + newline + key) with version and variant set', () => {
    const digest = createHash('sha256').update('merchant-1\norder-42').digest('hex').slice(0, 32)
    const id = paymentIdForIdempotencyKey('merchant-1', 'order-42').replaceAll('-', '')
    expect(id.slice(0, 12)).toBe(digest.slice(0, 12))
    expect(id[12]).toBe('8')
    expect(id.slice(13, 16)).toBe(digest.slice(13, 16))
    expect(Number.parseInt(id[16] ?? '', 16)).toBe((Number.parseInt(digest[16] ?? '', 16) & 0x3) | 0x8)
    expect(id.slice(17)).toBe(digest.slice(17))
  })

  it('is stable for the same merchant and key', () => {
    expect(paymentIdForIdempotencyKey('m', 'k')).toBe(paymentIdForIdempotencyKey('m', 'k'))
  })

  it('differs across merchants and across keys', () => {
    const ids = new Set([
      paymentIdForIdempotencyKey('merchant-1', 'order-42'),
      paymentIdForIdempotencyKey('merchant-2', 'order-42'),
      paymentIdForIdempotencyKey('merchant-1', 'order-43'),
      paymentIdForIdempotencyKey('merchant-1o', 'rder-42'),
    ])
    expect(ids.size).toBe(4)
  })
})

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}',
    )
  })

  it('writes the same text whatever order the keys came in', () => {
    expect(canonicalJson({ amount: '1', network: 'TRON' })).toBe(
      canonicalJson({ network: 'TRON', amount: '1' }),
    )
  })

  it('follows JSON.stringify for scalars, strings and absent values', () => {
    expect(canonicalJson('a"b\n')).toBe('"a\\"b\\n"')
    expect(canonicalJson(1.5)).toBe('1.5')
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}')
    expect(canonicalJson([undefined])).toBe('[null]')
    expect(canonicalJson({ 'a.b': 1, $where: 2 })).toBe('{"$where":2,"a.b":1}')
  })

  it('throws for a value without JSON form', () => {
    expect(() => canonicalJson(undefined)).toThrow(TypeError)
  })
})

describe('requestFingerprint', () => {
  it('is the sha256 hex of the canonical JSON', () => {
    const request = { network: 'TRON', amount: '10.5', metadata: { b: 1, a: 2 } }
    const expected = createHash('sha256').update(canonicalJson(request)).digest('hex')
    expect(requestFingerprint(request)).toBe(expected)
    expect(requestFingerprint(request)).toMatch(/^[0-9a-f]{64}$/)
  })

  it('ignores key order and notices any changed value', () => {
    const one = requestFingerprint({ amount: '10.5', currency: 'USDT', metadata: { a: 1, b: 2 } })
    expect(requestFingerprint({ metadata: { b: 2, a: 1 }, currency: 'USDT', amount: '10.5' })).toBe(one)
    expect(requestFingerprint({ amount: '10.50', currency: 'USDT', metadata: { a: 1, b: 2 } })).not.toBe(one)
    expect(requestFingerprint({ amount: '10.5', currency: 'USDT', metadata: { a: 1, b: 3 } })).not.toBe(one)
  })
})
