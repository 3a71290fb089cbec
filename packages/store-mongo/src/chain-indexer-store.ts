import {
  type ChainIndexerStore,
  type TrackedTransfer,
  translateFailures,
  type WatchedAddress,
  type WatchedDepositAddress,
} from '@chainpay/ports'
import type { Collection, Db, Filter } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { translateMongoFailure } from './mongo-failures.js'

interface CursorDocument {
  /** the network */
  _id: string
  height: number
  hash: string
}

interface WatchedDocument extends WatchedAddress {
  /** `${network}:${address}` */
  _id: string
}

/**
 * a followed account (the collection keeps its first name, account_signatures: a document written
 * before owners and states has `signature` and neither of them)
 */
interface FollowedAccountDocument {
  /** `${network}:${account}` */
  _id: string
  network: string
  account: string
  owner?: string | null
  /** the last signature listed */
  signature: string | null
  state?: string | null
}

interface DepositAddressDocument extends WatchedDepositAddress {
  /** `${network}:${address}` */
  _id: string
}

interface TrackedDocument extends TrackedTransfer {
  /** `${network}:${txHash}:${index}` */
  _id: string
}

export const chainIndexerIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.watchedAddresses,
    name: 'watched_addresses_by_network',
    key: { network: 1, address: 1 },
  },
  ...watchUntilIndexes(),
  {
    collection: mongoCollections.trackedTransfers,
    name: 'tracked_transfers_by_network',
    key: { network: 1, blockHeight: 1, txHash: 1, index: 1 },
  },
  {
    collection: mongoCollections.accountSignatures,
    name: 'account_signatures_by_network',
    key: { network: 1, account: 1 },
  },
  {
    collection: mongoCollections.depositAddressesWatched,
    name: 'deposit_addresses_watched_by_network',
    key: { network: 1, address: 1 },
  },
]

/**
 * What the chain indexer resumes from, in collections chain_cursors (_id network), watched_addresses,
 * tracked_transfers and account_signatures (the followed accounts; _id built from the natural key). Watching or tracking again replaces the
 * document: the latest report wins. One indexer process writes a network's documents, one write
 * after another, so FerretDB's unlocked updates (concurrency.ts) meet no competing writer here.
 */
export function createMongoChainIndexerStore(db: Db): ChainIndexerStore {
  const cursors: Collection<CursorDocument> = db.collection(mongoCollections.chainCursors)
  const watched: Collection<WatchedDocument> = db.collection(mongoCollections.watchedAddresses)
  const tracked: Collection<TrackedDocument> = db.collection(mongoCollections.trackedTransfers)
  const depositAddresses: Collection<DepositAddressDocument> = db.collection(
    mongoCollections.depositAddressesWatched,
  )
  const followedAccounts: Collection<FollowedAccountDocument> = db.collection(
    mongoCollections.accountSignatures,
  )

  return translateFailures(
    {
      async loadCursor(network) {
        const document = await cursors.findOne({ _id: network })
        return document === null ? null : { height: document.height, hash: document.hash }
      },

      async saveCursor(network, cursor) {
        await cursors.replaceOne(
          { _id: network },
          { height: cursor.height, hash: cursor.hash },
          { upsert: true },
        )
      },

      async watch(address) {
        const _id = watchedId(address.network, address.address)
        await watched.replaceOne({ _id }, toWatchedDocument(address), { upsert: true })
      },

      async unwatch(network, address) {
        await watched.deleteOne({ _id: watchedId(network, address) })
      },

      async unwatchExpired(network, before, limit) {
        const expired: Filter<WatchedDocument> = {
          network,
          watchUntil: { $lt: before },
          watchingReportedAt: { $ne: null },
        }
        const documents = await watched.find(expired).sort({ watchUntil: 1 }).limit(limit).toArray()
        if (documents.length === 0) return []
        // the condition again: an address watched again meanwhile (a new window) stays
        await watched.deleteMany({ ...expired, _id: { $in: documents.map((document) => document._id) } })
        return documents.map(toWatched)
      },

      async listWatched(network) {
        const documents = await watched.find({ network }).sort({ address: 1 }).toArray()
        return documents.map(toWatched)
      },

      async track(transfer) {
        const _id = trackedId(transfer.network, transfer.txHash, transfer.index)
        await tracked.replaceOne({ _id }, toTrackedDocument(transfer), { upsert: true })
      },

      async untrack(network, txHash, index) {
        await tracked.deleteOne({ _id: trackedId(network, txHash, index) })
      },

      async saveFollowedAccount(network, { account, owner, lastSignature, state }) {
        const _id = `${network}:${account}`
        await followedAccounts.replaceOne(
          { _id },
          { network, account, owner, signature: lastSignature, state },
          { upsert: true },
        )
      },

      async forgetFollowedAccount(network, account) {
        await followedAccounts.deleteOne({ _id: `${network}:${account}` })
      },

      async listFollowedAccounts(network) {
        const documents = await followedAccounts.find({ network }).sort({ account: 1 }).toArray()
        return documents.map(({ account, owner, signature, state }) => ({
          account,
          owner: owner ?? null,
          lastSignature: signature,
          state: state ?? null,
        }))
      },

      async watchDepositAddress(entry) {
        const { network, address, merchantId, merchantUserId } = entry
        // $setOnInsert: watching it again changes nothing
        await depositAddresses.updateOne(
          { _id: `${network}:${address}` },
          { $setOnInsert: { network, address, merchantId, merchantUserId } },
          { upsert: true },
        )
      },

      async listDepositAddresses(network) {
        const documents = await depositAddresses.find({ network }).sort({ address: 1 }).toArray()
        return documents.map(({ network, address, merchantId, merchantUserId }) => ({
          network,
          address,
          merchantId,
          merchantUserId,
        }))
      },

      async listTracked(network) {
        const documents = await tracked
          .find({ network })
          .sort({ blockHeight: 1, txHash: 1, index: 1 })
          .toArray()
        return documents.map(
          (document): TrackedTransfer => ({
            network: document.network,
            paymentId: document.paymentId,
            txHash: document.txHash,
            index: document.index,
            address: document.address,
            amountUnits: document.amountUnits,
            blockHeight: document.blockHeight,
            blockHash: document.blockHash,
            blockTime: document.blockTime,
            confirmations: document.confirmations,
            requiredConfirmations: document.requiredConfirmations,
            withdrawnUntilHeight: document.withdrawnUntilHeight,
            // documents tracked before these fields existed have none
            expiresAt: document.expiresAt ?? null,
            foreign: document.foreign ?? null,
            ...(typeof document.owner === 'string' ? { owner: document.owner } : {}),
          }),
        )
      },
    },
    translateMongoFailure,
  )
}

const watchedId = (network: string, address: string) => `${network}:${address}`
const trackedId = (network: string, txHash: string, index: number) => `${network}:${txHash}:${index}`

// every field named, so that nothing but the port's fields is stored
function toWatchedDocument(address: WatchedAddress): Omit<WatchedDocument, '_id'> {
  return {
    network: address.network,
    address: address.address,
    paymentId: address.paymentId,
    assetContract: address.assetContract,
    watchUntil: address.watchUntil,
    paymentCreatedAt: address.paymentCreatedAt,
    requiredConfirmations: address.requiredConfirmations,
    watchingReportedAt: address.watchingReportedAt,
    ...(address.owner === undefined ? {} : { owner: address.owner }),
    closedAt: address.closedAt ?? null,
  }
}

function toTrackedDocument(transfer: TrackedTransfer): Omit<TrackedDocument, '_id'> {
  return {
    network: transfer.network,
    paymentId: transfer.paymentId,
    txHash: transfer.txHash,
    index: transfer.index,
    address: transfer.address,
    amountUnits: transfer.amountUnits,
    blockHeight: transfer.blockHeight,
    blockHash: transfer.blockHash,
    blockTime: transfer.blockTime,
    confirmations: transfer.confirmations,
    requiredConfirmations: transfer.requiredConfirmations,
    withdrawnUntilHeight: transfer.withdrawnUntilHeight,
    expiresAt: transfer.expiresAt,
    foreign:
      transfer.foreign === null
        ? null
        : { currency: transfer.foreign.currency, decimals: transfer.foreign.decimals },
    ...(transfer.owner === undefined ? {} : { owner: transfer.owner }),
  }
}

/** what the watch set's prune (unwatchExpired) reads: the addresses whose window ended, by range */
function watchUntilIndexes(): IndexSpec[] {
  return [
    {
      collection: mongoCollections.watchedAddresses,
      name: 'watched_addresses_by_end',
      key: { network: 1, watchUntil: 1 },
    },
  ]
}

function toWatched(document: WatchedDocument): WatchedAddress {
  return {
    network: document.network,
    address: document.address,
    paymentId: document.paymentId,
    assetContract: document.assetContract,
    watchUntil: document.watchUntil,
    paymentCreatedAt: document.paymentCreatedAt,
    requiredConfirmations: document.requiredConfirmations,
    watchingReportedAt: document.watchingReportedAt,
    // documents watched before the fields existed have none
    ...(typeof document.owner === 'string' ? { owner: document.owner } : {}),
    closedAt: document.closedAt ?? null,
  }
}
