import { randomUUID } from 'node:crypto'
import {
  type DashboardAuditEntry,
  type DashboardSession,
  type DashboardSetupToken,
  type DashboardUser,
  type DashboardUserPatch,
  type DashboardUserStore,
  translateFailures,
} from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

type UserDocument = Omit<DashboardUser, 'userId'> & { _id: string }
type EmailClaim = { _id: string; userId: string }
type TokenDocument = Omit<DashboardSetupToken, 'tokenHash'> & { _id: string }
type SessionDocument = Omit<DashboardSession, 'sessionHash'> & { _id: string }
type FailureDocument = { _id: string; key: string; at: string }
type AuditDocument = Omit<DashboardAuditEntry, 'entryId'> & { _id: string }

export const dashboardUserIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.dashboardUsers,
    name: 'dashboard_users_by_merchant',
    key: { merchantId: 1, createdAt: 1 },
  },
  {
    collection: mongoCollections.dashboardSessions,
    name: 'dashboard_sessions_by_user',
    key: { userId: 1, lastSeenAt: -1 },
  },
  {
    collection: mongoCollections.dashboardLoginFailures,
    name: 'dashboard_login_failures_by_key',
    key: { key: 1, at: 1 },
  },
  {
    collection: mongoCollections.dashboardAudit,
    name: 'dashboard_audit_by_merchant',
    key: { merchantId: 1, at: -1, _id: -1 },
  },
]

/**
 * The dashboard's users and sessions in collections dashboard_*; secrets arrive hashed or sealed.
 * An email is one user's by a claim document (_id the email in lower case) inserted before the
 * user: uniqueness rests on _id, which FerretDB v1 enforces without a secondary unique index. A
 * setup token is used by deleting it: one delete of a document finds it.
 */
export function createMongoDashboardUserStore(db: Db): DashboardUserStore {
  const users = db.collection<UserDocument>(mongoCollections.dashboardUsers)
  const emails = db.collection<EmailClaim>(mongoCollections.dashboardUserEmails)
  const tokens = db.collection<TokenDocument>(mongoCollections.dashboardSetupTokens)
  const sessions = db.collection<SessionDocument>(mongoCollections.dashboardSessions)
  const failures = db.collection<FailureDocument>(mongoCollections.dashboardLoginFailures)
  const audit = db.collection<AuditDocument>(mongoCollections.dashboardAudit)
  // a TOTP step used is a document (_id user and step): its insert is the one atomic step FerretDB v1
  // has, so of two sign-ins with one code only one inserts it
  const totpSteps = db.collection<{ _id: string; at: string }>(mongoCollections.dashboardTotpSteps)

  const getUser = async (userId: string) => {
    const found = await users.findOne({ _id: userId })
    return found === null ? null : toUser(found)
  }

  return translateFailures(
    {
      async createUser(user) {
        const email = user.email.toLowerCase()
        try {
          await emails.insertOne({ _id: email, userId: user.userId })
        } catch (error) {
          if (isDuplicateKeyError(error)) return false
          throw error
        }
        const { userId, ...rest } = user
        await users.insertOne({ _id: userId, ...rest, email })
        return true
      },
      getUser,
      async getUserByEmail(email) {
        const claim = await emails.findOne({ _id: email.toLowerCase() })
        return claim === null ? null : getUser(claim.userId)
      },
      async listUsers(merchantId) {
        const found = await users.find({ merchantId }).sort({ createdAt: 1, _id: 1 }).toArray()
        return found.map(toUser)
      },
      async updateUser(userId, patch: DashboardUserPatch, updatedAt) {
        const { matchedCount } = await users.updateOne({ _id: userId }, { $set: { ...patch, updatedAt } })
        return matchedCount === 0 ? null : getUser(userId)
      },

      async createSetupToken({ tokenHash, ...rest }) {
        await tokens.insertOne({ _id: tokenHash, ...rest })
      },
      async getSetupToken(tokenHash) {
        const found = await tokens.findOne({ _id: tokenHash })
        if (found === null) return null
        return { tokenHash, userId: found.userId, expiresAt: found.expiresAt, createdAt: found.createdAt }
      },
      async useSetupToken(tokenHash) {
        const { deletedCount } = await tokens.deleteOne({ _id: tokenHash })
        return deletedCount === 1
      },
      async dropSetupTokensOf(userId) {
        await tokens.deleteMany({ userId })
      },
      async advanceTotpStep(userId, step, updatedAt) {
        if ((await users.countDocuments({ _id: userId })) === 0) return false
        try {
          await totpSteps.insertOne({ _id: `${userId}#${step}`, at: updatedAt })
        } catch (error) {
          if (isDuplicateKeyError(error)) return false
          throw error
        }
        const { modifiedCount } = await users.updateOne(
          { _id: userId, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
          { $set: { totpLastStep: step, updatedAt } },
        )
        return modifiedCount === 1
      },

      async createSession({ sessionHash, ...rest }) {
        await sessions.insertOne({ _id: sessionHash, ...rest })
      },
      async getSession(sessionHash) {
        const found = await sessions.findOne({ _id: sessionHash })
        return found === null ? null : toSession(found)
      },
      async touchSession(sessionHash, lastSeenAt) {
        const { matchedCount } = await sessions.updateOne(
          { _id: sessionHash, lastSeenAt: { $lt: lastSeenAt } },
          { $set: { lastSeenAt } },
        )
        return matchedCount === 1 || (await sessions.countDocuments({ _id: sessionHash })) === 1
      },
      async revokeSession(userId, sessionHash, revokedAt) {
        const { modifiedCount } = await sessions.updateOne(
          { _id: sessionHash, userId, revokedAt: null },
          { $set: { revokedAt } },
        )
        return modifiedCount === 1
      },
      async revokeUserSessions(userId, revokedAt) {
        const { modifiedCount } = await sessions.updateMany(
          { userId, revokedAt: null },
          { $set: { revokedAt } },
        )
        return modifiedCount
      },
      async listSessions(userId) {
        const found = await sessions
          .find({ userId, revokedAt: null })
          .sort({ lastSeenAt: -1, _id: 1 })
          .toArray()
        return found.map(toSession)
      },

      async recordLoginFailure(key, at) {
        await failures.insertOne({ _id: randomUUID(), key, at })
      },
      async loginFailuresSince(key, since) {
        const found = await failures
          .find({ key, at: { $gte: since } })
          .sort({ at: 1 })
          .toArray()
        return found.map((failure) => failure.at)
      },
      async clearLoginFailures(key) {
        await failures.deleteMany({ key })
      },

      async pruneBefore(before) {
        await failures.deleteMany({ at: { $lt: before } })
        await sessions.deleteMany({ lastSeenAt: { $lt: before } })
        await tokens.deleteMany({ expiresAt: { $lt: before } })
        await totpSteps.deleteMany({ at: { $lt: before } })
      },

      async appendAudit({ entryId, ...rest }) {
        await audit.insertOne({ _id: entryId, ...rest })
      },
      async listAudit(merchantId, limit, before) {
        const filter =
          before === undefined
            ? { merchantId }
            : {
                merchantId,
                $or: [{ at: { $lt: before.at } }, { at: before.at, _id: { $lt: before.entryId } }],
              }
        const found = await audit.find(filter).sort({ at: -1, _id: -1 }).limit(limit).toArray()
        return found.map(({ _id, ...rest }) => ({
          entryId: _id,
          merchantId: rest.merchantId,
          at: rest.at,
          actor: rest.actor,
          action: rest.action,
          subject: rest.subject,
        }))
      },
    },
    translateMongoFailure,
  )
}

function toUser({ _id, ...rest }: UserDocument): DashboardUser {
  return {
    userId: _id,
    merchantId: rest.merchantId,
    email: rest.email,
    role: rest.role,
    passwordHash: rest.passwordHash,
    totpSecret: rest.totpSecret,
    totpLastStep: rest.totpLastStep,
    enabled: rest.enabled,
    createdAt: rest.createdAt,
    updatedAt: rest.updatedAt,
  }
}

function toSession({ _id, ...rest }: SessionDocument): DashboardSession {
  return {
    sessionHash: _id,
    userId: rest.userId,
    merchantId: rest.merchantId,
    createdAt: rest.createdAt,
    lastSeenAt: rest.lastSeenAt,
    userAgent: rest.userAgent,
    revokedAt: rest.revokedAt,
  }
}
