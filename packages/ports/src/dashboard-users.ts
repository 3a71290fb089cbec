// The merchant dashboard's people and their sign-ins (docs/dashboard.md): users of a merchant with a
// role, one-time setup links, sessions, failed sign-ins and the audit log an owner reads. The store
// never sees a secret in the clear: passwords arrive as Argon2id hashes, TOTP secrets sealed
// (dashboardTotpSecretContext), setup tokens and session ids as SHA-256 hashes of the random value
// the browser holds.

export type DashboardRole = 'owner' | 'developer' | 'viewer'
export const DashboardRoles: readonly DashboardRole[] = ['owner', 'developer', 'viewer']

export interface DashboardUser {
  userId: string
  merchantId: string
  /** lower case; one user per address across every merchant (it names the user at sign-in) */
  email: string
  role: DashboardRole
  /** PHC string of the Argon2id hash; null until the setup link is used */
  passwordHash: string | null
  /** sealed TOTP secret (owners); null when none */
  totpSecret: string | null
  /** the last TOTP time step accepted: a code is used once */
  totpLastStep: number | null
  /** false: signs in no more, its sessions refused */
  enabled: boolean
  createdAt: string
  updatedAt: string
}

export type DashboardUserPatch = Partial<
  Pick<DashboardUser, 'role' | 'passwordHash' | 'totpSecret' | 'totpLastStep' | 'enabled'>
>

export interface DashboardSetupToken {
  /** SHA-256 (hex) of the token in the link */
  tokenHash: string
  userId: string
  expiresAt: string
  createdAt: string
}

export interface DashboardSession {
  /** SHA-256 (hex) of the id in the cookie */
  sessionHash: string
  userId: string
  merchantId: string
  createdAt: string
  /** the last request seen; the session ends 12 h after it (idle expiry) */
  lastSeenAt: string
  /** the browser's User-Agent, shortened, for the sessions page */
  userAgent: string
  revokedAt: string | null
}

export interface DashboardAuditEntry {
  entryId: string
  merchantId: string
  at: string
  /** who: a user's email, or "operator" for the admin API */
  actor: string
  /** what, dotted: user.created, user.setup, session.signed_in, session.revoked, ... */
  action: string
  /** on what or whom, in words (an email, a session's start) */
  subject: string
}

export interface DashboardUserStore {
  /** false when a user with the email exists already */
  createUser(user: DashboardUser): Promise<boolean>
  getUser(userId: string): Promise<DashboardUser | null>
  /** by email as typed; compared in lower case */
  getUserByEmail(email: string): Promise<DashboardUser | null>
  /** the merchant's users, oldest first */
  listUsers(merchantId: string): Promise<DashboardUser[]>
  /** the user after the change; null when unknown */
  updateUser(userId: string, patch: DashboardUserPatch, updatedAt: string): Promise<DashboardUser | null>

  createSetupToken(token: DashboardSetupToken): Promise<void>
  /** the token's record while it is not used; null when unknown or used (expiry is the caller's) */
  getSetupToken(tokenHash: string): Promise<DashboardSetupToken | null>
  /** uses the token: true once, false for every later call and for an unknown one */
  useSetupToken(tokenHash: string): Promise<boolean>
  /** forgets every setup token of the user: only a link issued after this one works */
  dropSetupTokensOf(userId: string): Promise<void>
  /**
   * records the TOTP time step a sign-in used, only if it is above the one recorded: true when it
   * was, false when that step (or a later one) was used already, so that a code works once
   */
  advanceTotpStep(userId: string, step: number, updatedAt: string): Promise<boolean>

  createSession(session: DashboardSession): Promise<void>
  getSession(sessionHash: string): Promise<DashboardSession | null>
  /** moves lastSeenAt forward (never back); false when unknown */
  touchSession(sessionHash: string, lastSeenAt: string): Promise<boolean>
  /** marks the session revoked when it is the user's and not revoked yet; false otherwise */
  revokeSession(userId: string, sessionHash: string, revokedAt: string): Promise<boolean>
  /** revokes every session of the user not revoked yet; how many */
  revokeUserSessions(userId: string, revokedAt: string): Promise<number>
  /** the user's sessions not revoked, last seen first */
  listSessions(userId: string): Promise<DashboardSession[]>

  /** records a failed sign-in under `key` (an email, a client address) */
  recordLoginFailure(key: string, at: string): Promise<void>
  /** the failures under `key` at or after `since`, oldest first (their times) */
  loginFailuresSince(key: string, since: string): Promise<string[]>
  /** forgets the failures under `key` (a sign-in that succeeded) */
  clearLoginFailures(key: string): Promise<void>

  /**
   * Forgets what no rule reads any more: failed sign-ins and sessions last seen before `before`,
   * setup tokens that expired before it. The audit log is kept.
   */
  pruneBefore(before: string): Promise<void>

  appendAudit(entry: DashboardAuditEntry): Promise<void>
  /** the merchant's entries, newest first, strictly before `before` (an entry's at and id) when given */
  listAudit(
    merchantId: string,
    limit: number,
    before?: { at: string; entryId: string },
  ): Promise<DashboardAuditEntry[]>
}

/** what a user's sealed TOTP secret is bound to */
export function dashboardTotpSecretContext(user: Pick<DashboardUser, 'userId'>): string {
  return JSON.stringify(['dashboard-user', user.userId, 'totp'])
}
