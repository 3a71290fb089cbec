// A merchant's API keys in both shapes (docs/operations.md, "API keys"): the use cases the admin API
// and the dashboard call, and the gateway's authenticator, on the SQLite merchant store (standalone)
// and on the MongoDB one (the distributed gateway's), a MongoDB-wire server here.

import { testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { createManualClock, createSecretBox, generateSecretKey } from '@chainpay/platform'
import { apiSecretContext, type MerchantStore } from '@chainpay/ports'
import {
  createMongoMerchantStore,
  ensureMongoIndexes,
  merchantIndexes,
  openMongoDatabase,
} from '@chainpay/store-mongo'
import { createSqliteMerchantStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createApiKeyAuthenticator } from './api-key-authenticator.js'
import { listApiKeys, rollApiKey } from './api-keys.js'
import { createMerchant, issueApiKey, revokeApiKey } from './merchants.js'

const HOUR_MS = 3_600_000

const stores: Record<string, () => Promise<{ store: MerchantStore; close(): Promise<void> }>> = {
  sqlite: async () => {
    const db = openSqliteDatabase(':memory:')
    return { store: createSqliteMerchantStore(db), close: async () => db.close() }
  },
  mongo: async () => {
    const mongo = await openMongoDatabase({ url: testMongoDbUrl(), database: uniqueName('api-keys') })
    await ensureMongoIndexes(mongo.db, merchantIndexes)
    return {
      store: createMongoMerchantStore(mongo.db),
      close: async () => {
        await mongo.db.dropDatabase()
        await mongo.close()
      },
    }
  },
}

describe.each(Object.keys(stores))('API keys on the %s merchant store', (storeName) => {
  const clock = createManualClock('2030-03-01T12:00:00.000Z')
  const secretBox = createSecretBox(generateSecretKey())
  let merchants: MerchantStore
  let close: () => Promise<void>

  beforeEach(async () => {
    const opened = await (stores[storeName] as (typeof stores)[string])()
    merchants = opened.store
    close = () => opened.close()
  })
  afterEach(() => close())

  it('accepts a rolled key until its end of overlap, then refuses it; a revoked key at once', async () => {
    const deps = { merchants, secretBox, clock }
    const created = await createMerchant(deps, { name: 'Shop' })
    const { merchantId } = created.merchant
    const other = await issueApiKey(deps, merchantId)
    const authenticator = createApiKeyAuthenticator({ merchants, secretBox, clock, cacheTtlMs: 5_000 })
    expect((await authenticator.authenticate(created.apiKey))?.apiSecret).toBe(created.apiSecret)

    const rolled = await rollApiKey(deps, merchantId, created.apiKey, { overlapHours: 1 })
    authenticator.invalidate(created.apiKey)
    // stored sealed to its key and merchant, opened only with them
    const stored = await merchants.findApiKey(rolled.apiKey)
    expect(stored?.secret).not.toContain(rolled.apiSecret)
    expect(
      secretBox.open(stored?.secret ?? '', apiSecretContext({ apiKey: rolled.apiKey, merchantId })),
    ).toBe(rolled.apiSecret)
    expect(rolled.rolled).toEqual({ apiKey: created.apiKey, expiresAt: '2030-03-01T13:00:00.000Z' })

    clock.advance(HOUR_MS - 1)
    expect((await authenticator.authenticate(created.apiKey))?.apiSecret).toBe(created.apiSecret)
    clock.advance(1)
    expect(await authenticator.authenticate(created.apiKey)).toBeNull()
    expect((await authenticator.authenticate(rolled.apiKey))?.apiSecret).toBe(rolled.apiSecret)

    await revokeApiKey(deps, merchantId, other.apiKey)
    authenticator.invalidate(other.apiKey)
    expect(await authenticator.authenticate(other.apiKey)).toBeNull()
    // keys made in the same millisecond are listed in the order of their ids: compared by key
    const statuses = new Map((await listApiKeys(deps, merchantId)).map((key) => [key.apiKey, key.status]))
    expect(statuses).toEqual(
      new Map([
        [created.apiKey, 'expired'],
        [other.apiKey, 'revoked'],
        [rolled.apiKey, 'active'],
      ]),
    )
  })
})
