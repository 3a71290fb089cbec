import { createManualClock } from '@chainpay/platform'
import type { MerchantStore } from '@chainpay/ports'
import { createSqliteMerchantStore, openSqliteDatabase } from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { cachedMerchants } from './cached-merchants.js'

const merchant = {
  merchantId: 'mer_1',
  name: 'Shop',
  webhookUrl: 'https://shop.example/hooks',
  webhookSecret: 'sealed:webhook',
  feePolicy: { feeBps: 150, fixedFees: {} },
  createdAt: '2030-01-01T00:00:00.000Z',
  updatedAt: '2030-01-01T00:00:00.000Z',
}
const key = {
  apiKey: 'key_1',
  merchantId: 'mer_1',
  secret: 'sealed:secret',
  createdAt: '2030-01-01T00:00:00.000Z',
  revokedAt: null,
}

/** a real SQLite merchant store, counting the lookups that reach it */
async function countedStore() {
  const store = createSqliteMerchantStore(openSqliteDatabase(':memory:'))
  await store.createMerchant(merchant, key)
  const reads = { count: 0 }
  const counted: Pick<MerchantStore, 'getMerchant'> = {
    getMerchant: async (merchantId) => {
      reads.count++
      return store.getMerchant(merchantId)
    },
  }
  return { store, counted, reads }
}

describe('cachedMerchants', () => {
  it("reads a merchant once per interval however many webhooks look it up, and sees the operator's change after it", async () => {
    const { store, counted, reads } = await countedStore()
    const clock = createManualClock('2030-01-02T00:00:00.000Z')
    const merchants = cachedMerchants(counted, clock, { ttlMs: 5_000 })

    // two webhooks of a paid payment, each looked up when recorded and when sent
    for (let lookup = 0; lookup < 4; lookup++)
      expect((await merchants.getMerchant('mer_1'))?.webhookUrl).toBe('https://shop.example/hooks')
    expect(reads.count).toBe(1)

    await store.updateMerchant(
      'mer_1',
      { webhookUrl: 'https://shop.example/new-hooks' },
      '2030-01-02T00:00:01.000Z',
    )
    clock.advance(4_999)
    expect((await merchants.getMerchant('mer_1'))?.webhookUrl).toBe('https://shop.example/hooks')
    clock.advance(1)
    expect((await merchants.getMerchant('mer_1'))?.webhookUrl).toBe('https://shop.example/new-hooks')
    expect(reads.count).toBe(2)

    // an unknown merchant is remembered too, for as long
    expect(await merchants.getMerchant('mer_unknown')).toBeNull()
    expect(await merchants.getMerchant('mer_unknown')).toBeNull()
    expect(reads.count).toBe(3)
  })

  it('remembers at most maxEntries merchants, forgetting the oldest first', async () => {
    const { counted, reads } = await countedStore()
    const merchants = cachedMerchants(counted, createManualClock('2030-01-02T00:00:00.000Z'), {
      maxEntries: 2,
    })
    for (const merchantId of ['a', 'b', 'c', 'c', 'b', 'a']) await merchants.getMerchant(merchantId)
    // a, b, c read; c and b still remembered; a forgotten when c came
    expect(reads.count).toBe(4)
  })
})
