import type { FeePolicy } from '@chainpay/domain'
import {
  type ApiKeyRecord,
  type MerchantPatch,
  type MerchantRecord,
  type MerchantStore,
  translateFailures,
} from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { escapeKeys, unescapeKeys } from './document-keys.js'
import { translateMongoFailure } from './mongo-failures.js'

interface MerchantDocument {
  _id: string
  name: string
  webhookUrl: string | null
  webhookSecret: string
  /** keys escaped: fixedFees is keyed by asset names an operator types */
  feePolicy: unknown
  createdAt: string
  updatedAt: string
  /** null or absent: none */
  displayName?: string | null
  logoUrl?: string | null
  /** absent before version 1.3: "0" */
  underpaymentTolerancePercent?: string
}

interface ApiKeyDocument {
  _id: string
  merchantId: string
  secret: string
  createdAt: string
  revokedAt: string | null
  /** absent: the key works until revoked (as every key written before keys could expire) */
  expiresAt?: string
}

export const merchantIndexes: IndexSpec[] = [
  { collection: mongoCollections.apiKeys, name: 'by_merchant', key: { merchantId: 1, createdAt: 1 } },
]

/**
 * Merchants and their API keys in collections merchants and api_keys (`_id` the API key, which makes
 * it unique); secrets arrive already sealed and are stored as given.
 */
export function createMongoMerchantStore(db: Db): MerchantStore {
  const merchants = db.collection<MerchantDocument>(mongoCollections.merchants)
  const apiKeys = db.collection<ApiKeyDocument>(mongoCollections.apiKeys)

  const insertKey = async (key: ApiKeyRecord) => {
    await apiKeys.insertOne({
      _id: key.apiKey,
      merchantId: key.merchantId,
      secret: key.secret,
      createdAt: key.createdAt,
      revokedAt: key.revokedAt,
      ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
    })
  }

  return translateFailures(
    {
      async createMerchant(merchant, firstKey) {
        await merchants.insertOne({
          _id: merchant.merchantId,
          name: merchant.name,
          webhookUrl: merchant.webhookUrl,
          webhookSecret: merchant.webhookSecret,
          feePolicy: escapeKeys(merchant.feePolicy),
          createdAt: merchant.createdAt,
          updatedAt: merchant.updatedAt,
          displayName: merchant.displayName ?? null,
          logoUrl: merchant.logoUrl ?? null,
          ...(merchant.underpaymentTolerancePercent === undefined
            ? {}
            : { underpaymentTolerancePercent: merchant.underpaymentTolerancePercent }),
        })
        // No transactions on FerretDB: a merchant whose first key cannot be stored is taken back, so
        // that a failed creation leaves nothing behind. Until then it has no key and cannot be used.
        try {
          await insertKey(firstKey)
        } catch (error) {
          await merchants.deleteOne({ _id: merchant.merchantId })
          throw error
        }
      },

      async getMerchant(merchantId) {
        const document = await merchants.findOne({ _id: merchantId })
        return document === null ? null : toMerchant(document)
      },

      async listMerchants() {
        const documents = await merchants.find({}, { sort: { createdAt: 1, _id: 1 } }).toArray()
        return documents.map(toMerchant)
      },

      async updateMerchant(merchantId, patch, updatedAt) {
        const { feePolicy, ...fields } = definedFields(patch)
        const result = await merchants.updateOne(
          { _id: merchantId },
          {
            $set: {
              ...fields,
              ...(feePolicy === undefined ? {} : { feePolicy: escapeKeys(feePolicy) }),
              updatedAt,
            },
          },
        )
        return result.matchedCount === 1
      },

      async addApiKey(key) {
        // what the embedded store's foreign key refuses
        if ((await merchants.findOne({ _id: key.merchantId }, { projection: { _id: 1 } })) === null) {
          throw new Error(`cannot add an API key to unknown merchant ${key.merchantId}`)
        }
        await insertKey(key)
      },

      async revokeApiKey(merchantId, apiKey, revokedAt) {
        const result = await apiKeys.updateOne(
          { _id: apiKey, merchantId, revokedAt: null },
          { $set: { revokedAt } },
        )
        return result.matchedCount === 1
      },

      async setApiKeyExpiry(merchantId, apiKey, expiresAt) {
        // never later than an expiry already set (two rolls at once: the earlier end of overlap)
        const result = await apiKeys.updateOne(
          {
            _id: apiKey,
            merchantId,
            revokedAt: null,
            $or: [{ expiresAt: { $exists: false } }, { expiresAt: { $gt: expiresAt } }],
          },
          { $set: { expiresAt } },
        )
        if (result.matchedCount === 1) return true
        return (await apiKeys.countDocuments({ _id: apiKey, merchantId, revokedAt: null })) === 1
      },

      async findApiKey(apiKey) {
        const document = await apiKeys.findOne({ _id: apiKey })
        return document === null ? null : toApiKey(document)
      },

      async listApiKeys(merchantId) {
        const documents = await apiKeys.find({ merchantId }, { sort: { createdAt: 1, _id: 1 } }).toArray()
        return documents.map(toApiKey)
      },

      // one document each: the filter on the expected value makes the update a compare-and-set
      async replaceSealedWebhookSecret(merchantId, expected, replacement) {
        const result = await merchants.updateOne(
          { _id: merchantId, webhookSecret: expected },
          { $set: { webhookSecret: replacement } },
        )
        return result.matchedCount === 1
      },

      async replaceSealedApiSecret(apiKey, expected, replacement) {
        const result = await apiKeys.updateOne(
          { _id: apiKey, secret: expected },
          { $set: { secret: replacement } },
        )
        return result.matchedCount === 1
      },
    },
    translateMongoFailure,
  )
}

/** `{ name: undefined }` means "leave the name alone", not "erase it" */
function definedFields(patch: MerchantPatch): MerchantPatch {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined))
}

function toMerchant(document: MerchantDocument): MerchantRecord {
  return {
    merchantId: document._id,
    name: document.name,
    webhookUrl: document.webhookUrl,
    webhookSecret: document.webhookSecret,
    feePolicy: unescapeKeys<FeePolicy>(document.feePolicy),
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
    ...(document.displayName ? { displayName: document.displayName } : {}),
    ...(document.logoUrl ? { logoUrl: document.logoUrl } : {}),
    ...(document.underpaymentTolerancePercent === undefined
      ? {}
      : { underpaymentTolerancePercent: document.underpaymentTolerancePercent }),
  }
}

function toApiKey(document: ApiKeyDocument): ApiKeyRecord {
  return {
    apiKey: document._id,
    merchantId: document.merchantId,
    secret: document.secret,
    createdAt: document.createdAt,
    revokedAt: document.revokedAt,
    ...(document.expiresAt === undefined ? {} : { expiresAt: document.expiresAt }),
  }
}
