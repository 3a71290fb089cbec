import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type {
  DashboardAuditEntry,
  DashboardSession,
  DashboardUser,
  DashboardUserStore,
} from '../dashboard-users.js'

/** What every DashboardUserStore adapter must do; run it against a fresh, empty store per test. */
export function describeDashboardUserStoreContract(
  adapterName: string,
  setup: () => Promise<{ store: DashboardUserStore; teardown(): Promise<void> }>,
): void {
  describe(`DashboardUserStore contract: ${adapterName}`, () => {
    let store: DashboardUserStore
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    it('creates users, one per email whatever its case, and finds them by id and email', async () => {
      const alice = user('usr_1', 'mer_1', 'alice@shop.example')
      expect(await store.createUser(alice)).toBe(true)
      expect(await store.createUser(user('usr_2', 'mer_2', 'alice@shop.example'))).toBe(false)
      expect(await store.getUser('usr_1')).toEqual(alice)
      expect(await store.getUserByEmail('Alice@Shop.Example')).toEqual(alice)
      expect(await store.getUser('usr_2')).toBeNull()
      expect(await store.getUserByEmail('bob@shop.example')).toBeNull()
    })

    it("lists a merchant's users oldest first, and no other merchant's", async () => {
      const second = user('usr_2', 'mer_1', 'b@shop.example', { createdAt: '2030-01-02T00:00:00.000Z' })
      const first = user('usr_1', 'mer_1', 'a@shop.example')
      await store.createUser(second)
      await store.createUser(first)
      await store.createUser(user('usr_3', 'mer_2', 'c@shop.example'))
      expect(await store.listUsers('mer_1')).toEqual([first, second])
      expect(await store.listUsers('mer_unknown')).toEqual([])
    })

    it('patches only the given fields of a user', async () => {
      await store.createUser(user('usr_1', 'mer_1', 'a@shop.example'))
      const patched = await store.updateUser(
        'usr_1',
        { passwordHash: '$argon2id$x', totpSecret: 'sealed:t', totpLastStep: 42 },
        later,
      )
      expect(patched).toEqual({
        ...user('usr_1', 'mer_1', 'a@shop.example'),
        passwordHash: '$argon2id$x',
        totpSecret: 'sealed:t',
        totpLastStep: 42,
        updatedAt: later,
      })
      expect(await store.getUser('usr_1')).toEqual(patched)
      const disabled = await store.updateUser('usr_1', { enabled: false, role: 'viewer' }, later)
      expect(disabled).toMatchObject({ enabled: false, role: 'viewer', passwordHash: '$argon2id$x' })
      expect(await store.updateUser('usr_unknown', { enabled: false }, later)).toBeNull()
    })

    it('uses a setup token once, also when used twice at once', async () => {
      const token = { tokenHash: 'h1', userId: 'usr_1', expiresAt: later, createdAt: now }
      await store.createSetupToken(token)
      expect(await store.getSetupToken('h1')).toEqual(token)
      expect(await store.getSetupToken('h2')).toBeNull()
      const used = await Promise.all([store.useSetupToken('h1'), store.useSetupToken('h1')])
      expect(used.filter(Boolean)).toEqual([true])
      expect(await store.useSetupToken('h1')).toBe(false)
      expect(await store.getSetupToken('h1')).toBeNull()
      expect(await store.useSetupToken('h_unknown')).toBe(false)
    })

    it("drops every setup token of a user, and no other user's", async () => {
      await store.createSetupToken({ tokenHash: 'h1', userId: 'usr_1', expiresAt: later, createdAt: now })
      await store.createSetupToken({ tokenHash: 'h2', userId: 'usr_1', expiresAt: later, createdAt: now })
      await store.createSetupToken({ tokenHash: 'h3', userId: 'usr_2', expiresAt: later, createdAt: now })
      await store.dropSetupTokensOf('usr_1')
      expect(await store.getSetupToken('h1')).toBeNull()
      expect(await store.getSetupToken('h2')).toBeNull()
      expect(await store.getSetupToken('h3')).not.toBeNull()
    })

    it('records a TOTP step only above the last one used: of two uses of one step, one', async () => {
      await store.createUser(user('usr_1', 'mer_1', 'a@shop.example'))
      const twice = await Promise.all([
        store.advanceTotpStep('usr_1', 100, later),
        store.advanceTotpStep('usr_1', 100, later),
      ])
      expect(twice.filter(Boolean)).toEqual([true])
      expect(await store.advanceTotpStep('usr_1', 99, later)).toBe(false)
      expect(await store.advanceTotpStep('usr_1', 101, later)).toBe(true)
      expect((await store.getUser('usr_1'))?.totpLastStep).toBe(101)
      expect(await store.advanceTotpStep('usr_unknown', 5, later)).toBe(false)
    })

    it('keeps sessions: touched forward only, listed last seen first, revoked one by one or all', async () => {
      const first = session('s1', 'usr_1')
      const second = session('s2', 'usr_1', { lastSeenAt: '2030-01-01T01:00:00.000Z' })
      await store.createSession(first)
      await store.createSession(second)
      await store.createSession(session('s3', 'usr_2'))
      expect(await store.getSession('s1')).toEqual(first)
      expect(await store.getSession('s_unknown')).toBeNull()
      expect(await store.listSessions('usr_1')).toEqual([second, first])

      expect(await store.touchSession('s1', '2030-01-01T02:00:00.000Z')).toBe(true)
      expect(await store.touchSession('s1', '2030-01-01T01:30:00.000Z')).toBe(true)
      expect((await store.getSession('s1'))?.lastSeenAt).toBe('2030-01-01T02:00:00.000Z')
      expect(await store.touchSession('s_unknown', later)).toBe(false)

      // another user's session is not revoked through this one
      expect(await store.revokeSession('usr_2', 's1', later)).toBe(false)
      expect(await store.revokeSession('usr_1', 's1', later)).toBe(true)
      expect(await store.revokeSession('usr_1', 's1', later)).toBe(false)
      expect((await store.getSession('s1'))?.revokedAt).toBe(later)
      expect(await store.listSessions('usr_1')).toEqual([second])

      expect(await store.revokeUserSessions('usr_1', later)).toBe(1)
      expect(await store.listSessions('usr_1')).toEqual([])
      expect((await store.getSession('s2'))?.revokedAt).toBe(later)
      expect(await store.getSession('s3')).toEqual(session('s3', 'usr_2'))
    })

    it('counts failed sign-ins per key since a time, and forgets them', async () => {
      await store.recordLoginFailure('email:a@shop.example', '2030-01-01T00:00:00.000Z')
      await store.recordLoginFailure('email:a@shop.example', '2030-01-01T00:10:00.000Z')
      await store.recordLoginFailure('email:a@shop.example', '2030-01-01T00:10:00.000Z')
      await store.recordLoginFailure('address:192.0.2.1', '2030-01-01T00:10:00.000Z')
      expect(await store.loginFailuresSince('email:a@shop.example', '2030-01-01T00:05:00.000Z')).toEqual([
        '2030-01-01T00:10:00.000Z',
        '2030-01-01T00:10:00.000Z',
      ])
      expect(await store.loginFailuresSince('email:a@shop.example', now)).toHaveLength(3)
      await store.clearLoginFailures('email:a@shop.example')
      expect(await store.loginFailuresSince('email:a@shop.example', now)).toEqual([])
      expect(await store.loginFailuresSince('address:192.0.2.1', now)).toHaveLength(1)
    })

    it('prunes failures, sessions and setup tokens older than a time, and nothing newer', async () => {
      await store.recordLoginFailure('email:a@shop.example', '2030-01-01T00:00:00.000Z')
      await store.recordLoginFailure('email:a@shop.example', '2030-01-02T00:00:00.000Z')
      await store.createSession(session('s_old', 'usr_1'))
      await store.createSession(session('s_new', 'usr_1', { lastSeenAt: '2030-01-02T00:00:00.000Z' }))
      await store.createSetupToken({ tokenHash: 'h_old', userId: 'usr_1', expiresAt: now, createdAt: now })
      await store.createSetupToken({ tokenHash: 'h_new', userId: 'usr_1', expiresAt: later, createdAt: now })
      await store.appendAudit(audit('aud_1', 'mer_1', now))

      await store.pruneBefore('2030-01-01T12:00:00.000Z')
      expect(await store.loginFailuresSince('email:a@shop.example', now)).toEqual([
        '2030-01-02T00:00:00.000Z',
      ])
      expect(await store.getSession('s_old')).toBeNull()
      expect(await store.getSession('s_new')).not.toBeNull()
      expect(await store.getSetupToken('h_old')).toBeNull()
      expect(await store.getSetupToken('h_new')).not.toBeNull()
      expect(await store.listAudit('mer_1', 10)).toHaveLength(1)
    })

    it("lists a merchant's audit log newest first, a page at a time", async () => {
      const entries = Array.from({ length: 5 }, (_, index) =>
        audit(`aud_${index}`, 'mer_1', `2030-01-01T00:0${index}:00.000Z`),
      )
      // two in the same millisecond: ordered by id
      entries.push(audit('aud_9', 'mer_1', '2030-01-01T00:04:00.000Z'))
      for (const entry of entries) await store.appendAudit(entry)
      await store.appendAudit(audit('aud_x', 'mer_2', now))
      const first = await store.listAudit('mer_1', 3)
      expect(first.map((entry) => entry.entryId)).toEqual(['aud_9', 'aud_4', 'aud_3'])
      expect(first[0]).toEqual(entries[5])
      const last = first.at(-1) as DashboardAuditEntry
      const next = await store.listAudit('mer_1', 10, { at: last.at, entryId: last.entryId })
      expect(next.map((entry) => entry.entryId)).toEqual(['aud_2', 'aud_1', 'aud_0'])
      expect(await store.listAudit('mer_unknown', 10)).toEqual([])
    })
  })
}

const now = '2030-01-01T00:00:00.000Z'
const later = '2030-01-03T00:00:00.000Z'

function user(
  userId: string,
  merchantId: string,
  email: string,
  overrides: Partial<DashboardUser> = {},
): DashboardUser {
  return {
    userId,
    merchantId,
    email,
    role: 'owner',
    passwordHash: null,
    totpSecret: null,
    totpLastStep: null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
    ...overrides,
  }
}

function session(
  sessionHash: string,
  userId: string,
  overrides: Partial<DashboardSession> = {},
): DashboardSession {
  return {
    sessionHash,
    userId,
    merchantId: 'mer_1',
    createdAt: now,
    lastSeenAt: now,
    userAgent: 'Mozilla/5.0',
    revokedAt: null,
    ...overrides,
  }
}

function audit(entryId: string, merchantId: string, at: string): DashboardAuditEntry {
  return {
    entryId,
    merchantId,
    at,
    actor: 'a@shop.example',
    action: 'user.created',
    subject: 'b@shop.example',
  }
}
