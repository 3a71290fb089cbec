// Webhook signing (docs/api.md, "Webhooks"): X-Signature is lower-case hex
// HMAC-SHA256(webhook secret, `${timestamp}.${rawBody}`), X-Timestamp is Unix seconds.

import { hmacSha256Hex, signatureMatches } from './hmac.js'

export const WEBHOOK_HEADERS = {
  signature: 'x-signature',
  timestamp: 'x-timestamp',
  eventId: 'x-event-id',
  eventType: 'x-event-type',
} as const

/** receivers reject webhook timestamps older than 5 minutes */
export const WEBHOOK_TOLERANCE_SECONDS = 300

export type WebhookVerification =
  | { ok: true }
  | { ok: false; reason: 'bad_signature' | 'stale_timestamp' | 'malformed' }

const UNIX_SECONDS_PATTERN = /^[0-9]{1,13}$/
const HEX_64_PATTERN = /^[0-9a-fA-F]{64}$/

/** lower-case hex HMAC-SHA256(webhook secret, `${timestamp}.${rawBody}`) */
export function signWebhook(secret: string, timestampSeconds: number, rawBody: string): string {
  return hmacSha256Hex(secret, `${timestampSeconds}.${rawBody}`)
}

/**
 * What a receiver does: checks the signature in constant time and rejects timestamps older than the
 * tolerance. Timestamps further than the tolerance in the future are rejected too, so that a
 * captured delivery cannot be replayed later by a sender whose clock ran ahead.
 */
export function verifyWebhook(
  secret: string,
  input: { rawBody: string; signature: string; timestamp: string },
  nowSeconds: number,
  toleranceSeconds: number = WEBHOOK_TOLERANCE_SECONDS,
): WebhookVerification {
  if (!UNIX_SECONDS_PATTERN.test(input.timestamp) || !HEX_64_PATTERN.test(input.signature)) {
    return { ok: false, reason: 'malformed' }
  }
  const expected = hmacSha256Hex(secret, `${input.timestamp}.${input.rawBody}`)
  if (!signatureMatches(expected, input.signature)) return { ok: false, reason: 'bad_signature' }
  if (Math.abs(nowSeconds - Number(input.timestamp)) > toleranceSeconds) {
    return { ok: false, reason: 'stale_timestamp' }
  }
  return { ok: true }
}
