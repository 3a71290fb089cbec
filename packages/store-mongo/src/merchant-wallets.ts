import {
  type MerchantWalletRecord,
  type MerchantWalletStore,
  translateFailures,
  WalletKeyInUseError,
} from '@chainpay/ports'
import type { Db } from 'mongodb'
import { type IndexSpec, mongoCollections } from './collections.js'
import { isDuplicateKeyError } from './concurrency.js'
import { translateMongoFailure } from './mongo-failures.js'

interface MerchantWalletDocument {
  _id: string
  walletId: string
  tronAccountXpub: string
  tronAccountKeyFingerprint: string
  solanaAddress0: string
  sealedSolanaSeed: string
  setAt: string
}

/** one claim per key in use (`_id` `tron:<fingerprint>` or `solana:<address 0>`): uniqueness rests on `_id` */
interface KeyClaimDocument {
  _id: string
  merchantId: string
}

export const merchantWalletIndexes: IndexSpec[] = [
  {
    collection: mongoCollections.merchantWalletKeys,
    name: 'merchant_wallet_keys_by_merchant',
    key: { merchantId: 1 },
  },
]

const claimsOf = (wallet: MerchantWalletRecord) => [
  `tron:${wallet.tronAccountKeyFingerprint}`,
  `solana:${wallet.solanaAddress0}`,
]

/**
 * Merchant wallets in collection merchant_wallets (`_id` merchantId), the seed as sealed by the
 * caller. A wallet's keys are claimed first in merchant_wallet_keys, an insert being the one atomic
 * step FerretDB v1 offers across writers; a set or remove interrupted half-way leaves a claim of the
 * merchant's that the next set or remove of the same merchant clears.
 */
export function createMongoMerchantWalletStore(db: Db): MerchantWalletStore {
  const wallets = db.collection<MerchantWalletDocument>(mongoCollections.merchantWallets)
  const claims = db.collection<KeyClaimDocument>(mongoCollections.merchantWalletKeys)

  /** true when the claim is newly made, false when the merchant held it already */
  const claim = async (id: string, merchantId: string): Promise<boolean> => {
    try {
      await claims.insertOne({ _id: id, merchantId })
      return true
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error
      const holder = await claims.findOne({ _id: id })
      if (holder?.merchantId === merchantId) return false
      throw new WalletKeyInUseError(
        `a key of this wallet is already the wallet of ${holder?.merchantId ?? 'another merchant'}`,
      )
    }
  }

  return translateFailures(
    {
      async setWallet(wallet) {
        const made: string[] = []
        try {
          for (const id of claimsOf(wallet)) if (await claim(id, wallet.merchantId)) made.push(id)
        } catch (error) {
          if (made.length > 0) await claims.deleteMany({ _id: { $in: made }, merchantId: wallet.merchantId })
          throw error
        }
        const { merchantId, ...fields } = wallet
        await wallets.replaceOne({ _id: merchantId }, fields, { upsert: true })
        await claims.deleteMany({ merchantId, _id: { $nin: claimsOf(wallet) } })
      },
      async getWallet(merchantId) {
        const found = await wallets.findOne({ _id: merchantId })
        return found === null ? null : fromDocument(found)
      },
      async removeWallet(merchantId) {
        const { deletedCount } = await wallets.deleteOne({ _id: merchantId })
        await claims.deleteMany({ merchantId })
        return deletedCount > 0
      },
      async listWallets() {
        return (await wallets.find().sort({ _id: 1 }).toArray()).map(fromDocument)
      },
      async replaceSealedSeed(merchantId, expected, replacement) {
        const { modifiedCount } = await wallets.updateOne(
          { _id: merchantId, sealedSolanaSeed: expected },
          { $set: { sealedSolanaSeed: replacement } },
        )
        return modifiedCount > 0
      },
    },
    translateMongoFailure,
  )
}

function fromDocument({ _id, ...fields }: MerchantWalletDocument): MerchantWalletRecord {
  return {
    merchantId: _id,
    walletId: fields.walletId,
    tronAccountXpub: fields.tronAccountXpub,
    tronAccountKeyFingerprint: fields.tronAccountKeyFingerprint,
    solanaAddress0: fields.solanaAddress0,
    sealedSolanaSeed: fields.sealedSolanaSeed,
    setAt: fields.setAt,
  }
}
