// Webhook signing (docs/api.md, "Webhooks"): X-Signature is lower-case hex
// HMAC-SHA256(webhook secret, `${timestamp}.${rawBody}`), X-Timestamp is Unix seconds. The signature
// covers the body and the timestamp, not X-Event-Id: the body carries the event id as `id`, and a
// receiver that deduplicates by X-Event-Id checks that the two agree.
//
// A rotated webhook endpoint's secret overlaps (docs/api.md, "Rotating an endpoint's secret"): for
// the overlap, X-Signature is made with the new secret and X-Signature-Previous with the old one,
// over the same timestamp and body. A receiver holding either secret verifies one of the two.

import { hmacSha256Hex, signatureMatches } from './hmac.js'

export const WEBHOOK_HEADERS = {
  signature: 'x-signature',
  previousSignature: 'x-signature-previous',
  timestamp: 'x-timestamp',
  eventId: 'x-event-id',
  eventType: 'x-event-type',
} as const

/** receivers reject webhook timestamps older than 5 minutes */
export const WEBHOOK_TOLERANCE_SECONDS = 300

export type WebhookVerification =
  | { ok: true }
  | { ok: false; reason: 'bad_signature' | 'stale_timestamp' | 'malformed' | 'event_id_mismatch' }

const UNIX_SECONDS_PATTERN = /^[0-9]{1,13}$/
const HEX_64_PATTERN = /^[0-9a-fA-F]{64}$/

/** lower-case hex HMAC-SHA256(webhook secret, `${timestamp}.${rawBody}`) */
export function signWebhook(secret: string, timestampSeconds: number, rawBody: string): string {
  return hmacSha256Hex(secret, `${timestampSeconds}.${rawBody}`)
}

/**
 * What a receiver does: checks the signature in constant time and rejects timestamps older than the
 * tolerance. Timestamps further than the tolerance in the future are rejected too, so that a
 * captured delivery cannot be replayed later by a sender whose clock ran ahead. Given the
 * X-Event-Id header as `eventId`, it also checks that the signed body's `id` is that id: the header
 * is not signed, so without the check a replayed body under a fresh X-Event-Id would pass a receiver's
 * deduplication.
 */
export function verifyWebhook(
  secret: string | readonly string[],
  input: {
    rawBody: string
    signature: string
    /** X-Signature-Previous, sent while a rotated endpoint's old secret still signs */
    previousSignature?: string
    timestamp: string
    eventId?: string
  },
  nowSeconds: number,
  toleranceSeconds: number = WEBHOOK_TOLERANCE_SECONDS,
): WebhookVerification {
  const signatures = [
    input.signature,
    ...(input.previousSignature === undefined ? [] : [input.previousSignature]),
  ]
  if (
    !UNIX_SECONDS_PATTERN.test(input.timestamp) ||
    !signatures.every((given) => HEX_64_PATTERN.test(given))
  ) {
    return { ok: false, reason: 'malformed' }
  }
  // Either secret (a receiver part way through a rotation holds both) against either signature; every
  // pair is compared, in constant time each, so that the time taken says nothing about which matched.
  const secrets = typeof secret === 'string' ? [secret] : secret
  let matched = false
  for (const candidate of secrets) {
    const expected = hmacSha256Hex(candidate, `${input.timestamp}.${input.rawBody}`)
    for (const given of signatures) matched = signatureMatches(expected, given) || matched
  }
  if (!matched) return { ok: false, reason: 'bad_signature' }
  if (Math.abs(nowSeconds - Number(input.timestamp)) > toleranceSeconds) {
    return { ok: false, reason: 'stale_timestamp' }
  }
  if (input.eventId !== undefined && signedEventId(input.rawBody) !== input.eventId) {
    return { ok: false, reason: 'event_id_mismatch' }
  }
  return { ok: true }
}

/** the body's `id`, when the body is a JSON object with a string `id`; else undefined */
function signedEventId(rawBody: string): string | undefined {
  let body: unknown
  try {
    body = JSON.parse(rawBody)
  } catch {
    return undefined
  }
  if (typeof body !== 'object' || body === null) return undefined
  const { id } = body as { id?: unknown }
  return typeof id === 'string' ? id : undefined
}
