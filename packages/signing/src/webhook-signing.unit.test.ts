import { describe, expect, it } from 'vitest'
import { signWebhook, verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from './webhook-signing.js'

const secret = 'whsec_9dK2pQ7vL1xZ'
const timestampSeconds = 1_763_733_787
const rawBody =
  '{"id":"7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5","event":"payment.confirmed","timestamp":1763733787,"payment":{"id":"0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b","status":"CONFIRMED","amount":10.50,"tx_hash":"5f2c9a"}}'
// printf '%s' '1763733787.{"id":"7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5","event":"payment.confirmed","timestamp":1763733787,"payment":{"id":"0b8e7c52-6d3f-4c1e-9a7b-2f1d3c4e5a6b","status":"CONFIRMED","amount":10.50,"tx_hash":"5f2c9a"}}' | openssl dgst -sha256 -hmac 'whsec_9dK2pQ7vL1xZ'
const expectedSignature = 'a215757b21d226af84cf5655e7b2dc2a59b5058979771a1c615c53af2094d510'

const delivery = { rawBody, signature: expectedSignature, timestamp: String(timestampSeconds) }

describe('signWebhook', () => {
  it('matches the openssl vector', () => {
    expect(signWebhook(secret, timestampSeconds, rawBody)).toBe(expectedSignature)
  })
})

describe('verifyWebhook', () => {
  it('accepts the openssl vector at its own time', () => {
    expect(verifyWebhook(secret, delivery, timestampSeconds)).toEqual({ ok: true })
  })

  it("checks, given X-Event-Id, that the signed body's id is that event id", () => {
    const eventId = '7d1e2f30-4a5b-4c6d-8e9f-a0b1c2d3e4f5'
    expect(verifyWebhook(secret, { ...delivery, eventId }, timestampSeconds)).toEqual({ ok: true })
    // the header is not signed: a captured body replayed under another X-Event-Id is refused
    const mismatch = { ok: false, reason: 'event_id_mismatch' }
    expect(
      verifyWebhook(
        secret,
        { ...delivery, eventId: '00000000-0000-4000-8000-000000000000' },
        timestampSeconds,
      ),
    ).toEqual(mismatch)
    expect(verifyWebhook(secret, { ...delivery, eventId: '' }, timestampSeconds)).toEqual(mismatch)
    // a body signed without an id (or not JSON) cannot match any X-Event-Id
    for (const unsignedId of ['{"event":"payment.confirmed"}', '{"id":7}', 'not json', 'null']) {
      const signed = { rawBody: unsignedId, timestamp: String(timestampSeconds) }
      const signature = signWebhook(secret, timestampSeconds, unsignedId)
      expect(verifyWebhook(secret, { ...signed, signature, eventId }, timestampSeconds)).toEqual(mismatch)
      expect(verifyWebhook(secret, { ...signed, signature }, timestampSeconds)).toEqual({ ok: true })
    }
  })

  it('accepts upper-case hex', () => {
    const input = { ...delivery, signature: expectedSignature.toUpperCase() }
    expect(verifyWebhook(secret, input, timestampSeconds)).toEqual({ ok: true })
  })

  it('rejects another secret, body or timestamp as a bad signature', () => {
    const bad = { ok: false, reason: 'bad_signature' }
    expect(verifyWebhook('whsec_other', delivery, timestampSeconds)).toEqual(bad)
    expect(
      verifyWebhook(secret, { ...delivery, rawBody: rawBody.replace('10.50', '10.5') }, timestampSeconds),
    ).toEqual(bad)
    expect(
      verifyWebhook(secret, { ...delivery, timestamp: String(timestampSeconds + 1) }, timestampSeconds),
    ).toEqual(bad)
  })

  it('accepts a delivery exactly at the tolerance, old or early', () => {
    expect(verifyWebhook(secret, delivery, timestampSeconds + WEBHOOK_TOLERANCE_SECONDS)).toEqual({
      ok: true,
    })
    expect(verifyWebhook(secret, delivery, timestampSeconds - WEBHOOK_TOLERANCE_SECONDS)).toEqual({
      ok: true,
    })
  })

  it('rejects a stale delivery', () => {
    expect(verifyWebhook(secret, delivery, timestampSeconds + WEBHOOK_TOLERANCE_SECONDS + 1)).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    })
  })

  it('rejects a delivery from too far in the future', () => {
    expect(verifyWebhook(secret, delivery, timestampSeconds - WEBHOOK_TOLERANCE_SECONDS - 1)).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    })
  })

  it('rejects by default a timestamp more than 5 minutes old', () => {
    expect(verifyWebhook(secret, delivery, timestampSeconds + 300)).toEqual({ ok: true })
    expect(verifyWebhook(secret, delivery, timestampSeconds + 301)).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    })
  })

  it('honours a custom tolerance', () => {
    expect(verifyWebhook(secret, delivery, timestampSeconds + 61, 60)).toEqual({
      ok: false,
      reason: 'stale_timestamp',
    })
    expect(verifyWebhook(secret, delivery, timestampSeconds + 60, 60)).toEqual({ ok: true })
  })

  it.each([
    ['empty signature', { signature: '' }],
    ['truncated signature', { signature: expectedSignature.slice(0, 40) }],
    ['non-hex signature', { signature: `${expectedSignature.slice(0, 63)}z` }],
    ['prefixed signature', { signature: `sha256=${expectedSignature}` }],
    ['empty timestamp', { timestamp: '' }],
    ['negative timestamp', { timestamp: '-1763733787' }],
    ['float timestamp', { timestamp: '1763733787.5' }],
    ['text timestamp', { timestamp: 'yesterday' }],
  ])('reports a %s as malformed', (_case, override) => {
    expect(verifyWebhook(secret, { ...delivery, ...override }, timestampSeconds)).toEqual({
      ok: false,
      reason: 'malformed',
    })
  })
})

describe('verifyWebhook during a rotation', () => {
  const newSecret = 'whsec_new_4fT8'
  const rotated = {
    rawBody,
    signature: signWebhook(newSecret, timestampSeconds, rawBody),
    previousSignature: expectedSignature,
    timestamp: String(timestampSeconds),
  }

  it('accepts a receiver holding the old secret, the new one, or both', () => {
    expect(verifyWebhook(secret, rotated, timestampSeconds)).toEqual({ ok: true })
    expect(verifyWebhook(newSecret, rotated, timestampSeconds)).toEqual({ ok: true })
    expect(verifyWebhook([secret, newSecret], rotated, timestampSeconds)).toEqual({ ok: true })
    expect(
      verifyWebhook([newSecret, secret], { ...rotated, previousSignature: undefined }, timestampSeconds),
    ).toEqual({
      ok: true,
    })
  })

  it('refuses a third secret, a tampered body, and a malformed previous signature', () => {
    expect(verifyWebhook('whsec_other', rotated, timestampSeconds)).toEqual({
      ok: false,
      reason: 'bad_signature',
    })
    expect(verifyWebhook(secret, { ...rotated, rawBody: `${rawBody} ` }, timestampSeconds)).toEqual({
      ok: false,
      reason: 'bad_signature',
    })
    expect(verifyWebhook(secret, { ...rotated, previousSignature: 'zz' }, timestampSeconds)).toEqual({
      ok: false,
      reason: 'malformed',
    })
  })
})
