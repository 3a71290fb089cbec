import type { ErrorCode } from '@chainpay/domain'

// decisions.md section 8. The internal API answers with the same statuses the merchant API uses, so
// that a status alone already says what kind of failure it was.
const statusByCode: Record<ErrorCode, number> = {
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
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
}

export function httpStatusOf(code: ErrorCode): number {
  return statusByCode[code]
}
