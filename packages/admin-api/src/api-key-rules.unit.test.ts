import { describe, expect, it } from 'vitest'
import { apiKeyStatus, apiKeyWorks, rolledKeyExpiry, rollOverlapHours } from './api-key-rules.js'

const NOW = new Date('2030-03-01T12:00:00.000Z')
const key = (changes: { revokedAt?: string | null; expiresAt?: string } = {}) => ({
  apiKey: 'ck_old',
  merchantId: 'mer_1',
  revokedAt: null,
  ...changes,
})

describe('API key rules', () => {
  describe('a key status', () => {
    it('given a key never rolled nor revoked, then it is active and works', () => {
      expect(apiKeyStatus(key(), NOW)).toBe('active')
      expect(apiKeyWorks(key(), NOW)).toBe(true)
    })

    it('given a rolled key, then it works until its end of overlap, and not from that instant on', () => {
      const rolled = key({ expiresAt: '2030-03-01T12:00:00.001Z' })
      expect(apiKeyStatus(rolled, NOW)).toBe('expiring')
      expect(apiKeyWorks(rolled, NOW)).toBe(true)
      const ended = key({ expiresAt: NOW.toISOString() })
      expect(apiKeyStatus(ended, NOW)).toBe('expired')
      expect(apiKeyWorks(ended, NOW)).toBe(false)
    })

    it('given a revoked key, then it is revoked whatever its expiry', () => {
      const revoked = key({ revokedAt: '2030-02-01T00:00:00.000Z', expiresAt: '2031-01-01T00:00:00.000Z' })
      expect(apiKeyStatus(revoked, NOW)).toBe('revoked')
      expect(apiKeyWorks(revoked, NOW)).toBe(false)
    })
  })

  describe('a roll', () => {
    it('given no overlap, then the old key works on for 24 hours', () => {
      expect(rolledKeyExpiry(key(), NOW, rollOverlapHours(undefined))).toBe('2030-03-02T12:00:00.000Z')
    })

    it('given an overlap of 0, then the old key stops now', () => {
      expect(rolledKeyExpiry(key(), NOW, rollOverlapHours(0))).toBe(NOW.toISOString())
    })

    it('given a key already rolled to stop sooner, then a second roll does not lengthen its life', () => {
      const rolled = key({ expiresAt: '2030-03-01T18:00:00.000Z' })
      expect(rolledKeyExpiry(rolled, NOW, 48)).toBe('2030-03-01T18:00:00.000Z')
      expect(rolledKeyExpiry(rolled, NOW, 1)).toBe('2030-03-01T13:00:00.000Z')
    })

    it('given a revoked or expired key, then it is refused as no active key', () => {
      expect(() => rolledKeyExpiry(key({ revokedAt: '2030-02-01T00:00:00.000Z' }), NOW, 24)).toThrow(
        'no active API key ck_old for merchant mer_1',
      )
      expect(() => rolledKeyExpiry(key({ expiresAt: '2030-03-01T11:00:00.000Z' }), NOW, 24)).toThrow(
        expect.objectContaining({ code: 'NOT_FOUND' }),
      )
    })

    it.each([-1, 721, 1.5, Number.NaN])('given an overlap of %s hours, then it is refused', (hours) => {
      expect(() => rollOverlapHours(hours)).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_ERROR',
          message: 'overlapHours: must be a whole number of hours from 0 to 720',
        }),
      )
    })

    it('given the longest overlap, then it is taken', () => {
      expect(rollOverlapHours(720)).toBe(720)
    })
  })
})
