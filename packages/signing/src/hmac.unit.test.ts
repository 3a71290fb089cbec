import * as crypto from 'node:crypto'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { signApiRequest, verifyApiSignature } from './request-signing.js'
import { signWebhook, verifyWebhook } from './webhook-signing.js'

// node:crypto as it is, with timingSafeEqual watched, so that a test can see which comparison ran
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>()
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) }
})

const secret = 'sk_test_7Hq2mV9xR4pL8wN3'
const request = { timestamp: '1763733787123', method: 'GET', path: '/api/merchant/v1/payments/x', body: '' }

describe('signature comparison', () => {
  beforeEach(() => {
    vi.mocked(crypto.timingSafeEqual).mockClear()
  })

  it('compares an API signature in constant time, on the 32 digest bytes', () => {
    const signature = signApiRequest(secret, request)
    const wrong = `${signature.slice(0, 63)}${signature.endsWith('0') ? '1' : '0'}`
    expect(verifyApiSignature(secret, request, signature.toUpperCase())).toBe(true)
    expect(verifyApiSignature(secret, request, wrong)).toBe(false)
    const calls = vi.mocked(crypto.timingSafeEqual).mock.calls
    expect(calls).toHaveLength(2)
    for (const [expected, given] of calls) {
      expect(Buffer.from(expected as Uint8Array)).toHaveLength(32)
      expect(Buffer.from(given as Uint8Array)).toHaveLength(32)
    }
  })

  it('compares a webhook signature in constant time', () => {
    const body = '{"event":"payment.pending"}'
    const signature = signWebhook(secret, 1_763_733_787, body)
    const delivery = { rawBody: body, signature, timestamp: '1763733787' }
    expect(verifyWebhook(secret, delivery, 1_763_733_787)).toEqual({ ok: true })
    expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(1)
  })
})
