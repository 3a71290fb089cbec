// API request signing (docs/api.md, "Authentication"): HMAC-SHA256 over
// `${timestamp}.${METHOD}.${path}.${body}`, lower-case hex, compared in constant time.

import { hmacSha256Hex, signatureMatches } from './hmac.js'

export const API_SIGNATURE_HEADERS = {
  key: 'x-service-key',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
} as const

/** 5 minutes either way */
export const API_CLOCK_SKEW_MS = 300_000

export interface ApiRequestToSign {
  /** Unix milliseconds, as sent in X-Service-Timestamp */
  timestamp: string
  method: string
  /** the request target exactly as sent: path starting with /api/merchant/v1, plus ?query if any */
  path: string
  /** raw body text; '' when there is no body */
  body: string
}

/**
 * A request as a server verifies it: the body as the bytes received, so that a body that is not
 * UTF-8 is checked over what was sent (and then refused as such), not over U+FFFD in its place.
 */
export type ReceivedApiRequest = Omit<ApiRequestToSign, 'body'> & { body: string | Uint8Array }

// Unix milliseconds stay below 10^16 for the next few hundred thousand years; a longer text is not a
// timestamp but an attempt to make number parsing do something surprising.
const UNIX_MS_PATTERN = /^[0-9]{1,16}$/

/** `${timestamp}.${METHOD}.${path}.${body}` */
export function apiSigningMessage(request: ApiRequestToSign): string {
  return `${apiSigningPrefix(request)}${request.body}`
}

/** lower-case hex HMAC-SHA256(secret utf-8, message): the prefix's UTF-8 bytes, then the body's */
export function signApiRequest(secret: string, request: ReceivedApiRequest): string {
  return hmacSha256Hex(secret, apiSigningPrefix(request), request.body)
}

function apiSigningPrefix(request: ReceivedApiRequest): string {
  return `${request.timestamp}.${request.method.toUpperCase()}.${request.path}.`
}

/** constant time; accepts upper-case hex; false for malformed hex of any length */
export function verifyApiSignature(secret: string, request: ReceivedApiRequest, signature: string): boolean {
  return signatureMatches(signApiRequest(secret, request), signature)
}

/** 'ok' or why the X-Service-Timestamp is unacceptable (not a decimal integer, or outside the window) */
export function checkApiTimestamp(
  timestamp: string,
  nowMs: number,
  skewMs: number = API_CLOCK_SKEW_MS,
): 'ok' | 'malformed' | 'outside_window' {
  if (!UNIX_MS_PATTERN.test(timestamp)) return 'malformed'
  const sentMs = Number(timestamp)
  return Math.abs(nowMs - sentMs) <= skewMs ? 'ok' : 'outside_window'
}

/** headers a client sends: X-Service-Key, X-Service-Timestamp, X-Service-Signature */
export function apiAuthHeaders(
  credentials: { apiKey: string; apiSecret: string },
  request: { method: string; path: string; body: string },
  nowMs: number,
): Record<string, string> {
  const timestamp = String(Math.trunc(nowMs))
  const signature = signApiRequest(credentials.apiSecret, { ...request, timestamp })
  return {
    'X-Service-Key': credentials.apiKey,
    'X-Service-Timestamp': timestamp,
    'X-Service-Signature': signature,
  }
}
