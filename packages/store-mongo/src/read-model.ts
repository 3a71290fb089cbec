import { type PaymentDocument, type PaymentReadModel, translateFailures } from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError } from './concurrency.js'
import { escapeKeys, unescapeKeys } from './document-keys.js'
import { translateMongoFailure } from './mongo-failures.js'

export interface MongoReadModelOptions {
  /** collection name (default payments_read); the notifier keeps its own copy in notifier_payments */
  collection?: string
}

/** a payment as stored: the state's keys escaped, since its metadata keys are the merchant's */
interface PaymentRecord {
  _id: string
  merchantId: string
  revision: number
  state: unknown
  updatedAt: string
}

/** the read model's indexes in `collection`: a merchant's payments, newest change last */
export function paymentReadModelIndexes(collection: string = mongoCollections.paymentsRead): IndexSpec[] {
  return [{ collection, name: 'by_merchant', key: { merchantId: 1, updatedAt: 1 } }]
}

/**
 * A payment read model in one collection: one document per payment (`_id` paymentId) holding the
 * aggregate state, replaced only by a newer stream revision.
 */
export function createMongoPaymentReadModel(db: Db, options: MongoReadModelOptions = {}): PaymentReadModel {
  const name = options.collection ?? mongoCollections.paymentsRead
  if (!/^[a-z_]+$/.test(name)) throw new Error(`read model collection name must match [a-z_]+: ${name}`)
  const payments = db.collection<PaymentRecord>(name)
  const writes = createPerKeyQueue()

  // One conditional upsert decides and writes: it matches only a stored revision lower than the new
  // one, and inserts when there is no document yet.
  const saveIfNewer = async (document: PaymentDocument): Promise<'applied' | 'stale'> => {
    const filter = { _id: document.paymentId, revision: { $lt: document.revision } }
    const update = {
      $set: {
        merchantId: document.merchantId,
        revision: document.revision,
        state: escapeKeys(document.state),
        updatedAt: document.updatedAt,
      },
    }
    try {
      const result = await payments.updateOne(filter, update, { upsert: true })
      return result.matchedCount + result.upsertedCount === 1 ? 'applied' : 'stale'
    } catch (error) {
      // The upsert tried to insert: either the stored revision is not lower, or another writer
      // inserted first. The document exists now (payments are never deleted), so the same update
      // without upsert tells the two apart.
      if (!isDuplicateKeyError(error)) throw error
      const result = await payments.updateOne(filter, update)
      return result.matchedCount === 1 ? 'applied' : 'stale'
    }
  }

  return translateFailures(
    {
      async get(paymentId) {
        const record = await payments.findOne({ _id: paymentId })
        if (record === null) return null
        return {
          paymentId: record._id,
          merchantId: record.merchantId,
          revision: record.revision,
          state: unescapeKeys<PaymentDocument['state']>(record.state),
          updatedAt: record.updatedAt,
        }
      },

      save(document) {
        return writes.run(document.paymentId, () => saveIfNewer(document))
      },
    },
    translateMongoFailure,
  )
}
