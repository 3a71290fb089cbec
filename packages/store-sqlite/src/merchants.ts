import type { FeePolicy } from '@chainpay/domain'
import {
  type ApiKeyRecord,
  type MerchantPatch,
  type MerchantRecord,
  type MerchantStore,
  translateFailures,
} from '@chainpay/ports'
import { type DatabaseSync, inTransaction } from './database.js'
import { columnsOf, migrateSqliteComponent, type SqliteMigration } from './schema-versions.js'
import { translateSqliteFailure } from './sqlite-failures.js'

type Row = Record<string, unknown>

/** the merchant store's schema versions (schema-versions.ts) */
export const merchantMigrations: readonly SqliteMigration[] = [
  {
    description: 'the schema of the release before versioned storage (b991541)',
    apply: (db) =>
      db.exec(`
    CREATE TABLE IF NOT EXISTS merchants (
      merchant_id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      webhook_url TEXT,
      webhook_secret TEXT NOT NULL,
      fee_policy TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    ) STRICT;
    CREATE TABLE IF NOT EXISTS api_keys (
      api_key TEXT PRIMARY KEY,
      merchant_id TEXT NOT NULL REFERENCES merchants (merchant_id),
      secret TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    ) STRICT;
    CREATE INDEX IF NOT EXISTS api_keys_by_merchant ON api_keys (merchant_id, created_at);
      `),
  },
  {
    description: "the merchant's display name and logo on the customer's page",
    apply: (db) => {
      const columns = columnsOf(db, 'merchants')
      if (!columns.has('display_name')) db.exec('ALTER TABLE merchants ADD COLUMN display_name TEXT')
      if (!columns.has('logo_url')) db.exec('ALTER TABLE merchants ADD COLUMN logo_url TEXT')
    },
  },
  {
    description: 'the merchant\'s underpayment tolerance (docs/api.md, "Underpayment tolerance")',
    apply: (db) => {
      if (!columnsOf(db, 'merchants').has('underpayment_tolerance_percent')) {
        db.exec('ALTER TABLE merchants ADD COLUMN underpayment_tolerance_percent TEXT')
      }
    },
  },
  {
    description:
      'when an API key stops working: a rolled key\'s end of overlap (docs/operations.md, "API keys")',
    apply: (db) => {
      if (!columnsOf(db, 'api_keys').has('expires_at'))
        db.exec('ALTER TABLE api_keys ADD COLUMN expires_at TEXT')
    },
  },
]

/** Merchants and their API keys in tables merchants and api_keys; secrets arrive already sealed. */
export function createSqliteMerchantStore(db: DatabaseSync): MerchantStore {
  migrateSqliteComponent(db, 'merchants', merchantMigrations)
  const insertMerchant = db.prepare(`
    INSERT INTO merchants (merchant_id, name, webhook_url, webhook_secret, fee_policy, created_at, updated_at,
      display_name, logo_url, underpayment_tolerance_percent)
    VALUES (:merchantId, :name, :webhookUrl, :webhookSecret, :feePolicy, :createdAt, :updatedAt, :displayName,
      :logoUrl, :underpaymentTolerancePercent)
  `)
  const updateRow = db.prepare(`
    UPDATE merchants
    SET name = :name, webhook_url = :webhookUrl, webhook_secret = :webhookSecret, fee_policy = :feePolicy,
      updated_at = :updatedAt, display_name = :displayName, logo_url = :logoUrl,
      underpayment_tolerance_percent = :underpaymentTolerancePercent
    WHERE merchant_id = :merchantId
  `)
  const selectMerchant = db.prepare('SELECT * FROM merchants WHERE merchant_id = ?')
  const selectMerchants = db.prepare('SELECT * FROM merchants ORDER BY created_at, merchant_id')
  const insertKey = db.prepare(`
    INSERT INTO api_keys (api_key, merchant_id, secret, created_at, revoked_at, expires_at)
    VALUES (:apiKey, :merchantId, :secret, :createdAt, :revokedAt, :expiresAt)
  `)
  const expire = db.prepare(`
    UPDATE api_keys
    SET expires_at = CASE WHEN expires_at IS NOT NULL AND expires_at < :expiresAt THEN expires_at ELSE :expiresAt END
    WHERE api_key = :apiKey AND merchant_id = :merchantId AND revoked_at IS NULL
  `)
  const revoke = db.prepare(`
    UPDATE api_keys SET revoked_at = :revokedAt
    WHERE api_key = :apiKey AND merchant_id = :merchantId AND revoked_at IS NULL
  `)
  const replaceWebhookSecret = db.prepare(`
    UPDATE merchants SET webhook_secret = :replacement
    WHERE merchant_id = :merchantId AND webhook_secret = :expected
  `)
  const replaceApiSecret = db.prepare(`
    UPDATE api_keys SET secret = :replacement WHERE api_key = :apiKey AND secret = :expected
  `)
  const selectKey = db.prepare('SELECT * FROM api_keys WHERE api_key = ?')
  const selectKeys = db.prepare('SELECT * FROM api_keys WHERE merchant_id = ? ORDER BY created_at, api_key')

  const writeMerchant = (merchant: MerchantRecord) =>
    insertMerchant.run({
      merchantId: merchant.merchantId,
      name: merchant.name,
      webhookUrl: merchant.webhookUrl,
      webhookSecret: merchant.webhookSecret,
      feePolicy: JSON.stringify(merchant.feePolicy),
      createdAt: merchant.createdAt,
      updatedAt: merchant.updatedAt,
      displayName: merchant.displayName ?? null,
      logoUrl: merchant.logoUrl ?? null,
      underpaymentTolerancePercent: merchant.underpaymentTolerancePercent ?? null,
    })
  const writeKey = (key: ApiKeyRecord) =>
    insertKey.run({
      apiKey: key.apiKey,
      merchantId: key.merchantId,
      secret: key.secret,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt,
      expiresAt: key.expiresAt ?? null,
    })

  return translateFailures(
    {
      async createMerchant(merchant, firstKey) {
        inTransaction(db, () => {
          writeMerchant(merchant)
          writeKey(firstKey)
        })
      },

      async getMerchant(merchantId) {
        const row = selectMerchant.get(merchantId)
        return row === undefined ? null : toMerchant(row)
      },

      async listMerchants() {
        return selectMerchants.all().map(toMerchant)
      },

      async updateMerchant(merchantId, patch, updatedAt) {
        return inTransaction(db, () => {
          const row = selectMerchant.get(merchantId)
          if (row === undefined) return false
          const updated = { ...toMerchant(row), ...definedFields(patch) }
          updateRow.run({
            merchantId,
            name: updated.name,
            webhookUrl: updated.webhookUrl,
            webhookSecret: updated.webhookSecret,
            feePolicy: JSON.stringify(updated.feePolicy),
            updatedAt,
            displayName: updated.displayName ?? null,
            logoUrl: updated.logoUrl ?? null,
            underpaymentTolerancePercent: updated.underpaymentTolerancePercent ?? null,
          })
          return true
        })
      },

      async addApiKey(key) {
        writeKey(key)
      },

      async revokeApiKey(merchantId, apiKey, revokedAt) {
        const { changes } = revoke.run({ merchantId, apiKey, revokedAt })
        return Number(changes) === 1
      },

      async setApiKeyExpiry(merchantId, apiKey, expiresAt) {
        const { changes } = expire.run({ merchantId, apiKey, expiresAt })
        return Number(changes) === 1
      },

      async findApiKey(apiKey) {
        const row = selectKey.get(apiKey)
        return row === undefined ? null : toApiKey(row)
      },

      async listApiKeys(merchantId) {
        return selectKeys.all(merchantId).map(toApiKey)
      },

      async replaceSealedWebhookSecret(merchantId, expected, replacement) {
        const { changes } = replaceWebhookSecret.run({ merchantId, expected, replacement })
        return Number(changes) === 1
      },

      async replaceSealedApiSecret(apiKey, expected, replacement) {
        const { changes } = replaceApiSecret.run({ apiKey, expected, replacement })
        return Number(changes) === 1
      },
    },
    translateSqliteFailure,
  )
}

/** `{ name: undefined }` means "leave the name alone", not "erase it" */
function definedFields(patch: MerchantPatch): MerchantPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined))
}

function toMerchant(row: Row): MerchantRecord {
  return {
    merchantId: row.merchant_id as string,
    name: row.name as string,
    webhookUrl: row.webhook_url as string | null,
    webhookSecret: row.webhook_secret as string,
    feePolicy: JSON.parse(row.fee_policy as string) as FeePolicy,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
    ...(row.display_name === null ? {} : { displayName: row.display_name as string }),
    ...(row.logo_url === null ? {} : { logoUrl: row.logo_url as string }),
    ...(row.underpayment_tolerance_percent === null || row.underpayment_tolerance_percent === undefined
      ? {}
      : { underpaymentTolerancePercent: row.underpayment_tolerance_percent as string }),
  }
}

function toApiKey(row: Row): ApiKeyRecord {
  return {
    apiKey: row.api_key as string,
    merchantId: row.merchant_id as string,
    secret: row.secret as string,
    createdAt: row.created_at as string,
    revokedAt: row.revoked_at as string | null,
    ...(row.expires_at === null || row.expires_at === undefined
      ? {}
      : { expiresAt: row.expires_at as string }),
  }
}
