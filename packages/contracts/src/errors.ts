// The merchant API's error answers (docs/api.md, "Errors"): the body is
// exactly {"error":{"code","message"}}, and each code has one HTTP status. The gateway and
// payment-command's internal API both answer with this table, so a status alone already says what
// kind of failure it was.

import { type ErrorCode, ErrorCodes } from '@chainpay/domain'
import Type, { type Static } from 'typebox'
import { StringEnum } from './schema-kit.js'

export const ErrorCodeSchema = StringEnum(ErrorCodes)

export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object(
      {
        code: ErrorCodeSchema,
        message: Type.String({ description: 'what was wrong, naming the field' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
)

export type ErrorBody = Static<typeof ErrorBodySchema>

export const statusByErrorCode: Readonly<Record<ErrorCode, number>> = {
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

/** the HTTP status that goes with an error code */
export function httpStatusOf(code: ErrorCode): number {
  return statusByErrorCode[code]
}
