import { addressFamily, defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { createSqliteAddressPool } from '@chainpay/store-sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { createAddressPool } from './address-pool.js'
import { createPaymentCommandHandler } from './command-handler.js'
import { openSqliteCommandSide, type SqliteCommandSide } from './testing/sqlite-command-side.js'

const tron = addressFamily(defaultAssetRegistry, 'TRON')
const solana = addressFamily(defaultAssetRegistry, 'SOLANA')
const usdt = resolveAsset(defaultAssetRegistry, { network: 'TRON', currency: 'USDT' })
const usdc = resolveAsset(defaultAssetRegistry, { network: 'SOLANA', currency: 'USDC' })
const merchantId = 'm_pool'

let side: SqliteCommandSide | undefined
afterEach(async () => {
  await side?.close()
  side = undefined
})

async function open(options: { size?: number; keyId?: string } = {}) {
  side = openSqliteCommandSide()
  await side.addMerchant(merchantId)
  const { db, allocator, deriver, eventStore, merchants, logger } = side
  const store = createSqliteAddressPool(db)
  const pool = createAddressPool({
    store,
    allocator,
    deriver,
    families: [tron, solana],
    keyIdOf: (chain) => `${chain.toLowerCase()}-${options.keyId ?? 'key'}`,
    logger,
    size: options.size ?? 5,
    chunk: 2,
    idle: () => true,
    checkIntervalMs: 1,
  })
  const handler = createPaymentCommandHandler({
    eventStore,
    merchants,
    allocator,
    deriver,
    addressPool: pool,
    registry: defaultAssetRegistry,
    policy: { allowInsecureCallbackUrls: false },
    clock: { now: () => new Date() },
    logger,
  })
  return { ...side, store, pool, handler }
}

describe('createAddressPool: addresses derived ahead of need', () => {
  it('fills each family chunk by chunk up to its size, with indexes from the allocator', async () => {
    const { pool, store, allocator } = await open({ size: 3 })
    const chunks: number[] = []
    for (;;) {
      const added = await pool.refillOnce()
      if (added === 0) break
      chunks.push(added)
    }
    expect(chunks).toEqual([2, 1, 2, 1])
    expect(await store.size('TRON@tron-key')).toBe(3)
    expect(await store.size('SOLANA@solana-key')).toBe(3)
    expect(allocator.allocations.map(({ family, index }) => `${family}:${index}`)).toEqual([
      'TRON:0',
      'TRON:1',
      'TRON:2',
      'SOLANA:0',
      'SOLANA:1',
      'SOLANA:2',
    ])
  })

  it('gives a create the pooled address, as the deriver would, token account included; on the spot once empty', async () => {
    const { pool, handler, deriver, allocator } = await open({ size: 2 })
    while ((await pool.refillOnce()) > 0) {}
    const create = (currency: string, network: string) =>
      handler.createPayment({ merchantId, request: { amount: '5', currency, network } })
    const first = await create('USDC', 'SOLANA')
    expect(first.payment.created).toMatchObject(deriver.derive(usdc, 0))
    expect(first.payment.created.tokenAccount).not.toBeNull()
    const tronPayments = [
      await create('USDT', 'TRON'),
      await create('USDT', 'TRON'),
      await create('USDT', 'TRON'),
    ]
    expect(tronPayments.map((created) => created.payment.created)).toMatchObject([
      deriver.derive(usdt, 0),
      deriver.derive(usdt, 1),
      // the pool was empty: allocated and derived on the spot
      deriver.derive(usdt, 2),
    ])
    expect(allocator.allocations.filter(({ family }) => family === 'TRON')).toHaveLength(3)
  })

  it("never hands out one address twice, and never one of other keys' pool", async () => {
    const { pool, handler, store } = await open({ size: 4 })
    await store.add('TRON@tron-old-key', [{ index: 99, address: 'TOldKeyAddress', derivationPath: 'old' }])
    while ((await pool.refillOnce()) > 0) {}
    const created = await Promise.all(
      Array.from({ length: 10 }, () =>
        handler.createPayment({ merchantId, request: { amount: '1', currency: 'USDT', network: 'TRON' } }),
      ),
    )
    const addresses = created.map((payment) => payment.payment.created.address)
    expect(new Set(addresses).size).toBe(10)
    expect(addresses).not.toContain('TOldKeyAddress')
    expect(await store.size('TRON@tron-old-key')).toBe(1)
  })

  it('refills by itself once started, and stops', async () => {
    const { pool, store } = await open({ size: 4 })
    await pool.start()
    await expect
      .poll(async () => [await store.size('TRON@tron-key'), await store.size('SOLANA@solana-key')])
      .toEqual([4, 4])
    await pool.stop()
    await store.take('TRON@tron-key')
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(await store.size('TRON@tron-key')).toBe(3)
  })
})
