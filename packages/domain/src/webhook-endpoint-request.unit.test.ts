import { describe, expect, it } from 'vitest'
import { DomainError } from './errors.js'
import {
  validateNewWebhookEndpoint,
  validateSecretRotation,
  validateWebhookEndpointPatch,
} from './webhook-endpoint-request.js'

const rules = { kinds: ['payment.pending', 'payment.confirmed'], allowInsecure: false }

const refusal = (run: () => unknown) => {
  try {
    run()
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, message: error.message }
  }
  return null
}

describe('validateNewWebhookEndpoint', () => {
  it('takes a url, and kinds once each; null or no events is every kind', () => {
    expect(validateNewWebhookEndpoint({ url: 'https://shop.example/h' }, rules)).toEqual({
      url: 'https://shop.example/h',
    })
    expect(
      validateNewWebhookEndpoint(
        {
          url: 'https://shop.example/h',
          events: ['payment.confirmed', 'payment.confirmed'],
          description: null,
        },
        rules,
      ),
    ).toEqual({ url: 'https://shop.example/h', events: ['payment.confirmed'], description: null })
    expect(
      validateNewWebhookEndpoint({ url: 'https://shop.example/h', events: null }, rules).events,
    ).toBeNull()
  })

  it('allows http and private hosts in development only', () => {
    expect(refusal(() => validateNewWebhookEndpoint({ url: 'http://127.0.0.1:3000/h' }, rules))?.code).toBe(
      'VALIDATION_ERROR',
    )
    expect(
      validateNewWebhookEndpoint({ url: 'http://127.0.0.1:3000/h' }, { ...rules, allowInsecure: true }).url,
    ).toBe('http://127.0.0.1:3000/h')
  })

  it('refuses a description with a control character or a bidirectional override', () => {
    expect(
      refusal(() =>
        validateNewWebhookEndpoint({ url: 'https://shop.example/h', description: 'a\u202Eb' }, rules),
      ),
    ).toEqual({
      code: 'VALIDATION_ERROR',
      message:
        'description: must not contain a bidirectional override, embedding or isolate (U+202E at character 2)',
    })
    expect(refusal(() => validateWebhookEndpointPatch({ description: '\u0000' }, rules))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'description: must not contain a control character (U+0000 at character 1)',
    })
  })

  it('refuses what is not a JSON object', () => {
    for (const body of [undefined, null, [], 'x']) {
      expect(refusal(() => validateNewWebhookEndpoint(body, rules))).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'body: must be a JSON object',
      })
    }
  })
})

describe('validateWebhookEndpointPatch', () => {
  it('takes any of url, events, enabled, description, and at least one', () => {
    expect(validateWebhookEndpointPatch({ enabled: false }, rules)).toEqual({ enabled: false })
    expect(refusal(() => validateWebhookEndpointPatch({}, rules))?.message).toMatch(/at least one/)
    expect(refusal(() => validateWebhookEndpointPatch({ events: ['payment.nope'] }, rules))?.message).toMatch(
      /^events: unknown kind "payment.nope"; known: payment.pending, payment.confirmed$/,
    )
  })
})

describe('validateSecretRotation', () => {
  it('overlaps 24 hours by default, from 0 to 168 when asked', () => {
    expect(validateSecretRotation(undefined)).toBe(24)
    expect(validateSecretRotation({})).toBe(24)
    expect(validateSecretRotation({ expiresInHours: 0 })).toBe(0)
    expect(validateSecretRotation({ expiresInHours: 168 })).toBe(168)
    for (const body of [
      { expiresInHours: 169 },
      { expiresInHours: -1 },
      { expiresInHours: 2.5 },
      { hours: 1 },
      [],
    ]) {
      expect(refusal(() => validateSecretRotation(body))?.code).toBe('VALIDATION_ERROR')
    }
  })
})
