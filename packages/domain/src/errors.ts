// Every error a merchant can see has one of these codes (docs/api.md, "Errors"). The HTTP status
// for each code is mapped in one place, in @chainpay/contracts (errors.ts).
export const ErrorCodes = [
  'VALIDATION_ERROR',
  'UNSUPPORTED_ASSET',
  'MISSING_AUTH_HEADERS',
  'INVALID_TIMESTAMP',
  'INVALID_API_KEY',
  'INVALID_SIGNATURE',
  'PAYMENT_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'IDEMPOTENCY_KEY_REUSED',
  'PAYMENT_NOT_CANCELABLE',
  'SWEEP_EXCEEDS_UNSWEPT',
  'SWEEP_TX_REUSED',
  'INVALID_TRON_XPUB',
  'INVALID_SOLANA_SEED',
  'WALLET_ALREADY_IN_USE',
  'REFUND_NOT_FOUND',
  'PAYOUT_NOT_FOUND',
  'REFUND_NOT_ALLOWED',
  'PAYOUT_NOT_ALLOWED',
  'INSUFFICIENT_BALANCE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
  'RATE_UNAVAILABLE',
  'INVOICE_NOT_FOUND',
  'INVOICE_NOT_OPEN',
  'INVOICE_NOT_CANCELABLE',
  'USER_EXISTS',
  'ADDRESS_BUSY',
] as const

export type ErrorCode = (typeof ErrorCodes)[number]

/** A rule of the product was broken by the caller's input or by the payment's state. */
export class DomainError extends Error {
  override readonly name = 'DomainError'
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message)
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError
}
