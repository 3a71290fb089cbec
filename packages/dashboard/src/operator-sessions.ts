// The operator's browser sessions on the admin listener (docs/operations.md, "The operator's
// views"): the admin token, typed once into a sign-in form, is exchanged for a session held in the
// dashboard's store under the same rules as a merchant user's (access-rules.ts: hashed id, 12 h idle
// expiry, revocable, CSRF token bound to the session, lockout after failed attempts per client
// address). The sessions belong to a pseudo user named after a fingerprint of the token: replacing
// ADMIN_TOKEN ends every operator session at once. Everything the operator does is recorded in an
// audit log of its own (OPERATOR_AUDIT_SCOPE).

import { randomBytes, randomUUID } from 'node:crypto'
import { type Clock, constantTimeEqual } from '@chainpay/platform'
import type { DashboardSession, DashboardUserStore } from '@chainpay/ports'
import {
  DEFAULT_LOCKOUT,
  type LockoutPolicy,
  lockedUntil,
  type SessionVerdict,
  sessionNeedsTouch,
  sessionVerdict,
  storedHashOf,
} from './access-rules.js'

/** the audit log's scope for the operator's own entries: no merchant id has parentheses */
export const OPERATOR_AUDIT_SCOPE = '(operator)'

export interface OperatorSessionsDeps {
  users: DashboardUserStore
  clock: Clock
  adminToken: string
  lockout?: LockoutPolicy
}

export type OperatorSignIn =
  | { ok: true; sessionId: string }
  | { ok: false; reason: 'invalid' | 'locked'; lockedUntil?: Date }

export function createOperatorSessions(deps: OperatorSessionsDeps) {
  const { users, clock } = deps
  const lockout = deps.lockout ?? DEFAULT_LOCKOUT
  const now = () => clock.now()
  const iso = () => now().toISOString()
  // a fingerprint, not the token: the store never holds anything that would open the admin API
  const operatorUserId = `operator:${storedHashOf(`chainpay-operator:${deps.adminToken}`).slice(0, 16)}`
  // the session's own record is the whole rule: no merchant user stands behind it
  const operator = { enabled: true, merchantId: OPERATOR_AUDIT_SCOPE }

  const audit = (action: string, subject: string) =>
    users.appendAudit({
      entryId: randomUUID(),
      merchantId: OPERATOR_AUDIT_SCOPE,
      at: iso(),
      actor: 'operator',
      action,
      subject,
    })

  return {
    audit,

    /** the admin token typed into the form; refused without comparing while the address is locked */
    async signIn(input: { token: string; address: string; userAgent: string }): Promise<OperatorSignIn> {
      const addressKey = `operator-address:${input.address}`
      const since = new Date(now().getTime() - lockout.windowMs).toISOString()
      const failures = await users.loginFailuresSince(addressKey, since)
      const locked = lockedUntil({ account: [], address: failures }, now(), {
        ...lockout,
        // the one token is the one account: an address gets the per-account allowance
        maxPerAddress: lockout.maxPerAccount,
      })
      if (locked !== null) return { ok: false, reason: 'locked', lockedUntil: locked }
      if (!constantTimeEqual(input.token.slice(0, 512), deps.adminToken)) {
        await users.recordLoginFailure(addressKey, iso())
        await audit('session.sign_in_failed', input.address)
        return { ok: false, reason: 'invalid' }
      }
      await users.clearLoginFailures(addressKey)
      const sessionId = randomBytes(32).toString('base64url')
      const at = iso()
      await users.createSession({
        sessionHash: storedHashOf(sessionId),
        userId: operatorUserId,
        merchantId: OPERATOR_AUDIT_SCOPE,
        createdAt: at,
        lastSeenAt: at,
        userAgent: input.userAgent.slice(0, 200),
        revokedAt: null,
      })
      await audit('session.signed_in', input.address)
      return { ok: true, sessionId }
    },

    /** whether the cookie's session lets the operator in; touches it (at most once a minute) */
    async authenticate(
      sessionId: string | undefined,
    ): Promise<{ verdict: SessionVerdict; session?: DashboardSession }> {
      if (sessionId === undefined || sessionId.length > 100) return { verdict: 'unknown' }
      const session = await users.getSession(storedHashOf(sessionId))
      // a merchant user's session, or one made under an earlier admin token, is no operator's
      if (session !== null && session.userId !== operatorUserId) return { verdict: 'unknown' }
      const verdict = sessionVerdict(session, operator, now())
      if (verdict !== 'valid' || session === null) return { verdict }
      if (sessionNeedsTouch(session, now())) await users.touchSession(session.sessionHash, iso())
      return { verdict, session }
    },

    /** the operator's sessions that still hold, last seen first */
    list: async () =>
      (await users.listSessions(operatorUserId)).filter(
        (session) => sessionVerdict(session, operator, now()) === 'valid',
      ),

    async revoke(sessionHash: string, action: 'session.signed_out' | 'session.revoked'): Promise<boolean> {
      const revoked = await users.revokeSession(operatorUserId, sessionHash, iso())
      if (revoked) await audit(action, sessionHash.slice(0, 8))
      return revoked
    },

    listAudit: (limit: number, before?: { at: string; entryId: string }) =>
      users.listAudit(OPERATOR_AUDIT_SCOPE, limit, before),
  }
}

export type OperatorSessions = ReturnType<typeof createOperatorSessions>
