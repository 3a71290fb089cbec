import type { DashboardSession } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import {
  csrfTokenMatches,
  csrfTokenOf,
  grantableRoles,
  isSameOriginPost,
  lockedUntil,
  mayDo,
  SESSION_IDLE_MS,
  sessionCookieFor,
  sessionNeedsTouch,
  sessionVerdict,
} from './access-rules.js'

const start = new Date('2030-01-01T00:00:00.000Z')
const later = (ms: number) => new Date(start.getTime() + ms)
const minutes = (count: number) => count * 60_000
const session: DashboardSession = {
  sessionHash: 'h',
  userId: 'usr_1',
  merchantId: 'mer_1',
  createdAt: start.toISOString(),
  lastSeenAt: start.toISOString(),
  userAgent: 'test',
  revokedAt: null,
}
const user = { enabled: true, merchantId: 'mer_1' }

describe('a session', () => {
  it('given a request within 12 h of the last one, when checked, then it holds', () => {
    expect(sessionVerdict(session, user, later(SESSION_IDLE_MS - 1))).toBe('valid')
  })
  it('given 12 h without a request, when checked, then it has expired', () => {
    expect(sessionVerdict(session, user, later(SESSION_IDLE_MS))).toBe('expired')
  })
  it('given a revoked session, when checked, then it is refused whatever its age', () => {
    expect(sessionVerdict({ ...session, revokedAt: start.toISOString() }, user, start)).toBe('revoked')
  })
  it('given its user disabled, gone or moved to another merchant, when checked, then it is refused', () => {
    expect(sessionVerdict(session, { ...user, enabled: false }, start)).toBe('user_disabled')
    expect(sessionVerdict(session, null, start)).toBe('user_disabled')
    expect(sessionVerdict(session, { ...user, merchantId: 'mer_2' }, start)).toBe('user_disabled')
  })
  it('given no session, when checked, then it is unknown', () => {
    expect(sessionVerdict(null, user, start)).toBe('unknown')
  })
  it('given requests within a minute, when seen, then lastSeenAt is written once a minute only', () => {
    expect(sessionNeedsTouch(session, later(59_999))).toBe(false)
    expect(sessionNeedsTouch(session, later(60_000))).toBe(true)
  })
})

describe('sign-in lockout', () => {
  const failures = (count: number, from = start, every = minutes(1)) =>
    Array.from({ length: count }, (_, index) => new Date(from.getTime() + index * every).toISOString())

  it('given four failures of an account within 15 minutes, when it signs in, then it may try', () => {
    expect(lockedUntil({ account: failures(4), address: [] }, later(minutes(5)))).toBeNull()
  })
  it('given five, when it signs in, then it is locked until the first of them is 15 minutes old', () => {
    expect(lockedUntil({ account: failures(5), address: [] }, later(minutes(5)))).toEqual(later(minutes(15)))
  })
  it('given five failures that have aged out, when it signs in, then it may try again', () => {
    expect(lockedUntil({ account: failures(5), address: [] }, later(minutes(20)))).toBeNull()
  })
  it('given twenty failures from one address across accounts, when it signs in, then the address is locked', () => {
    const sprayed = failures(20, start, 10_000)
    expect(lockedUntil({ account: [], address: sprayed }, later(minutes(4)))).toEqual(later(minutes(15)))
    expect(lockedUntil({ account: [], address: sprayed.slice(1) }, later(minutes(4)))).toBeNull()
  })
})

describe('roles', () => {
  it('given an owner, then every action, and any role to give', () => {
    for (const action of ['read', 'manage_users', 'move_money', 'configure', 'manage_api_keys'] as const) {
      expect(mayDo('owner', action)).toBe(true)
    }
    expect(grantableRoles('owner')).toEqual(['owner', 'developer', 'viewer'])
  })
  it('given a developer, then reading and configuring, never money nor users', () => {
    expect(mayDo('developer', 'read')).toBe(true)
    expect(mayDo('developer', 'configure')).toBe(true)
    expect(mayDo('developer', 'move_money')).toBe(false)
    expect(mayDo('developer', 'manage_users')).toBe(false)
    expect(grantableRoles('developer')).toEqual([])
  })
  it('given a developer, then no API keys: a key signs requests that move money', () => {
    expect(mayDo('developer', 'manage_api_keys')).toBe(false)
  })
  it('given a viewer, then reading only', () => {
    expect(mayDo('viewer', 'read')).toBe(true)
    for (const action of ['manage_users', 'move_money', 'configure', 'manage_api_keys'] as const) {
      expect(mayDo('viewer', action)).toBe(false)
    }
  })
})

describe('forms', () => {
  it("given a session's CSRF token, when posted back, then it matches that session only", () => {
    const token = csrfTokenOf('session-a')
    expect(csrfTokenMatches('session-a', token)).toBe(true)
    expect(csrfTokenMatches('session-b', token)).toBe(false)
    expect(csrfTokenMatches('session-a', undefined)).toBe(false)
    expect(csrfTokenMatches('session-a', `${token}x`)).toBe(false)
  })
  it('given a post from another site, when checked, then it is not same-origin', () => {
    const origin = 'https://pay.shop.example'
    expect(isSameOriginPost({ origin, 'sec-fetch-site': 'same-origin' }, origin)).toBe(true)
    expect(isSameOriginPost({ origin: 'null', 'sec-fetch-site': 'same-origin' }, origin)).toBe(true)
    expect(isSameOriginPost({ origin: 'https://evil.example' }, origin)).toBe(false)
    expect(isSameOriginPost({ 'sec-fetch-site': 'cross-site' }, origin)).toBe(false)
    expect(isSameOriginPost({ 'sec-fetch-site': 'same-site' }, origin)).toBe(false)
  })
  it('given an https PUBLIC_URL, then the cookie is __Host- prefixed, Secure, HttpOnly, SameSite=Strict', () => {
    expect(sessionCookieFor('https://pay.shop.example')).toEqual({
      name: '__Host-chainpay_session',
      attributes: 'Path=/; Secure; HttpOnly; SameSite=Strict',
    })
  })
  it('given an http PUBLIC_URL (development on loopback), then no prefix nor Secure, scoped to the dashboard', () => {
    expect(sessionCookieFor('http://localhost:8080')).toEqual({
      name: 'chainpay_session',
      attributes: 'Path=/dashboard; HttpOnly; SameSite=Strict',
    })
  })
})
