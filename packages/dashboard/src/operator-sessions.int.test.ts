// The operator's browser sessions on the real SQLite store (docs/operations.md, "The operator's
// views"): the admin token exchanged for a session; a new ADMIN_TOKEN ends every session made under
// the old one; a merchant user's session is no operator's; sign-in, failures and revocations land in
// the operator's audit log, apart from every merchant's.

import { createManualClock } from '@chainpay/platform'
import { createSqliteDashboardUserStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { expect, it } from 'vitest'
import { storedHashOf } from './access-rules.js'
import { createOperatorSessions, OPERATOR_AUDIT_SCOPE } from './operator-sessions.js'

const TOKEN = 'operator-token-0123456789abcdefghijklmnop'
const NEXT_TOKEN = 'operator-token-rotated-0123456789abcdefgh'

function given() {
  const users = createSqliteDashboardUserStore(openSqliteDatabase(':memory:'))
  const clock = createManualClock('2030-01-15T12:00:00.000Z')
  return {
    users,
    clock,
    sessionsFor: (adminToken: string) => createOperatorSessions({ users, clock, adminToken }),
  }
}

it('lets a session in until the admin token is replaced', async () => {
  const { sessionsFor } = given()
  const signedIn = await sessionsFor(TOKEN).signIn({ token: TOKEN, address: '10.0.0.1', userAgent: 'ua' })
  if (!signedIn.ok) throw new Error('sign-in refused')

  expect((await sessionsFor(TOKEN).authenticate(signedIn.sessionId)).verdict).toBe('valid')
  // the deployment restarted with a new ADMIN_TOKEN: the old token's sessions are nobody's
  expect((await sessionsFor(NEXT_TOKEN).authenticate(signedIn.sessionId)).verdict).toBe('unknown')
  expect(await sessionsFor(NEXT_TOKEN).list()).toEqual([])
})

it("refuses a merchant user's session, and keeps the operator's log apart from the merchant's", async () => {
  const { users, clock, sessionsFor } = given()
  const at = clock.now().toISOString()
  await users.createUser({
    userId: 'usr_1',
    merchantId: 'mer_1',
    email: 'viewer@shop.example',
    role: 'viewer',
    passwordHash: null,
    totpSecret: null,
    totpLastStep: null,
    enabled: true,
    createdAt: at,
    updatedAt: at,
  })
  await users.appendAudit({
    entryId: 'e1',
    merchantId: 'mer_1',
    at,
    actor: 'operator',
    action: 'user.created',
    subject: 'viewer@shop.example',
  })
  await users.createSession({
    sessionHash: storedHashOf('merchant-session'),
    userId: 'usr_1',
    merchantId: 'mer_1',
    createdAt: at,
    lastSeenAt: at,
    userAgent: 'ua',
    revokedAt: null,
  })
  const operator = sessionsFor(TOKEN)
  expect((await operator.authenticate('merchant-session')).verdict).toBe('unknown')

  expect(await operator.signIn({ token: 'wrong', address: '10.0.0.1', userAgent: 'ua' })).toEqual({
    ok: false,
    reason: 'invalid',
  })
  const signedIn = await operator.signIn({ token: TOKEN, address: '10.0.0.1', userAgent: 'ua' })
  expect(signedIn.ok).toBe(true)
  const [session] = await operator.list()
  expect(await operator.revoke(session?.sessionHash ?? '', 'session.revoked')).toBe(true)
  expect((await operator.listAudit(10)).map(({ actor, action }) => `${actor} ${action}`).sort()).toEqual([
    'operator session.revoked',
    'operator session.sign_in_failed',
    'operator session.signed_in',
  ])
  expect((await users.listAudit('mer_1', 10)).map(({ action }) => action)).toEqual(['user.created'])
  expect(OPERATOR_AUDIT_SCOPE).not.toMatch(/^mer_/)
})
