import { hasReceivedFunds, type OpenPayment, paymentWalletId } from '@chainpay/domain'
import {
  type FundedPaymentQuery,
  type PaymentDocument,
  type PaymentListQuery,
  type PaymentReadModel,
  type PaymentSearch,
  paymentMetadataValues,
  translateFailures,
} from '@chainpay/ports'
import type { Db, Filter } from 'mongodb'
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
  // the fields GET /payments selects and orders by, copied out of the state (schema migration 2)
  createdAt: string
  status: string
  network: string
  currency: string
  // the wallet and whether the address received funds, for the balances (schema migration 4)
  walletId: string
  funded: boolean
  // the metadata's values, for support's search (paymentMetadataValues; schema migration 6)
  metadataValues: string[]
}

/**
 * the read model's indexes in `collection`: a merchant's payments, newest change last; and its
 * payments in list order (docs/api.md, "GET /payments")
 */
export function paymentReadModelIndexes(collection: string = mongoCollections.paymentsRead): IndexSpec[] {
  return [
    { collection, name: 'by_merchant', key: { merchantId: 1, updatedAt: 1 } },
    { collection, name: 'listed', key: { merchantId: 1, createdAt: -1, _id: -1 } },
    { collection, name: 'funded', key: { funded: 1, merchantId: 1, _id: 1 } },
    { collection, name: 'by_address', key: { merchantId: 1, 'state.created.address': 1 } },
    { collection, name: 'by_tx_hash', key: { merchantId: 1, 'state.transfers.txHash': 1 } },
    { collection, name: 'by_metadata_value', key: { merchantId: 1, metadataValues: 1 } },
  ]
}

/**
 * Migration 2 of a read model collection: every document gets the listed fields, and the fee policy
 * PaymentCreated records since its schema version 2, set as its upcaster sets it on older events
 * (packages/contracts). Document by document: FerretDB v1 has no update with an aggregation
 * pipeline. Runs again harmlessly: a document that has them is not selected.
 */
export async function backfillListedFields(db: Db, collection: string): Promise<void> {
  const payments = db.collection<PaymentRecord>(collection)
  const missing = payments.find({
    $or: [{ createdAt: { $exists: false } }, { 'state.created.feeBps': { $exists: false } }],
  })
  for await (const record of missing) {
    const state = record.state as { status: string; created: Record<string, unknown> }
    const { created } = state
    await payments.updateOne(
      { _id: record._id },
      {
        $set: {
          createdAt: created.createdAt as string,
          status: state.status,
          network: created.network as string,
          currency: created.currency as string,
          'state.created.feeBps': (created.feeBps as number | undefined) ?? 0,
          'state.created.fixedFeeUnits':
            (created.fixedFeeUnits as string | undefined) ?? (created.feeUnits as string),
        },
      },
    )
  }
}

/** the fields of the funded payments' index, from the state */
function balanceFields(state: OpenPayment): Pick<PaymentRecord, 'walletId' | 'funded'> {
  return { walletId: paymentWalletId(state.created), funded: hasReceivedFunds(state) }
}

/**
 * Migration 4 of a read model collection (docs/api.md, "Balances and sweeps"): every payment state
 * gets its sweeps, empty before, and every document the balance fields. Document by document, as
 * migration 2; runs again harmlessly.
 */
export async function backfillBalanceFields(db: Db, collection: string): Promise<void> {
  const payments = db.collection<PaymentRecord>(collection)
  const missing = payments.find({
    $or: [{ funded: { $exists: false } }, { 'state.sweeps': { $exists: false } }],
  })
  for await (const record of missing) {
    const state = unescapeKeys<OpenPayment>(record.state)
    const sweeps = state.sweeps ?? []
    await payments.updateOne(
      { _id: record._id },
      { $set: { 'state.sweeps': sweeps, ...balanceFields({ ...state, sweeps }) } },
    )
  }
}

/**
 * Migration 6 of a read model collection (docs/dashboard.md, "Finding a payment"): every document
 * gets its metadata values. Document by document, as migration 2; runs again harmlessly.
 */
export async function backfillMetadataValues(db: Db, collection: string): Promise<void> {
  const payments = db.collection<PaymentRecord>(collection)
  for await (const record of payments.find({ metadataValues: { $exists: false } })) {
    const state = unescapeKeys<OpenPayment>(record.state)
    await payments.updateOne(
      { _id: record._id },
      { $set: { metadataValues: paymentMetadataValues(state.created.metadata) } },
    )
  }
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
        createdAt: document.state.created.createdAt,
        status: document.state.status,
        network: document.state.created.network,
        currency: document.state.created.currency,
        ...balanceFields(document.state),
        metadataValues: paymentMetadataValues(document.state.created.metadata),
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
        return record === null ? null : toDocument(record)
      },

      async list(query) {
        const records = await payments
          .find(mongoPaymentListFilter(query))
          .sort({ createdAt: -1, _id: -1 })
          .limit(query.limit)
          .toArray()
        return records.map(toDocument)
      },

      async listFunded(query) {
        const records = await payments
          .find(mongoFundedFilter(query))
          .sort({ _id: 1 })
          .limit(query.limit)
          .toArray()
        return records.map(toDocument)
      },

      save(document) {
        return writes.run(document.paymentId, () => saveIfNewer(document))
      },
    },
    translateMongoFailure,
  )
}

function toDocument(record: PaymentRecord): PaymentDocument {
  return {
    paymentId: record._id,
    merchantId: record.merchantId,
    revision: record.revision,
    state: unescapeKeys<PaymentDocument['state']>(record.state),
    updatedAt: record.updatedAt,
  }
}

/** one page's filter: the merchant and the position select a range of index `listed` */
export function mongoPaymentListFilter(query: PaymentListQuery): Filter<PaymentRecord> {
  const conditions: Filter<PaymentRecord>[] = [{ merchantId: query.merchantId }]
  const { after } = query
  if (after !== undefined) {
    conditions.push({
      $or: [
        { createdAt: { $lt: after.createdAt } },
        { createdAt: after.createdAt, _id: { $lt: after.paymentId } },
      ],
    })
  }
  if (query.createdFrom !== undefined) conditions.push({ createdAt: { $gte: query.createdFrom } })
  if (query.createdTo !== undefined) conditions.push({ createdAt: { $lt: query.createdTo } })
  if (query.statuses !== undefined && query.statuses.length > 0) {
    conditions.push({ status: { $in: [...query.statuses] } })
  }
  if (query.network !== undefined) conditions.push({ network: query.network })
  if (query.currency !== undefined) conditions.push({ currency: query.currency })
  return conditions.length === 1 ? (conditions[0] ?? {}) : { $and: conditions }
}

/** one page of funded payments: a range of index `funded` when the merchant is given */
function mongoFundedFilter(query: FundedPaymentQuery): Filter<PaymentRecord> {
  return {
    funded: true,
    ...(query.merchantId === undefined ? {} : { merchantId: query.merchantId }),
    ...(query.afterPaymentId === undefined ? {} : { _id: { $gt: query.afterPaymentId } }),
    ...(query.network === undefined ? {} : { network: query.network }),
    ...(query.walletId === undefined ? {} : { walletId: query.walletId }),
  }
}

/**
 * Support's search over a read model collection (PaymentSearch): the receiving address, the tx hash
 * of any counted transfer, or a metadata value, through indexes that begin with the merchant.
 */
export function createMongoPaymentSearch(db: Db, options: { collection?: string } = {}): PaymentSearch {
  const payments = db.collection<PaymentRecord>(options.collection ?? mongoCollections.paymentsRead)
  return translateFailures(
    {
      async findByReference(merchantId, reference, limit, after) {
        const matching: Filter<PaymentRecord> = {
          merchantId,
          $or: [
            { 'state.created.address': reference },
            { 'state.transfers.txHash': reference },
            { metadataValues: reference },
          ],
        }
        const records = await payments
          .find(
            after === undefined
              ? matching
              : { $and: [matching, mongoPaymentListFilter({ merchantId, limit, after })] },
          )
          .sort({ createdAt: -1, _id: -1 })
          .limit(limit)
          .toArray()
        return records.map(toDocument)
      },
    },
    translateMongoFailure,
  )
}
