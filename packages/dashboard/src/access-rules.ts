// The dashboard's rules of access, pure (time and values come in): when a session still holds, when
// a sign-in is refused for too many failures, which role may do what, whether a form's CSRF token is
// the session's and whether a post comes from the dashboard's own origin (docs/dashboard.md,
// "Sessions and forms"). The routes apply them; the unit tests read them given / when / then.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { DashboardRole, DashboardSession, DashboardUser } from '@chainpay/ports'

/** decisions.md section 23: a session ends 12 h after its last request */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000
/** lastSeenAt is written at most this often: a page load is not a write */
export const SESSION_TOUCH_MS = 60 * 1000
/** a setup link works this long, once */
export const SETUP_LINK_MS = 72 * 60 * 60 * 1000

export interface LockoutPolicy {
  /** failures counted over this window */
  windowMs: number
  /** an account refuses sign-in after this many failures within the window, until it passes */
  maxPerAccount: number
  /** a client address after this many (across accounts: password spraying) */
  maxPerAddress: number
}

export const DEFAULT_LOCKOUT: LockoutPolicy = {
  windowMs: 15 * 60 * 1000,
  maxPerAccount: 5,
  maxPerAddress: 20,
}

export type SessionVerdict = 'valid' | 'unknown' | 'revoked' | 'expired' | 'user_disabled'

/** whether the session lets its holder in at `now` */
export function sessionVerdict(
  session: DashboardSession | null,
  user: Pick<DashboardUser, 'enabled' | 'merchantId'> | null,
  now: Date,
): SessionVerdict {
  if (session === null) return 'unknown'
  if (session.revokedAt !== null) return 'revoked'
  if (now.getTime() - Date.parse(session.lastSeenAt) >= SESSION_IDLE_MS) return 'expired'
  if (user === null || !user.enabled || user.merchantId !== session.merchantId) return 'user_disabled'
  return 'valid'
}

/** whether the request should move the session's lastSeenAt */
export function sessionNeedsTouch(session: Pick<DashboardSession, 'lastSeenAt'>, now: Date): boolean {
  return now.getTime() - Date.parse(session.lastSeenAt) >= SESSION_TOUCH_MS
}

/** when a sign-in is refused before the password is even checked; null when it may be tried */
export function lockedUntil(
  failures: { account: readonly string[]; address: readonly string[] },
  now: Date,
  policy: LockoutPolicy = DEFAULT_LOCKOUT,
): Date | null {
  const since = now.getTime() - policy.windowMs
  const recent = (times: readonly string[]) => times.filter((at) => Date.parse(at) >= since).sort()
  const until = (times: string[], max: number) => {
    if (times.length < max) return null
    // locked while `max` failures stay within the window: until the max-th newest one leaves it
    const oldestCounted = times[times.length - max] as string
    return Date.parse(oldestCounted) + policy.windowMs
  }
  const ends = [
    until(recent(failures.account), policy.maxPerAccount),
    until(recent(failures.address), policy.maxPerAddress),
  ].filter((end): end is number => end !== null && end > now.getTime())
  return ends.length === 0 ? null : new Date(Math.max(...ends))
}

/** what a user may do; every route names one, checked on the server */
export type DashboardAction =
  /** read payments, refunds, their history */
  | 'read'
  /** add users, change their roles, disable them; read the audit log */
  | 'manage_users'
  /** create and cancel refunds and payouts */
  | 'move_money'
  /** change what the merchant may configure (webhook endpoints, redeliveries) */
  | 'configure'
  /** list, create, roll and revoke the merchant's API keys: they sign requests that move money */
  | 'manage_api_keys'

const PERMISSIONS: Record<DashboardRole, readonly DashboardAction[]> = {
  owner: ['read', 'manage_users', 'move_money', 'configure', 'manage_api_keys'],
  developer: ['read', 'configure'],
  viewer: ['read'],
}

export function mayDo(role: DashboardRole, action: DashboardAction): boolean {
  return PERMISSIONS[role].includes(action)
}

/** the roles a user of `role` may give when adding a user: an owner any, others none */
export function grantableRoles(role: DashboardRole): DashboardRole[] {
  return mayDo(role, 'manage_users') ? ['owner', 'developer', 'viewer'] : []
}

/** SHA-256 (hex) of a random value the browser holds: what the store keeps instead */
export function storedHashOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/**
 * The session's CSRF token: an HMAC of a fixed label under the session id (synchronizer token
 * bound to the session, nothing more to store). Another site knows neither the cookie nor this.
 */
export function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('chainpay-dashboard-csrf').digest('base64url')
}

export function csrfTokenMatches(sessionId: string, token: string | undefined): boolean {
  if (token === undefined) return false
  const expected = Buffer.from(csrfTokenOf(sessionId))
  const actual = Buffer.from(token)
  return actual.length === expected.length && timingSafeEqual(actual, expected)
}

/**
 * Whether a form post comes from a page of this origin, as the customer pages check it
 * (packages/gateway/src/checkout/customer-page-headers.ts, isSameOriginPost): browsers send
 * Sec-Fetch-Site and Origin ("null" under Referrer-Policy: no-referrer). Here the CSRF token is
 * checked as well, so a client that sends neither header still needs the session's token.
 */
export function isSameOriginPost(
  headers: { origin?: string | undefined; 'sec-fetch-site'?: string | undefined },
  publicOrigin: string,
): boolean {
  const { origin } = headers
  const site = headers['sec-fetch-site']
  const foreignOrigin = origin !== undefined && origin !== 'null' && origin !== publicOrigin
  return !foreignOrigin && (site === undefined || site === 'same-origin')
}

export interface SessionCookie {
  name: string
  /** the attributes after name=value */
  attributes: string
}

/**
 * The session cookie for PUBLIC_URL: `__Host-` prefixed, Secure, Path=/ on https (the prefix
 * requires both and forbids Domain); on http (development on loopback) no prefix and no Secure, which
 * browsers would refuse to store there, scoped to the dashboard's path. HttpOnly and SameSite=Strict
 * always. No Max-Age: the store ends sessions; the browser forgets the cookie when it closes.
 */
export function sessionCookieFor(publicUrl: string): SessionCookie {
  const url = new URL(publicUrl)
  if (url.protocol === 'https:') {
    return { name: '__Host-chainpay_session', attributes: 'Path=/; Secure; HttpOnly; SameSite=Strict' }
  }
  const path = `${url.pathname.replace(/\/$/, '')}/dashboard`
  return { name: 'chainpay_session', attributes: `Path=${path}; HttpOnly; SameSite=Strict` }
}
