// The SDK's failures: the API's own errors carry its code (docs/api.md, "Errors"); a request that
// never got an answer is a ChainpayConnectionError; a webhook that does not verify, a
// WebhookVerificationError with the reason.

export type ApiErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNSUPPORTED_ASSET'
  | 'MISSING_AUTH_HEADERS'
  | 'INVALID_TIMESTAMP'
  | 'INVALID_API_KEY'
  | 'INVALID_SIGNATURE'
  | 'PAYMENT_NOT_FOUND'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'PAYMENT_NOT_CANCELABLE'
  | 'REFUND_NOT_FOUND'
  | 'PAYOUT_NOT_FOUND'
  | 'REFUND_NOT_ALLOWED'
  | 'PAYOUT_NOT_ALLOWED'
  | 'INSUFFICIENT_BALANCE'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'
  /** 503: a payment priced in fiat and no usable exchange rate now; nothing was created, try again */
  | 'RATE_UNAVAILABLE'
  /** 404: no such invoice for this merchant */
  | 'INVOICE_NOT_FOUND'
  /** 409: the invoice is paid, expired or canceled: nothing can be picked any more */
  | 'INVOICE_NOT_OPEN'
  /** 409: the invoice is paid or expired, or a transfer to its payment was seen */
  | 'INVOICE_NOT_CANCELABLE'
  /** 409: the customer's deposit address has an open payment of this asset (addressMode PER_USER) */
  | 'ADDRESS_BUSY'
  | (string & {})

export class ChainpayError extends Error {
  override name = 'ChainpayError'
}

/** the API answered with an error body: `code` is the API's, `status` the HTTP status */
export class ChainpayApiError extends ChainpayError {
  override name = 'ChainpayApiError'
  readonly status: number
  readonly code: ApiErrorCode
  /** X-Request-Id of the answer: quote it when you report a problem */
  readonly requestId: string | null
  /** seconds, from Retry-After (429 and 503) */
  readonly retryAfter: number | null

  constructor(init: {
    status: number
    code: ApiErrorCode
    message: string
    requestId: string | null
    retryAfter: number | null
  }) {
    super(`${init.code}: ${init.message}`)
    this.status = init.status
    this.code = init.code
    this.requestId = init.requestId
    this.retryAfter = init.retryAfter
  }
}

/** no answer from the API (connection refused or reset, DNS, timeout), after the SDK's retries */
export class ChainpayConnectionError extends ChainpayError {
  override name = 'ChainpayConnectionError'
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

export type WebhookVerificationFailure =
  | 'missing_headers'
  | 'malformed'
  | 'bad_signature'
  | 'stale_timestamp'
  | 'event_id_mismatch'

export class WebhookVerificationError extends ChainpayError {
  override name = 'WebhookVerificationError'
  readonly reason: WebhookVerificationFailure
  constructor(reason: WebhookVerificationFailure) {
    super(`webhook not verified: ${reason}`)
    this.reason = reason
  }
}
