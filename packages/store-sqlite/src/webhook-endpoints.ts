import {
  translateFailures,
  type WebhookEndpointPatch,
  type WebhookEndpointRecord,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

type Row = Record<string, unknown>

/** the webhook endpoints' schema versions (schema-versions.ts) */
export const webhookEndpointMigrations: readonly SqliteMigration[] = [
  {
    description: "merchants' webhook endpoints",
    apply: (db) =>
      db.exec(`
        CREATE TABLE IF NOT EXISTS webhook_endpoints (
          endpoint_id TEXT PRIMARY KEY,
          merchant_id TEXT NOT NULL,
          url TEXT NOT NULL,
          events TEXT,
          description TEXT,
          enabled INTEGER NOT NULL,
          secret TEXT NOT NULL,
          previous_secret TEXT,
          previous_secret_expires_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS webhook_endpoints_by_merchant ON webhook_endpoints (merchant_id, created_at);
      `),
  },
]

/** Webhook endpoints in table webhook_endpoints; secrets arrive already sealed. */
export function createSqliteWebhookEndpointStore(db: DatabaseSync): WebhookEndpointStore {
  migrateSqliteComponent(db, 'webhook-endpoints', webhookEndpointMigrations)
  const countOf = db.prepare('SELECT COUNT(*) AS count FROM webhook_endpoints WHERE merchant_id = ?')
  const insert = db.prepare(`
    INSERT INTO webhook_endpoints (endpoint_id, merchant_id, url, events, description, enabled, secret,
      previous_secret, previous_secret_expires_at, created_at, updated_at)
    VALUES (:endpointId, :merchantId, :url, :events, :description, :enabled, :secret,
      :previousSecret, :previousSecretExpiresAt, :createdAt, :updatedAt)
  `)
  const selectOne = db.prepare('SELECT * FROM webhook_endpoints WHERE merchant_id = ? AND endpoint_id = ?')
  const selectAll = db.prepare(
    'SELECT * FROM webhook_endpoints WHERE merchant_id = ? ORDER BY created_at, endpoint_id',
  )
  const updateRow = db.prepare(`
    UPDATE webhook_endpoints
    SET url = :url, events = :events, description = :description, enabled = :enabled, secret = :secret,
      previous_secret = :previousSecret, previous_secret_expires_at = :previousSecretExpiresAt,
      updated_at = :updatedAt
    WHERE merchant_id = :merchantId AND endpoint_id = :endpointId
  `)
  const deleteRow = db.prepare('DELETE FROM webhook_endpoints WHERE merchant_id = ? AND endpoint_id = ?')
  const replaceSecrets = db.prepare(`
    UPDATE webhook_endpoints SET secret = :secret, previous_secret = :previousSecret
    WHERE merchant_id = :merchantId AND endpoint_id = :endpointId
      AND secret = :expectedSecret AND previous_secret IS :expectedPrevious
  `)

  const get = (merchantId: string, endpointId: string) => {
    const row = selectOne.get(merchantId, endpointId)
    return row === undefined ? null : toEndpoint(row)
  }

  return translateFailures(
    {
      async create(endpoint, maxPerMerchant) {
        // counted and inserted in one write transaction: concurrent creates never pass the bound
        return inTransaction(db, () => {
          if (Number(countOf.get(endpoint.merchantId)?.count) >= maxPerMerchant) return false
          insert.run(toRow(endpoint))
          return true
        })
      },

      async get(merchantId, endpointId) {
        return get(merchantId, endpointId)
      },

      async list(merchantId) {
        return selectAll.all(merchantId).map(toEndpoint)
      },

      async update(merchantId, endpointId, patch: WebhookEndpointPatch, updatedAt, expected) {
        return inTransaction(db, () => {
          const current = get(merchantId, endpointId)
          if (current === null) return null
          if (
            expected !== undefined &&
            (current.secret !== expected.secret || current.previousSecret !== expected.previousSecret)
          ) {
            return null
          }
          const next: WebhookEndpointRecord = { ...current, ...patch, updatedAt }
          const { createdAt: _unchanged, ...row } = toRow(next)
          updateRow.run(row)
          return next
        })
      },

      async delete(merchantId, endpointId) {
        return Number(deleteRow.run(merchantId, endpointId).changes) === 1
      },

      async replaceSealedSecrets(merchantId, endpointId, expected, replacement) {
        const { changes } = replaceSecrets.run({
          merchantId,
          endpointId,
          expectedSecret: expected.secret,
          expectedPrevious: expected.previousSecret,
          secret: replacement.secret,
          previousSecret: replacement.previousSecret,
        })
        return Number(changes) === 1
      },
    },
    translateSqliteFailure,
  )
}

function toRow(endpoint: WebhookEndpointRecord) {
  return {
    endpointId: endpoint.endpointId,
    merchantId: endpoint.merchantId,
    url: endpoint.url,
    events: endpoint.events === null ? null : JSON.stringify(endpoint.events),
    description: endpoint.description,
    enabled: endpoint.enabled ? 1 : 0,
    secret: endpoint.secret,
    previousSecret: endpoint.previousSecret,
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  }
}

function toEndpoint(row: Row): WebhookEndpointRecord {
  return {
    endpointId: row.endpoint_id as string,
    merchantId: row.merchant_id as string,
    url: row.url as string,
    events: row.events === null ? null : (JSON.parse(row.events as string) as string[]),
    description: row.description as string | null,
    enabled: Number(row.enabled) === 1,
    secret: row.secret as string,
    previousSecret: row.previous_secret as string | null,
    previousSecretExpiresAt: row.previous_secret_expires_at as string | null,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  }
}
