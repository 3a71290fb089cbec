// Identifiers and fingerprints.

import { createHash } from 'node:crypto'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * UUID text as RFC 9562 writes it (8-4-4-4-12 hex digits, lower or upper case), whatever its version
 * and variant bits: the Nil and Max UUIDs are well-formed ids that no payment has, so asking for one
 * is 404, not 400 (docs/api.md, "Errors")
 */
export function isPaymentId(text: string): boolean {
  return typeof text === 'string' && uuid.test(text)
}

/**
 * The payment id a merchant's idempotency key maps to: a UUID (version 8) from
 * sha256(merchantId, key). Concurrent duplicates therefore race for one stream, and the event
 * store's optimistic concurrency lets exactly one create it.
 */
export function paymentIdForIdempotencyKey(merchantId: string, idempotencyKey: string): string {
  // Merchant ids are issued by the service and hold no newline, so no two (merchant, key) pairs hash the same text.
  const bytes = createHash('sha256')
    .update(`${merchantId}\n${idempotencyKey}`, 'utf8')
    .digest()
    .subarray(0, 16)
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = bytes.toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** sha256 hex of the canonical JSON (keys sorted at every depth) of the request */
export function requestFingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request), 'utf8').digest('hex')
}

/** JSON with object keys sorted at every depth */
export function canonicalJson(value: unknown): string {
  const text = canonicalValue(value)
  if (text === undefined) throw new TypeError('canonicalJson: the value has no JSON form')
  return text
}

/** JSON.stringify's rules (undefined and functions vanish from objects, become null in arrays) with sorted keys */
function canonicalValue(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'undefined' || typeof value === 'function' || typeof value === 'symbol')
      return undefined
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalValue(item) ?? 'null').join(',')}]`
  const record = value as Record<string, unknown>
  const members = Object.keys(record)
    .sort()
    .flatMap((key) => {
      const member = canonicalValue(record[key])
      return member === undefined ? [] : [`${JSON.stringify(key)}:${member}`]
    })
  return `{${members.join(',')}}`
}
