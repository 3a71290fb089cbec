// Customers' deposit addresses on MongoDB (docs/api.md, "Deposit addresses"), FerretDB v1 included:
// one document per address (`_id` the address), inserted once; an address never changes, so a
// replay or a write-through that finds it stored changes nothing.

import {
  type DepositAddressListQuery,
  type DepositAddressReadModel,
  type DepositAddressView,
  translateFailures,
} from '@chainpay/ports'
import type { Db, Filter } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface DepositAddressRecord {
  _id: string
  merchantId: string
  merchantUserId: string
  chain: string
  derivationPath: string
  walletId: string
  createdAt: string
}

export const depositAddressReadModelIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.depositAddressesRead,
    name: 'deposit_addresses_listed',
    key: { merchantId: 1, createdAt: -1, _id: -1 },
  },
  {
    collection: mongoCollections.depositAddressesRead,
    name: 'deposit_addresses_by_user',
    key: { merchantId: 1, merchantUserId: 1, createdAt: -1, _id: -1 },
  },
]

export function createMongoDepositAddressReadModel(db: Db): DepositAddressReadModel {
  const addresses = db.collection<DepositAddressRecord>(mongoCollections.depositAddressesRead)
  return translateFailures(
    {
      async save(view) {
        const { address, ...rest } = view
        try {
          await addresses.insertOne({ _id: address, ...rest })
        } catch (error) {
          if (!isDuplicateKeyError(error)) throw error
        }
      },
      async get(address) {
        const record = await addresses.findOne({ _id: address })
        return record === null ? null : toView(record)
      },
      async list(query) {
        const records = await addresses
          .find(listFilter(query))
          .sort({ createdAt: -1, _id: -1 })
          .limit(query.limit)
          .toArray()
        return records.map(toView)
      },
    },
    translateMongoFailure,
  )
}

function listFilter(query: DepositAddressListQuery): Filter<DepositAddressRecord> {
  const conditions: Filter<DepositAddressRecord>[] = [{ merchantId: query.merchantId }]
  if (query.merchantUserId !== undefined) conditions.push({ merchantUserId: query.merchantUserId })
  const { after } = query
  if (after !== undefined) {
    conditions.push({
      $or: [
        { createdAt: { $lt: after.createdAt } },
        { createdAt: after.createdAt, _id: { $lt: after.address } },
      ],
    })
  }
  return conditions.length === 1 ? (conditions[0] ?? {}) : { $and: conditions }
}

function toView(record: DepositAddressRecord): DepositAddressView {
  return {
    merchantId: record.merchantId,
    merchantUserId: record.merchantUserId,
    chain: record.chain as DepositAddressView['chain'],
    address: record._id,
    derivationPath: record.derivationPath,
    walletId: record.walletId,
    createdAt: record.createdAt,
  }
}
