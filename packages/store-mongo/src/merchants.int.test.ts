import type { ApiKeyRecord, MerchantRecord } from '@chainpay/ports'
import { describeMerchantStoreContract } from '@chainpay/ports/testing'
import type { Db } from 'mongodb'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MongoDatabase } from './database.js'
import { createMongoMerchantStore, merchantIndexes } from './merchants.js'
import { dropTestDatabase, freshTestDatabase } from './test-database.js'

const freshDatabase = () => freshTestDatabase('merchants', merchantIndexes)
const dropped = dropTestDatabase

describeMerchantStoreContract('mongo', async () => {
  const mongo = await freshDatabase()
  return { store: createMongoMerchantStore(mongo.db), teardown: () => dropped(mongo) }
})

const merchant = (merchantId: string): MerchantRecord => ({
  merchantId,
  name: `Shop ${merchantId}`,
  webhookUrl: null,
  webhookSecret: `sealed:webhook:${merchantId}`,
  feePolicy: { feeBps: 100, fixedFees: {} },
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
})

const apiKey = (key: string, merchantId: string): ApiKeyRecord => ({
  apiKey: key,
  merchantId,
  secret: `sealed:secret:${key}`,
  createdAt: '2030-01-01T00:00:00.000Z',
  revokedAt: null,
})

describe('createMongoMerchantStore', () => {
  let mongo: MongoDatabase
  let db: Db
  beforeEach(async () => {
    mongo = await freshDatabase()
    db = mongo.db
  })
  afterEach(() => dropped(mongo))

  it('round-trips fixed-fee asset keys that MongoDB would refuse or read as paths', async () => {
    const store = createMongoMerchantStore(db)
    const feePolicy = { feeBps: 0, fixedFees: { 'TRON:USDT': '0.5', $where: '1', 'a.b': '2', '%24x': '3' } }
    await store.createMerchant({ ...merchant('mer_1'), feePolicy }, apiKey('key_1', 'mer_1'))
    expect((await store.getMerchant('mer_1'))?.feePolicy).toEqual(feePolicy)
    const changed = { feeBps: 5, fixedFees: { 'x.y': '7', $gt: '8' } }
    expect(await store.updateMerchant('mer_1', { feePolicy: changed }, '2030-02-01T00:00:00.000Z')).toBe(true)
    expect(await store.listMerchants()).toEqual([
      { ...merchant('mer_1'), feePolicy: changed, updatedAt: '2030-02-01T00:00:00.000Z' },
    ])
  })

  it('takes the merchant back when its first key cannot be stored', async () => {
    const store = createMongoMerchantStore(db)
    await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
    await expect(store.createMerchant(merchant('mer_2'), apiKey('key_1', 'mer_2'))).rejects.toThrow()
    expect(await store.getMerchant('mer_2')).toBeNull()
    expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1'))
  })

  it('refuses a second merchant under an existing id, keeping the first and its key', async () => {
    const store = createMongoMerchantStore(db)
    await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
    await expect(
      store.createMerchant({ ...merchant('mer_1'), name: 'Impostor' }, apiKey('key_2', 'mer_1')),
    ).rejects.toThrow()
    expect(await store.getMerchant('mer_1')).toEqual(merchant('mer_1'))
    expect(await store.findApiKey('key_2')).toBeNull()
  })

  it('refuses a key for a merchant that does not exist', async () => {
    const store = createMongoMerchantStore(db)
    await expect(store.addApiKey(apiKey('key_1', 'mer_unknown'))).rejects.toThrow(/unknown merchant/)
    expect(await store.findApiKey('key_1')).toBeNull()
  })
})
