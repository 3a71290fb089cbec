import {
  translateFailures,
  type WebhookEndpointPatch,
  type WebhookEndpointRecord,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface EndpointDocument extends Omit<WebhookEndpointRecord, 'endpointId'> {
  _id: string
}

export const webhookEndpointIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.webhookEndpoints,
    name: 'webhook_endpoints_by_merchant',
    key: { merchantId: 1, createdAt: 1 },
  },
]

/**
 * Webhook endpoints in collection webhook_endpoints (_id endpointId); secrets arrive already sealed.
 * FerretDB v1 has no transactions, so the per-merchant bound is kept by inserting first and counting
 * after: an insert that finds more than the bound among the endpoints created up to it (by
 * createdAt, then _id) takes itself back. Two creates at once may both be refused; never both kept
 * over the bound. The conditional updates (update with expected secrets, replaceSealedSecrets) are
 * read, modify, write on FerretDB v1 (concurrency.ts), so the writes of one endpoint are sent one
 * after another within the process; on MongoDB itself they are atomic anyway.
 */
export function createMongoWebhookEndpointStore(db: Db): WebhookEndpointStore {
  const endpoints = db.collection<EndpointDocument>(mongoCollections.webhookEndpoints)
  const writes = createPerKeyQueue()

  return translateFailures(
    {
      async create(endpoint, maxPerMerchant) {
        const { endpointId, ...rest } = endpoint
        await endpoints.insertOne({ _id: endpointId, ...rest })
        const count = await endpoints.countDocuments({ merchantId: endpoint.merchantId })
        if (count <= maxPerMerchant) return true
        await endpoints.deleteOne({ _id: endpointId })
        return false
      },

      async get(merchantId, endpointId) {
        const found = await endpoints.findOne({ _id: endpointId, merchantId })
        return found === null ? null : toEndpoint(found)
      },

      async list(merchantId) {
        const found = await endpoints.find({ merchantId }).sort({ createdAt: 1, _id: 1 }).toArray()
        return found.map(toEndpoint)
      },

      async update(merchantId, endpointId, patch: WebhookEndpointPatch, updatedAt, expected) {
        return writes.run(endpointId, async () => {
          const secrets =
            expected === undefined ? {} : { secret: expected.secret, previousSecret: expected.previousSecret }
          const { matchedCount } = await endpoints.updateOne(
            { _id: endpointId, merchantId, ...secrets },
            { $set: { ...patch, updatedAt } },
          )
          if (matchedCount === 0) return null
          const found = await endpoints.findOne({ _id: endpointId, merchantId })
          return found === null ? null : toEndpoint(found)
        })
      },

      async delete(merchantId, endpointId) {
        const { deletedCount } = await endpoints.deleteOne({ _id: endpointId, merchantId })
        return deletedCount === 1
      },

      async replaceSealedSecrets(merchantId, endpointId, expected, replacement) {
        return writes.run(endpointId, async () => {
          const { matchedCount } = await endpoints.updateOne(
            { _id: endpointId, merchantId, secret: expected.secret, previousSecret: expected.previousSecret },
            { $set: { secret: replacement.secret, previousSecret: replacement.previousSecret } },
          )
          return matchedCount === 1
        })
      },
    },
    translateMongoFailure,
  )
}

function toEndpoint({ _id, ...rest }: EndpointDocument): WebhookEndpointRecord {
  return {
    endpointId: _id,
    merchantId: rest.merchantId,
    url: rest.url,
    events: rest.events,
    description: rest.description,
    enabled: rest.enabled,
    secret: rest.secret,
    previousSecret: rest.previousSecret,
    previousSecretExpiresAt: rest.previousSecretExpiresAt,
    createdAt: rest.createdAt,
    updatedAt: rest.updatedAt,
  }
}
