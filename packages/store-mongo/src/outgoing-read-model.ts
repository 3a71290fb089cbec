// Refunds and payouts on the read side on MongoDB (docs/architecture.md, "The refunds and payouts read
// model"), FerretDB v1 included: one document per refund or payout in outgoing_read (`_id`
// `${kind}:${id}`) with its fold, payout metadata keys escaped (document-keys.ts), replaced only by a
// newer stream revision through one conditional upsert, as the payments' (read-model.ts); the listed
// fields copied out for an index per list.

import {
  type MerchantOutgoingQuery,
  type NetworkOutgoingQuery,
  type OutgoingDocument,
  type OutgoingReadModel,
  translateFailures,
} from '@chainpay/ports'
import type { Db, Filter } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { createPerKeyQueue, isDuplicateKeyError } from './concurrency.js'
import { escapeKeys, unescapeKeys } from './document-keys.js'
import { translateMongoFailure } from './mongo-failures.js'

interface OutgoingRecord {
  _id: string
  kind: string
  id: string
  merchantId: string
  paymentId: string | null
  network: string
  status: string
  walletId: string
  createdAt: string
  revision: number
  item: unknown
}

const collection = mongoCollections.outgoingRead

/** a merchant's lists (by kind, status, payment) and a network's for the offline procedure */
export const outgoingReadModelIndexes: IndexSpec[] = [
  { collection, name: `${collection}_listed`, key: { merchantId: 1, kind: 1, createdAt: -1, id: -1 } },
  {
    collection,
    name: `${collection}_by_status`,
    key: { merchantId: 1, kind: 1, status: 1, createdAt: -1, id: -1 },
  },
  { collection, name: `${collection}_by_payment`, key: { paymentId: 1, createdAt: -1, id: -1 } },
  {
    collection,
    name: `${collection}_by_network`,
    key: { network: 1, status: 1, walletId: 1, createdAt: 1, id: 1 },
  },
]

export function createMongoOutgoingReadModel(db: Db): OutgoingReadModel {
  const records = db.collection<OutgoingRecord>(collection)
  const writes = createPerKeyQueue()

  const saveIfNewer = async ({ item, revision }: OutgoingDocument): Promise<'applied' | 'stale'> => {
    const filter = { _id: `${item.kind}:${item.id}`, revision: { $lt: revision } }
    const update = {
      $set: {
        kind: item.kind,
        id: item.id,
        merchantId: item.merchantId,
        paymentId: item.paymentId,
        network: item.network,
        status: item.status,
        walletId: item.walletId,
        createdAt: item.createdAt,
        revision,
        item: escapeKeys(item),
      },
    }
    try {
      const result = await records.updateOne(filter, update, { upsert: true })
      return result.matchedCount + result.upsertedCount === 1 ? 'applied' : 'stale'
    } catch (error) {
      // the stored revision is not lower, or another writer inserted first: the same update
      // without upsert tells the two apart (items are never deleted)
      if (!isDuplicateKeyError(error)) throw error
      const result = await records.updateOne(filter, update)
      return result.matchedCount === 1 ? 'applied' : 'stale'
    }
  }

  return translateFailures(
    {
      async get(kind, id) {
        const record = await records.findOne({ _id: `${kind}:${id}` })
        return record === null ? null : toDocument(record)
      },
      save(document) {
        return writes.run(`${document.item.kind}:${document.item.id}`, () => saveIfNewer(document))
      },
      async listForMerchant(query) {
        const found = await records
          .find(merchantFilter(query))
          .sort({ createdAt: -1, id: -1 })
          .limit(query.limit)
          .toArray()
        return found.map(toDocument)
      },
      async listForNetwork(query) {
        const found = await records
          .find(networkFilter(query))
          .sort({ createdAt: 1, id: 1 })
          .limit(query.limit)
          .toArray()
        return found.map(toDocument)
      },
    },
    translateMongoFailure,
  )
}

function merchantFilter(query: MerchantOutgoingQuery): Filter<OutgoingRecord> {
  const conditions: Filter<OutgoingRecord>[] = [{ merchantId: query.merchantId }, { kind: query.kind }]
  if (query.paymentId !== undefined) conditions.push({ paymentId: query.paymentId })
  if (query.statuses !== undefined && query.statuses.length > 0)
    conditions.push({ status: { $in: [...query.statuses] } })
  const { after } = query
  if (after !== undefined)
    conditions.push({
      $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, id: { $lt: after.id } }],
    })
  return { $and: conditions }
}

function networkFilter(query: NetworkOutgoingQuery): Filter<OutgoingRecord> {
  const conditions: Filter<OutgoingRecord>[] = [
    { network: query.network },
    { status: { $in: [...query.statuses] } },
  ]
  if (query.walletId !== undefined) conditions.push({ walletId: query.walletId })
  const { after } = query
  if (after !== undefined)
    conditions.push({
      $or: [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, id: { $gt: after.id } }],
    })
  return { $and: conditions }
}

function toDocument(record: OutgoingRecord): OutgoingDocument {
  return { revision: record.revision, item: unescapeKeys<OutgoingDocument['item']>(record.item) }
}
