import { ErrorCodes } from '@chainpay/domain'
import { describe, expect, it } from 'vitest'
import { httpStatusOf, statusByErrorCode } from './errors.js'

describe('statusByErrorCode and httpStatusOf', () => {
  it('give every error code the status of docs/api.md, "Errors"', () => {
    const expected: Record<string, number> = {
      VALIDATION_ERROR: 400,
      UNSUPPORTED_ASSET: 400,
      MISSING_AUTH_HEADERS: 401,
      INVALID_TIMESTAMP: 401,
      INVALID_API_KEY: 401,
      INVALID_SIGNATURE: 401,
      PAYMENT_NOT_FOUND: 404,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      IDEMPOTENCY_KEY_REUSED: 409,
      PAYMENT_NOT_CANCELABLE: 409,
      SWEEP_EXCEEDS_UNSWEPT: 409,
      SWEEP_TX_REUSED: 409,
      INVALID_TRON_XPUB: 400,
      INVALID_SOLANA_SEED: 400,
      WALLET_ALREADY_IN_USE: 409,
      REFUND_NOT_FOUND: 404,
      PAYOUT_NOT_FOUND: 404,
      REFUND_NOT_ALLOWED: 409,
      PAYOUT_NOT_ALLOWED: 409,
      INSUFFICIENT_BALANCE: 409,
      PAYLOAD_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      RATE_LIMITED: 429,
      INTERNAL_ERROR: 500,
      SERVICE_UNAVAILABLE: 503,
      RATE_UNAVAILABLE: 503,
      INVOICE_NOT_FOUND: 404,
      INVOICE_NOT_OPEN: 409,
      INVOICE_NOT_CANCELABLE: 409,
      USER_EXISTS: 409,
      ADDRESS_BUSY: 409,
    }
    expect(Object.keys(statusByErrorCode).sort()).toEqual([...ErrorCodes].sort())
    for (const code of ErrorCodes) {
      expect(statusByErrorCode[code], code).toBe(expected[code])
      expect(httpStatusOf(code), code).toBe(expected[code])
    }
  })
})
