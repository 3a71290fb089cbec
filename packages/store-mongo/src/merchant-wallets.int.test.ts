import { describeMerchantWalletStoreContract } from '@chainpay/ports/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mongoCollections } from './collections.js'
import type { MongoDatabase } from './database.js'
import { createMongoMerchantWalletStore, merchantWalletIndexes } from './merchant-wallets.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = () => freshTestDatabase('merchant_wallets', merchantWalletIndexes)

describeMerchantWalletStoreContract('mongo', async () => {
  const mongo = await freshDatabase()
  return { store: createMongoMerchantWalletStore(mongo.db), teardown: () => dropTestDatabase(mongo) }
})

const wallet = (merchantId: string, keys: string) => ({
  merchantId,
  walletId: `w_${keys}`,
  tronAccountXpub: `xpub-${keys}`,
  tronAccountKeyFingerprint: `tron-${keys}`,
  solanaAddress0: `sol-${keys}`,
  sealedSolanaSeed: `v2.sealed.${keys}`,
  setAt: '2030-01-01T00:00:00.000Z',
})

describe('createMongoMerchantWalletStore', () => {
  let mongo: MongoDatabase
  beforeEach(async () => {
    mongo = await freshDatabase()
  })
  afterEach(() => dropTestDatabase(mongo))

  it('gives back the first key claimed when the second one is refused', async () => {
    const store = createMongoMerchantWalletStore(mongo.db)
    await store.setWallet(wallet('mer_1', 'a1'))
    await expect(store.setWallet({ ...wallet('mer_2', 'b2'), solanaAddress0: 'sol-a1' })).rejects.toThrow(
      /already the wallet of mer_1/,
    )
    const claims = await mongo.db
      .collection(mongoCollections.merchantWalletKeys)
      .find()
      .sort({ _id: 1 })
      .toArray()
    expect(claims).toEqual([
      { _id: 'solana:sol-a1', merchantId: 'mer_1' },
      { _id: 'tron:tron-a1', merchantId: 'mer_1' },
    ])
  })

  it('clears the claims an interrupted set left behind on the next set of the same merchant', async () => {
    const store = createMongoMerchantWalletStore(mongo.db)
    await mongo.db
      .collection(mongoCollections.merchantWalletKeys)
      .insertOne({ _id: 'tron:left-over', merchantId: 'mer_1' } as never)
    await store.setWallet(wallet('mer_1', 'a1'))
    const ids = (await mongo.db.collection(mongoCollections.merchantWalletKeys).find().toArray()).map(
      (doc) => doc._id,
    )
    expect(ids.sort()).toEqual(['solana:sol-a1', 'tron:tron-a1'])
  })
})
