// Deposits on MongoDB (docs/api.md, "Deposits"), FerretDB v1 included: one document per deposit
// (`_id` the deposit id) with the decider's state and the fields the lists filter and order by; a
// save replaces it only when its revision is newer, so a replay changes nothing.

import type { OpenDeposit } from '@chainpay/domain'
import {
  type DepositListQuery,
  type DepositReadModel,
  type DepositRecord,
  translateFailures,
} from '@chainpay/ports'
import type { Db, Filter } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface DepositDocument {
  _id: string
  revision: number
  merchantId: string
  merchantUserId: string
  status: string
  detectedAt: string
  state: OpenDeposit
}

export const depositReadModelIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.depositsRead,
    name: 'deposits_listed',
    key: { merchantId: 1, detectedAt: -1, _id: -1 },
  },
  {
    collection: mongoCollections.depositsRead,
    name: 'deposits_by_user',
    key: { merchantId: 1, merchantUserId: 1, detectedAt: -1, _id: -1 },
  },
  {
    collection: mongoCollections.depositsRead,
    name: 'deposits_confirmed',
    key: { status: 1, _id: 1 },
  },
]

export function createMongoDepositReadModel(db: Db): DepositReadModel {
  const deposits = db.collection<DepositDocument>(mongoCollections.depositsRead)
  return translateFailures(
    {
      async save({ depositId, revision, state }) {
        const document: DepositDocument = {
          _id: depositId,
          revision,
          merchantId: state.detected.merchantId,
          merchantUserId: state.detected.merchantUserId,
          status: state.status,
          detectedAt: state.detected.detectedAt,
          state,
        }
        try {
          // replaced only by a newer revision; none stored yet: inserted (a concurrent insert loses)
          await deposits.replaceOne({ _id: depositId, revision: { $lt: revision } }, document, {
            upsert: true,
          })
        } catch (error) {
          // the filter missed a stored, newer or equal revision and the upsert met its _id
          if (!isDuplicateKeyError(error)) throw error
        }
      },
      async get(depositId) {
        const document = await deposits.findOne({ _id: depositId })
        return document === null ? null : toRecord(document)
      },
      async listConfirmed(query) {
        const filter: Filter<DepositDocument> = { status: 'confirmed' }
        if (query.afterDepositId !== undefined) filter._id = { $gt: query.afterDepositId }
        if (query.merchantId !== undefined) filter.merchantId = query.merchantId
        // the state's network: documents written before the field was kept have it there
        if (query.network !== undefined) filter['state.detected.network'] = query.network
        const documents = await deposits.find(filter).sort({ _id: 1 }).limit(query.limit).toArray()
        return documents.map(toRecord)
      },
      async list(query) {
        const documents = await deposits
          .find(listFilter(query))
          .sort({ detectedAt: -1, _id: -1 })
          .limit(query.limit)
          .toArray()
        return documents.map(toRecord)
      },
    },
    translateMongoFailure,
  )
}

function listFilter(query: DepositListQuery): Filter<DepositDocument> {
  const conditions: Filter<DepositDocument>[] = [{ merchantId: query.merchantId }]
  if (query.merchantUserId !== undefined) conditions.push({ merchantUserId: query.merchantUserId })
  if (query.status !== undefined) conditions.push({ status: query.status })
  const { after } = query
  if (after !== undefined) {
    conditions.push({
      $or: [
        { detectedAt: { $lt: after.detectedAt } },
        { detectedAt: after.detectedAt, _id: { $lt: after.depositId } },
      ],
    })
  }
  return conditions.length === 1 ? (conditions[0] ?? {}) : { $and: conditions }
}

function toRecord(document: DepositDocument): DepositRecord {
  return { depositId: document._id, revision: document.revision, state: document.state }
}
