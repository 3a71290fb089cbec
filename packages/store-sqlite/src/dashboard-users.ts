import {
  type DashboardAuditEntry,
  type DashboardSession,
  type DashboardUser,
  type DashboardUserPatch,
  type DashboardUserStore,
  translateFailures,
} from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

type Row = Record<string, unknown>

/** the dashboard's users, setup tokens, sessions, failed sign-ins and audit log (schema-versions.ts) */
export const dashboardUserMigrations: readonly SqliteMigration[] = [
  {
    description: "the dashboard's users, sessions and audit log",
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS dashboard_users (
          user_id TEXT PRIMARY KEY,
          merchant_id TEXT NOT NULL,
          email TEXT NOT NULL UNIQUE,
          role TEXT NOT NULL,
          password_hash TEXT,
          totp_secret TEXT,
          totp_last_step INTEGER,
          enabled INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS dashboard_users_by_merchant ON dashboard_users (merchant_id, created_at);
        CREATE TABLE IF NOT EXISTS dashboard_setup_tokens (
          token_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          expires_at TEXT NOT NULL,
          created_at TEXT NOT NULL
        ) STRICT;
        CREATE TABLE IF NOT EXISTS dashboard_sessions (
          session_hash TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          merchant_id TEXT NOT NULL,
          created_at TEXT NOT NULL,
          last_seen_at TEXT NOT NULL,
          user_agent TEXT NOT NULL,
          revoked_at TEXT
        ) STRICT;
        CREATE INDEX IF NOT EXISTS dashboard_sessions_by_user ON dashboard_sessions (user_id, last_seen_at);
        CREATE TABLE IF NOT EXISTS dashboard_login_failures (
          key TEXT NOT NULL,
          at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS dashboard_login_failures_by_key ON dashboard_login_failures (key, at);
        CREATE TABLE IF NOT EXISTS dashboard_audit (
          entry_id TEXT PRIMARY KEY,
          merchant_id TEXT NOT NULL,
          at TEXT NOT NULL,
          actor TEXT NOT NULL,
          action TEXT NOT NULL,
          subject TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS dashboard_audit_by_merchant ON dashboard_audit (merchant_id, at, entry_id);
      `),
  },
]

/** The dashboard's users and sessions in tables dashboard_*; secrets arrive hashed or sealed. */
export function createSqliteDashboardUserStore(db: DatabaseSync): DashboardUserStore {
  migrateSqliteComponent(db, 'dashboard-users', dashboardUserMigrations)
  const insertUser = db.prepare(`
    INSERT INTO dashboard_users (user_id, merchant_id, email, role, password_hash, totp_secret,
      totp_last_step, enabled, created_at, updated_at)
    VALUES (:userId, :merchantId, :email, :role, :passwordHash, :totpSecret, :totpLastStep, :enabled,
      :createdAt, :updatedAt)
    ON CONFLICT (email) DO NOTHING
  `)
  const selectUser = db.prepare('SELECT * FROM dashboard_users WHERE user_id = ?')
  const selectUserByEmail = db.prepare('SELECT * FROM dashboard_users WHERE email = ?')
  const selectUsers = db.prepare(
    'SELECT * FROM dashboard_users WHERE merchant_id = ? ORDER BY created_at, user_id',
  )
  const updateUserRow = db.prepare(`
    UPDATE dashboard_users SET role = :role, password_hash = :passwordHash, totp_secret = :totpSecret,
      totp_last_step = :totpLastStep, enabled = :enabled, updated_at = :updatedAt
    WHERE user_id = :userId
  `)
  const insertToken = db.prepare(
    'INSERT INTO dashboard_setup_tokens (token_hash, user_id, expires_at, created_at) VALUES (?, ?, ?, ?)',
  )
  const selectToken = db.prepare('SELECT * FROM dashboard_setup_tokens WHERE token_hash = ?')
  const deleteToken = db.prepare('DELETE FROM dashboard_setup_tokens WHERE token_hash = ?')
  const deleteTokensOf = db.prepare('DELETE FROM dashboard_setup_tokens WHERE user_id = ?')
  const advanceStep = db.prepare(
    `UPDATE dashboard_users SET totp_last_step = ?, updated_at = ?
     WHERE user_id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)`,
  )
  const insertSession = db.prepare(`
    INSERT INTO dashboard_sessions (session_hash, user_id, merchant_id, created_at, last_seen_at,
      user_agent, revoked_at)
    VALUES (:sessionHash, :userId, :merchantId, :createdAt, :lastSeenAt, :userAgent, :revokedAt)
  `)
  const selectSession = db.prepare('SELECT * FROM dashboard_sessions WHERE session_hash = ?')
  const touch = db.prepare(
    'UPDATE dashboard_sessions SET last_seen_at = max(last_seen_at, ?) WHERE session_hash = ?',
  )
  const revokeOne = db.prepare(
    'UPDATE dashboard_sessions SET revoked_at = ? WHERE session_hash = ? AND user_id = ? AND revoked_at IS NULL',
  )
  const revokeAll = db.prepare(
    'UPDATE dashboard_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL',
  )
  const selectSessions = db.prepare(
    'SELECT * FROM dashboard_sessions WHERE user_id = ? AND revoked_at IS NULL ORDER BY last_seen_at DESC, session_hash',
  )
  const insertFailure = db.prepare('INSERT INTO dashboard_login_failures (key, at) VALUES (?, ?)')
  const selectFailures = db.prepare(
    'SELECT at FROM dashboard_login_failures WHERE key = ? AND at >= ? ORDER BY at',
  )
  const deleteFailures = db.prepare('DELETE FROM dashboard_login_failures WHERE key = ?')
  const pruneFailures = db.prepare('DELETE FROM dashboard_login_failures WHERE at < ?')
  const pruneSessions = db.prepare('DELETE FROM dashboard_sessions WHERE last_seen_at < ?')
  const pruneTokens = db.prepare('DELETE FROM dashboard_setup_tokens WHERE expires_at < ?')
  const insertAudit = db.prepare(`
    INSERT INTO dashboard_audit (entry_id, merchant_id, at, actor, action, subject)
    VALUES (:entryId, :merchantId, :at, :actor, :action, :subject)
  `)
  const selectAudit = db.prepare(
    'SELECT * FROM dashboard_audit WHERE merchant_id = ? ORDER BY at DESC, entry_id DESC LIMIT ?',
  )
  const selectAuditBefore = db.prepare(`
    SELECT * FROM dashboard_audit WHERE merchant_id = ? AND (at < ? OR (at = ? AND entry_id < ?))
    ORDER BY at DESC, entry_id DESC LIMIT ?
  `)

  const getUser = (userId: string) => {
    const row = selectUser.get(userId)
    return row === undefined ? null : toUser(row)
  }

  return translateFailures(
    {
      async createUser(user) {
        const { changes } = insertUser.run({
          ...user,
          email: user.email.toLowerCase(),
          enabled: user.enabled ? 1 : 0,
        })
        return Number(changes) === 1
      },
      async getUser(userId) {
        return getUser(userId)
      },
      async getUserByEmail(email) {
        const row = selectUserByEmail.get(email.toLowerCase())
        return row === undefined ? null : toUser(row)
      },
      async listUsers(merchantId) {
        return selectUsers.all(merchantId).map(toUser)
      },
      async updateUser(userId, patch: DashboardUserPatch, updatedAt) {
        const current = getUser(userId)
        if (current === null) return null
        const next: DashboardUser = { ...current, ...patch, updatedAt }
        updateUserRow.run({
          userId,
          role: next.role,
          passwordHash: next.passwordHash,
          totpSecret: next.totpSecret,
          totpLastStep: next.totpLastStep,
          enabled: next.enabled ? 1 : 0,
          updatedAt,
        })
        return next
      },

      async createSetupToken(token) {
        insertToken.run(token.tokenHash, token.userId, token.expiresAt, token.createdAt)
      },
      async getSetupToken(tokenHash) {
        const row = selectToken.get(tokenHash)
        return row === undefined
          ? null
          : {
              tokenHash: row.token_hash as string,
              userId: row.user_id as string,
              expiresAt: row.expires_at as string,
              createdAt: row.created_at as string,
            }
      },
      async useSetupToken(tokenHash) {
        return Number(deleteToken.run(tokenHash).changes) === 1
      },
      async dropSetupTokensOf(userId) {
        deleteTokensOf.run(userId)
      },
      async advanceTotpStep(userId, step, updatedAt) {
        return Number(advanceStep.run(step, updatedAt, userId, step).changes) === 1
      },

      async createSession(session) {
        insertSession.run({ ...session })
      },
      async getSession(sessionHash) {
        const row = selectSession.get(sessionHash)
        return row === undefined ? null : toSession(row)
      },
      async touchSession(sessionHash, lastSeenAt) {
        return Number(touch.run(lastSeenAt, sessionHash).changes) === 1
      },
      async revokeSession(userId, sessionHash, revokedAt) {
        return Number(revokeOne.run(revokedAt, sessionHash, userId).changes) === 1
      },
      async revokeUserSessions(userId, revokedAt) {
        return Number(revokeAll.run(revokedAt, userId).changes)
      },
      async listSessions(userId) {
        return selectSessions.all(userId).map(toSession)
      },

      async recordLoginFailure(key, at) {
        insertFailure.run(key, at)
      },
      async loginFailuresSince(key, since) {
        return selectFailures.all(key, since).map((row) => row.at as string)
      },
      async clearLoginFailures(key) {
        deleteFailures.run(key)
      },

      async pruneBefore(before) {
        inTransaction(db, () => {
          pruneFailures.run(before)
          pruneSessions.run(before)
          pruneTokens.run(before)
        })
      },

      async appendAudit(entry) {
        insertAudit.run({ ...entry })
      },
      async listAudit(merchantId, limit, before) {
        const rows =
          before === undefined
            ? selectAudit.all(merchantId, limit)
            : selectAuditBefore.all(merchantId, before.at, before.at, before.entryId, limit)
        return rows.map(toAudit)
      },
    },
    translateSqliteFailure,
  )
}

function toUser(row: Row): DashboardUser {
  return {
    userId: row.user_id as string,
    merchantId: row.merchant_id as string,
    email: row.email as string,
    role: row.role as DashboardUser['role'],
    passwordHash: row.password_hash as string | null,
    totpSecret: row.totp_secret as string | null,
    totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step),
    enabled: Number(row.enabled) === 1,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  }
}

function toSession(row: Row): DashboardSession {
  return {
    sessionHash: row.session_hash as string,
    userId: row.user_id as string,
    merchantId: row.merchant_id as string,
    createdAt: row.created_at as string,
    lastSeenAt: row.last_seen_at as string,
    userAgent: row.user_agent as string,
    revokedAt: row.revoked_at as string | null,
  }
}

function toAudit(row: Row): DashboardAuditEntry {
  return {
    entryId: row.entry_id as string,
    merchantId: row.merchant_id as string,
    at: row.at as string,
    actor: row.actor as string,
    action: row.action as string,
    subject: row.subject as string,
  }
}
