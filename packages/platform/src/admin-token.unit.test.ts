import { randomBytes, randomInt } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { ADMIN_TOKEN_MIN_LENGTH, adminTokenProblem, generateAdminToken } from './admin-token.js'
import { randomToken } from './secrets.js'

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
/** what the Helm chart generates (randAlphaNum 40) */
const randAlphaNum = (length: number) =>
  Array.from({ length }, () => ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]).join('')

describe('adminTokenProblem', () => {
  it.each([
    ['`openssl rand -hex 32`', () => randomBytes(32).toString('hex')],
    ['`openssl rand -hex 16` (32 hex characters)', () => randomBytes(16).toString('hex')],
    ['`openssl rand -base64 32`', () => randomBytes(32).toString('base64')],
    ['the Helm chart’s randAlphaNum 40', () => randAlphaNum(40)],
    ['24 random bytes in base64url (docs, chart checks)', () => randomBytes(24).toString('base64url')],
    ['randomToken(adm, 32), as standalone and scripts/up generated them', () => randomToken('adm', 32)],
    ['generateAdminToken', generateAdminToken],
  ])('accepts random tokens made as %s', (_how, make) => {
    for (let sample = 0; sample < 2000; sample += 1) {
      const token = make()
      expect(adminTokenProblem(token), token).toBeNull()
    }
  })

  it.each([
    ['empty', '', /too short: at least 32 characters, got 0/],
    ['short', 'adm_operator', /too short: at least 32 characters, got 12/],
    ['one character short', randomBytes(31).toString('hex').slice(0, 31), /too short.*got 31/],
    [
      'with a space',
      `${randomBytes(16).toString('hex')} ${randomBytes(8).toString('hex')}`,
      /printable ASCII/,
    ],
    ['with non-ASCII', `${randomBytes(16).toString('hex')}é`, /printable ASCII/],
    ['one character repeated', 'a'.repeat(64), /repeated pattern/],
    ['a short pattern repeated', 'ab12'.repeat(16), /repeated pattern/],
    ['the alphabet', 'abcdefghijklmnopqrstuvwxyz0123456789', /run of neighbouring characters/],
    ['digits counted down', '98765432109876543210987654321098', /run of neighbouring characters/],
    ['a placeholder', 'please-changeme-before-production-1', /placeholder \(contains 'changeme'\)/],
    ['another placeholder', 'MY_ADMIN_PASSWORD_FOR_THE_GATEWAY_2030', /placeholder \(contains 'password'\)/],
  ])('refuses a token that is %s, telling how to make one', (_case, token, message) => {
    const problem = adminTokenProblem(token)
    expect(problem).toMatch(message)
    expect(problem).toContain('openssl rand -hex 32')
    if (token.length >= 8) expect(problem).not.toContain(token)
  })

  it('asks for at least 32 characters', () => {
    expect(ADMIN_TOKEN_MIN_LENGTH).toBe(32)
  })
})

describe('generateAdminToken', () => {
  it('is adm_ and 32 random bytes in base64url', () => {
    const token = generateAdminToken()
    expect(token).toMatch(/^adm_[A-Za-z0-9_-]{43}$/)
    expect(token).not.toBe(generateAdminToken())
  })
})
