// The invoices' read model on MongoDB (docs/api.md, "Invoices"), FerretDB v1 included: one document
// per invoice (`_id` invoiceId) with its fold, merchant keys escaped (document-keys.ts), replaced only
// by a newer stream revision through one conditional upsert, as the payments' (read-model.ts).

import {
  type InvoiceDocument,
  type InvoiceListQuery,
  type InvoiceReadModel,
  translateFailures,
} from '@chainpay/ports'
import type { Db, Filter } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError } from './concurrency.js'
import { escapeKeys, unescapeKeys } from './document-keys.js'
import { translateMongoFailure } from './mongo-failures.js'

interface InvoiceRecord {
  _id: string
  merchantId: string
  revision: number
  state: unknown
  createdAt: string
  status: string
}

/** the listing index of an invoice read model collection: invoices_read, or the notifier's copy */
export function invoiceReadModelIndexes(collection: string = mongoCollections.invoicesRead): IndexSpec[] {
  return [{ collection, name: `${collection}_listed`, key: { merchantId: 1, createdAt: -1, _id: -1 } }]
}

export function createMongoInvoiceReadModel(db: Db, options: { collection?: string } = {}): InvoiceReadModel {
  const name = options.collection ?? mongoCollections.invoicesRead
  if (!/^[a-z_]+$/.test(name))
    throw new Error(`invoice read model collection name must match [a-z_]+: ${name}`)
  const invoices = db.collection<InvoiceRecord>(name)
  const writes = createPerKeyQueue()

  const saveIfNewer = async (document: InvoiceDocument): Promise<'applied' | 'stale'> => {
    const filter = { _id: document.invoiceId, revision: { $lt: document.revision } }
    const update = {
      $set: {
        merchantId: document.merchantId,
        revision: document.revision,
        state: escapeKeys(document.state),
        createdAt: document.state.created.createdAt,
        status: document.state.status,
      },
    }
    try {
      const result = await invoices.updateOne(filter, update, { upsert: true })
      return result.matchedCount + result.upsertedCount === 1 ? 'applied' : 'stale'
    } catch (error) {
      // the stored revision is not lower, or another writer inserted first: the same update
      // without upsert tells the two apart (invoices are never deleted)
      if (!isDuplicateKeyError(error)) throw error
      const result = await invoices.updateOne(filter, update)
      return result.matchedCount === 1 ? 'applied' : 'stale'
    }
  }

  return translateFailures(
    {
      async get(invoiceId) {
        const record = await invoices.findOne({ _id: invoiceId })
        return record === null ? null : toDocument(record)
      },
      save(document) {
        return writes.run(document.invoiceId, () => saveIfNewer(document))
      },
      async list(query) {
        const records = await invoices
          .find(invoiceListFilter(query))
          .sort({ createdAt: -1, _id: -1 })
          .limit(query.limit)
          .toArray()
        return records.map(toDocument)
      },
    },
    translateMongoFailure,
  )
}

function invoiceListFilter(query: InvoiceListQuery): Filter<InvoiceRecord> {
  const conditions: Filter<InvoiceRecord>[] = [{ merchantId: query.merchantId }]
  const { after } = query
  if (after !== undefined) {
    conditions.push({
      $or: [
        { createdAt: { $lt: after.createdAt } },
        { createdAt: after.createdAt, _id: { $lt: after.invoiceId } },
      ],
    })
  }
  if (query.createdFrom !== undefined) conditions.push({ createdAt: { $gte: query.createdFrom } })
  if (query.createdTo !== undefined) conditions.push({ createdAt: { $lt: query.createdTo } })
  if (query.statuses !== undefined && query.statuses.length > 0) {
    conditions.push({ status: { $in: [...query.statuses] } })
  }
  return conditions.length === 1 ? (conditions[0] ?? {}) : { $and: conditions }
}

function toDocument(record: InvoiceRecord): InvoiceDocument {
  return {
    invoiceId: record._id,
    merchantId: record.merchantId,
    revision: record.revision,
    state: unescapeKeys<InvoiceDocument['state']>(record.state),
  }
}
