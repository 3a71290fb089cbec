// API request signing (decisions.md section 2) and webhook signing (section 9): HMAC-SHA256 from
// node:crypto, lower-case hex, compared in constant time.

export const API_SIGNATURE_HEADERS = {
  key: 'x-service-key',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
} as const

export const WEBHOOK_HEADERS = {
  signature: 'x-signature',
  timestamp: 'x-timestamp',
  eventId: 'x-event-id',
  eventType: 'x-event-type',
} as const

/** 5 minutes either way */
export const API_CLOCK_SKEW_MS = 300_000
/** receivers reject webhook timestamps older than 5 minutes */
export const WEBHOOK_TOLERANCE_SECONDS = 300

export interface ApiRequestToSign {
  /** Unix milliseconds, as sent in X-Service-Timestamp */
  timestamp: string
  method: string
  /** the request target exactly as sent: path starting with /api/merchant/v1, plus ?query if any */
  path: string
  /** raw body text; '' when there is no body */
  body: string
}

/** `${timestamp}.${METHOD}.${path}.${body}` */
export declare function apiSigningMessage(request: ApiRequestToSign): string
/** lower-case hex HMAC-SHA256(secret utf-8, message) */
export declare function signApiRequest(secret: string, request: ApiRequestToSign): string
/** constant time; accepts upper-case hex; false for malformed hex of any length */
export declare function verifyApiSignature(
  secret: string,
  request: ApiRequestToSign,
  signature: string,
): boolean

/** 'ok' or why the X-Service-Timestamp is unacceptable (not a decimal integer, or outside the window) */
export declare function checkApiTimestamp(
  timestamp: string,
  nowMs: number,
  skewMs?: number,
): 'ok' | 'malformed' | 'outside_window'

/** headers a client sends: X-Service-Key, X-Service-Timestamp, X-Service-Signature */
export declare function apiAuthHeaders(
  credentials: { apiKey: string; apiSecret: string },
  request: { method: string; path: string; body: string },
  nowMs: number,
): Record<string, string>

/** lower-case hex HMAC-SHA256(webhook secret, `${timestamp}.${rawBody}`) */
export declare function signWebhook(secret: string, timestampSeconds: number, rawBody: string): string

export type WebhookVerification =
  | { ok: true }
  | { ok: false; reason: 'bad_signature' | 'stale_timestamp' | 'malformed' }

/** what a receiver does: checks the signature in constant time and rejects timestamps older than the tolerance */
export declare function verifyWebhook(
  secret: string,
  input: { rawBody: string; signature: string; timestamp: string },
  nowSeconds: number,
  toleranceSeconds?: number,
): WebhookVerification
