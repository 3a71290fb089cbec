// The dashboard's people (docs/dashboard.md): users added by the operator or an owner with a
// one-time setup link, the setup (password, and TOTP for owners), sign-in with lockout, sessions
// held in the store by the hash of their id, and the audit log that records every change. The
// rules themselves are pure (access-rules.ts); this applies them to the store.

import { randomBytes, randomUUID } from 'node:crypto'
import { DomainError } from '@chainpay/domain'
import type { Clock, SecretBox } from '@chainpay/platform'
import {
  type DashboardRole,
  DashboardRoles,
  type DashboardSession,
  type DashboardUser,
  type DashboardUserStore,
  dashboardTotpSecretContext,
} from '@chainpay/ports'
import {
  DEFAULT_LOCKOUT,
  type LockoutPolicy,
  lockedUntil,
  SETUP_LINK_MS,
  type SessionVerdict,
  sessionNeedsTouch,
  sessionVerdict,
  storedHashOf,
} from './access-rules.js'
import { hashPassword, PASSWORD_LENGTH, verifyPassword } from './passwords.js'
import { acceptTotp } from './totp.js'

export interface DashboardAccountsDeps {
  users: DashboardUserStore
  secretBox: SecretBox
  clock: Clock
  /** PUBLIC_URL: setup links are {PUBLIC_URL}/dashboard/setup/{token} */
  publicUrl: string
  lockout?: LockoutPolicy
}

export interface AddedUser {
  user: DashboardUser
  /** shown once: the store keeps only its hash */
  setupUrl: string
  setupExpiresAt: string
}

export type SignInOutcome =
  | { ok: true; sessionId: string; user: DashboardUser }
  | { ok: false; reason: 'invalid' | 'locked'; lockedUntil?: Date }

export interface SetupOutcome {
  ok: boolean
  problem?: 'password_length' | 'password_mismatch' | 'totp' | 'used'
}

/** failed sign-ins and sessions are kept a day past anything that reads them (15 min, 12 h) */
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000
const PRUNE_EVERY_MS = 60 * 60 * 1000

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,190}\.[^\s@<>"]{1,63}$/

/** sign-ins verified at once in a process (libuv's thread pool has 4 threads by default) */
const SIGN_INS_AT_ONCE = 4

/** an argon2id hash of nothing anyone types: an unknown email costs what a known one does */
let decoyHash: Promise<string> | undefined

/** false, after the work of a verification, so that timing does not tell which emails exist */
async function spendAsMuchAsAVerification(password: string): Promise<false> {
  decoyHash ??= hashPassword(randomUUID())
  await verifyPassword(password, await decoyHash)
  return false
}

export function createDashboardAccounts(deps: DashboardAccountsDeps) {
  const { users, clock } = deps
  const lockout = deps.lockout ?? DEFAULT_LOCKOUT
  const now = () => clock.now()
  const iso = () => now().toISOString()
  const setupUrlOf = (token: string) => `${deps.publicUrl.replace(/\/$/, '')}/dashboard/setup/${token}`

  const audit = (merchantId: string, actor: string, action: string, subject: string) =>
    users.appendAudit({ entryId: randomUUID(), merchantId, at: iso(), actor, action, subject })

  async function issueSetupLink(user: DashboardUser) {
    // only the newest link works: one sent before (in a ticket, a shell's history) no longer does
    await users.dropSetupTokensOf(user.userId)
    const token = randomBytes(32).toString('base64url')
    const setupExpiresAt = new Date(now().getTime() + SETUP_LINK_MS).toISOString()
    await users.createSetupToken({
      tokenHash: storedHashOf(token),
      userId: user.userId,
      expiresAt: setupExpiresAt,
      createdAt: iso(),
    })
    return { setupUrl: setupUrlOf(token), setupExpiresAt }
  }

  /** the setup token's user while the link is unused and in time; null otherwise */
  async function userOfSetupToken(token: string): Promise<DashboardUser | null> {
    const record = await users.getSetupToken(storedHashOf(token))
    if (record === null || Date.parse(record.expiresAt) <= now().getTime()) return null
    const user = await users.getUser(record.userId)
    return user?.enabled ? user : null
  }

  // what no rule reads any more is forgotten at most once an hour, by a sign-in (PRUNE_AFTER_MS)
  let prunedAt = 0
  const pruneNow = async () => {
    const time = now().getTime()
    if (time - prunedAt < PRUNE_EVERY_MS) return
    prunedAt = time
    await users.pruneBefore(new Date(time - PRUNE_AFTER_MS).toISOString())
  }

  const accounts = {
    /** records a change made on another page (webhooks...) in the audit log: who, what, on what */
    recordAudit: audit,
    /** adds a user of the merchant, with a setup link; `actor`: "operator" or the owner's email */
    async addUser(input: {
      merchantId: string
      email: string
      role: string
      actor: string
    }): Promise<AddedUser> {
      const email = input.email.trim().toLowerCase()
      if (!EMAIL.test(email)) throw new DomainError('VALIDATION_ERROR', 'email: must be an email address')
      if (!(DashboardRoles as readonly string[]).includes(input.role)) {
        throw new DomainError('VALIDATION_ERROR', `role: must be one of ${DashboardRoles.join(', ')}`)
      }
      const at = iso()
      const user: DashboardUser = {
        userId: `usr_${randomUUID()}`,
        merchantId: input.merchantId,
        email,
        role: input.role as DashboardRole,
        passwordHash: null,
        totpSecret: null,
        totpLastStep: null,
        enabled: true,
        createdAt: at,
        updatedAt: at,
      }
      if (!(await users.createUser(user))) {
        throw new DomainError('USER_EXISTS', `a dashboard user with email ${email} exists already`)
      }
      const link = await issueSetupLink(user)
      await audit(user.merchantId, input.actor, 'user.created', `${email} (${user.role})`)
      return { user, ...link }
    },

    userOfSetupToken,

    /**
     * A new setup link for a user of the merchant who lost the password or the authenticator: the
     * password and the TOTP key are cleared and the user's sessions end, so that only the new link
     * gets the user in again. Null for an unknown email or another merchant's user.
     */
    async resetUser(input: { merchantId: string; email: string; actor: string }): Promise<AddedUser | null> {
      const user = await users.getUserByEmail(input.email.trim())
      if (user === null || user.merchantId !== input.merchantId) return null
      const at = iso()
      const reset =
        (await users.updateUser(
          user.userId,
          { passwordHash: null, totpSecret: null, totpLastStep: null },
          at,
        )) ?? user
      await users.revokeUserSessions(user.userId, at)
      const link = await issueSetupLink(reset)
      await audit(user.merchantId, input.actor, 'user.reset', user.email)
      return { user: reset, ...link }
    },

    /**
     * Sets the password (and, for an owner, the TOTP secret once a code from it is typed), uses the
     * link, ends any session the user had. `totpSecret` is the one the setup page showed.
     */
    async completeSetup(input: {
      token: string
      password: string
      confirmation: string
      totpSecret?: string | undefined
      totpCode?: string | undefined
    }): Promise<SetupOutcome> {
      const user = await userOfSetupToken(input.token)
      if (user === null) return { ok: false, problem: 'used' }
      const { password } = input
      if (password.length < PASSWORD_LENGTH.min || password.length > PASSWORD_LENGTH.max) {
        return { ok: false, problem: 'password_length' }
      }
      if (password !== input.confirmation) return { ok: false, problem: 'password_mismatch' }
      let totp: { totpSecret: string; totpLastStep: number } | null = null
      if (user.role === 'owner') {
        const secret = input.totpSecret ?? ''
        const step = /^[A-Z2-7]{32}$/.test(secret)
          ? acceptTotp(secret, input.totpCode ?? '', now(), null)
          : null
        if (step === null) return { ok: false, problem: 'totp' }
        totp = {
          totpSecret: deps.secretBox.seal(secret, dashboardTotpSecretContext(user)),
          totpLastStep: step,
        }
      }
      const passwordHash = await hashPassword(password)
      // the link is used first: of two setups at once, one sets the password
      if (!(await users.useSetupToken(storedHashOf(input.token)))) return { ok: false, problem: 'used' }
      await users.dropSetupTokensOf(user.userId)
      await users.updateUser(
        user.userId,
        { passwordHash, ...(totp ?? { totpSecret: null, totpLastStep: null }) },
        iso(),
      )
      await users.revokeUserSessions(user.userId, iso())
      await audit(user.merchantId, user.email, 'user.setup', user.email)
      return { ok: true }
    },

    /**
     * Email and password, and the TOTP code for an owner: one answer for every failure (which part
     * was wrong is not told), refused without checking while the account or the address is locked.
     */
    async signIn(input: {
      email: string
      password: string
      code?: string | undefined
      address: string
      userAgent: string
    }): Promise<SignInOutcome> {
      await pruneNow()
      const email = input.email.trim().toLowerCase()
      const accountKey = `email:${email}`
      const addressKey = `address:${input.address}`
      const since = new Date(now().getTime() - lockout.windowMs).toISOString()
      const locked = lockedUntil(
        {
          account: await users.loginFailuresSince(accountKey, since),
          address: await users.loginFailuresSince(addressKey, since),
        },
        now(),
        lockout,
      )
      if (locked !== null) return { ok: false, reason: 'locked', lockedUntil: locked }
      const user = email.length > 254 ? null : await users.getUserByEmail(email)
      const password = input.password.slice(0, PASSWORD_LENGTH.max)
      const passwordOk =
        user?.passwordHash != null && user.enabled
          ? await verifyPassword(password, user.passwordHash)
          : await spendAsMuchAsAVerification(password)
      let step: number | null = null
      if (passwordOk && user !== null && user.totpSecret !== null) {
        const secret = deps.secretBox.open(user.totpSecret, dashboardTotpSecretContext(user))
        step = acceptTotp(secret, input.code ?? '', now(), user.totpLastStep)
      }
      // the code's step recorded only if above the last one used: of two sign-ins with one code, one
      const totpOk =
        user !== null &&
        (user.totpSecret === null
          ? user.role !== 'owner'
          : step !== null && (await users.advanceTotpStep(user.userId, step, iso())))
      if (!passwordOk || !totpOk || user === null) {
        await users.recordLoginFailure(accountKey, iso())
        await users.recordLoginFailure(addressKey, iso())
        if (user !== null) await audit(user.merchantId, user.email, 'session.sign_in_failed', input.address)
        return { ok: false, reason: 'invalid' }
      }
      await users.clearLoginFailures(accountKey)
      const sessionId = randomBytes(32).toString('base64url')
      const at = iso()
      await users.createSession({
        sessionHash: storedHashOf(sessionId),
        userId: user.userId,
        merchantId: user.merchantId,
        createdAt: at,
        lastSeenAt: at,
        userAgent: input.userAgent.slice(0, 200),
        revokedAt: null,
      })
      await audit(user.merchantId, user.email, 'session.signed_in', input.address)
      return { ok: true, sessionId, user }
    },

    /** the session's user while the session holds; touches it (at most once a minute) */
    async authenticate(
      sessionId: string | undefined,
    ): Promise<{ verdict: SessionVerdict; user?: DashboardUser; session?: DashboardSession }> {
      if (sessionId === undefined || sessionId.length > 100) return { verdict: 'unknown' }
      const session = await users.getSession(storedHashOf(sessionId))
      const user = session === null ? null : await users.getUser(session.userId)
      const verdict = sessionVerdict(session, user, now())
      if (verdict !== 'valid' || session === null || user === null) return { verdict }
      if (sessionNeedsTouch(session, now())) await users.touchSession(session.sessionHash, iso())
      return { verdict, user, session }
    },

    async signOut(user: DashboardUser, sessionHash: string) {
      if (await users.revokeSession(user.userId, sessionHash, iso())) {
        await audit(user.merchantId, user.email, 'session.signed_out', user.email)
      }
    },

    /** revokes one of the user's own sessions (the sessions page) */
    async revokeSession(user: DashboardUser, sessionHash: string): Promise<boolean> {
      const revoked = await users.revokeSession(user.userId, sessionHash, iso())
      if (revoked) await audit(user.merchantId, user.email, 'session.revoked', sessionHash.slice(0, 8))
      return revoked
    },

    /**
     * An owner ends every session of another user of the merchant (a lost laptop, someone leaving),
     * without disabling the user, who may sign in again. False for another merchant's user.
     */
    async endUserSessions(actor: DashboardUser, userId: string): Promise<boolean> {
      const target = await users.getUser(userId)
      if (target === null || target.merchantId !== actor.merchantId) return false
      await users.revokeUserSessions(userId, iso())
      await audit(actor.merchantId, actor.email, 'user.signed_out', target.email)
      return true
    },

    /**
     * An owner changes a user of the merchant: a role, or enabled. Disabling ends the user's
     * sessions. Refused (false) for another merchant's user, and when it would leave the merchant
     * without an enabled owner (nobody could manage its users then but the operator).
     */
    async changeUser(
      actor: DashboardUser,
      userId: string,
      change: { role?: DashboardRole; enabled?: boolean },
    ): Promise<'changed' | 'unknown' | 'last_owner' | 'needs_totp'> {
      const target = await users.getUser(userId)
      if (target === null || target.merchantId !== actor.merchantId) return 'unknown'
      const next = { ...target, ...change }
      // an owner signs in with TOTP (decisions.md section 23): a user who set up without an
      // authenticator is made owner only once reset, so that the setup link enrols one
      if (
        next.role === 'owner' &&
        target.role !== 'owner' &&
        target.totpSecret === null &&
        target.passwordHash !== null
      )
        return 'needs_totp'
      const staysOwner = next.role === 'owner' && next.enabled
      if (target.role === 'owner' && target.enabled && !staysOwner) {
        const owners = (await users.listUsers(actor.merchantId)).filter(
          (user) => user.role === 'owner' && user.enabled && user.userId !== userId,
        )
        if (owners.length === 0) return 'last_owner'
      }
      await users.updateUser(userId, change, iso())
      if (change.enabled === false) await users.revokeUserSessions(userId, iso())
      if (change.role !== undefined && change.role !== target.role) {
        await audit(
          actor.merchantId,
          actor.email,
          'user.role_changed',
          `${target.email}: ${target.role} → ${change.role}`,
        )
      }
      if (change.enabled !== undefined && change.enabled !== target.enabled) {
        await audit(
          actor.merchantId,
          actor.email,
          change.enabled ? 'user.enabled' : 'user.disabled',
          target.email,
        )
      }
      return 'changed'
    },

    /** the user's sessions that still hold (not revoked, not idle 12 h) */
    listSessions: async (user: DashboardUser) =>
      (await users.listSessions(user.userId)).filter(
        (session) => sessionVerdict(session, user, now()) === 'valid',
      ),
    listUsers: (merchantId: string) => users.listUsers(merchantId),
    listAudit: users.listAudit.bind(users),
    /** an entry in the merchant's audit log for a change the user made on another page */
    recordUserAudit: (user: DashboardUser, action: string, subject: string) =>
      audit(user.merchantId, user.email, action, subject),
  }

  // One sign-in per account at a time, and a few in all: a burst of guesses sent at once would all
  // pass the lockout before the first failure is recorded, and each costs an Argon2 verification on
  // the thread pool the whole process shares. Answered as a lock of a second (429).
  const signingIn = new Set<string>()
  const signInOnce = accounts.signIn
  accounts.signIn = async (input) => {
    const accountKey = input.email.trim().toLowerCase()
    if (signingIn.has(accountKey) || signingIn.size >= SIGN_INS_AT_ONCE) {
      return { ok: false, reason: 'locked', lockedUntil: new Date(now().getTime() + 1000) }
    }
    signingIn.add(accountKey)
    try {
      return await signInOnce(input)
    } finally {
      signingIn.delete(accountKey)
    }
  }
  return accounts
}

export type DashboardAccounts = ReturnType<typeof createDashboardAccounts>
