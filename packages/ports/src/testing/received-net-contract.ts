// What every ReceivedNetTotals adapter must do (received-net.ts); run against a fresh, empty store per
// test.

import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../failures.js'
import type { ReceivedNetCount, ReceivedNetTotals } from '../received-net.js'

export interface ReceivedNetTotalsFixture {
  store: ReceivedNetTotals
  loseDatabase(): Promise<void>
  teardown(): Promise<void>
}

const count = (
  paymentId: string,
  netUnits: bigint,
  revision: number,
  fields: Partial<ReceivedNetCount> = {},
): ReceivedNetCount => ({
  paymentId,
  merchantId: 'mer_a',
  network: 'TRON',
  currency: 'USDT',
  decimals: 6,
  netUnits,
  revision,
  ...fields,
})

export function describeReceivedNetTotalsContract(
  adapterName: string,
  setup: () => Promise<ReceivedNetTotalsFixture>,
): void {
  describe(`ReceivedNetTotals contract: ${adapterName}`, () => {
    let fixture: ReceivedNetTotalsFixture
    let store: ReceivedNetTotals

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture.teardown())

    it("counts each payment once per revision, forward only, into its merchant's asset", async () => {
      expect(await store.totalsOf('mer_a')).toEqual([])
      expect(await store.countedOf('pay_1')).toBe(0n)
      await store.count(count('pay_1', 0n, 1))
      await store.count(count('pay_1', 9_900_000n, 3))
      // a redelivery and an older revision change nothing
      await store.count(count('pay_1', 9_900_000n, 3))
      await store.count(count('pay_1', 1n, 2))
      // late funds: the same payment's net grows
      await store.count(count('pay_1', 10_890_000n, 4))
      await store.count(count('pay_2', 5_000_000n, 2))
      await store.count(count('pay_3', 7n, 2, { network: 'SOLANA', currency: 'USDC' }))
      await store.count(count('pay_4', 3_000_000n, 2, { merchantId: 'mer_b' }))
      expect(await store.countedOf('pay_1')).toBe(10_890_000n)
      const mine = await store.totalsOf('mer_a')
      expect(
        [...mine].sort((a, b) => `${a.network}:${a.currency}`.localeCompare(`${b.network}:${b.currency}`)),
      ).toEqual([
        { network: 'SOLANA', currency: 'USDC', decimals: 6, units: 7n },
        { network: 'TRON', currency: 'USDT', decimals: 6, units: 15_890_000n },
      ])
      expect(await store.totalsOf('mer_a', 'SOLANA')).toEqual([
        { network: 'SOLANA', currency: 'USDC', decimals: 6, units: 7n },
      ])
      expect(await store.totalsOf('mer_b')).toEqual([
        { network: 'TRON', currency: 'USDT', decimals: 6, units: 3_000_000n },
      ])
    })

    it('adds up concurrent counts of many payments exactly, beyond 2^53 units', async () => {
      const big = 2n ** 56n
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.count(count(`pay_${i}`, big + BigInt(i), 1))),
      )
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => store.count(count(`pay_${i}`, big + BigInt(i), 1))),
      )
      const [total] = await store.totalsOf('mer_a')
      expect(total?.units).toBe(20n * big + 190n)
    })

    it('fails with StoreUnavailableError once its database is gone', async () => {
      await store.count(count('pay_1', 1n, 1))
      await fixture.loseDatabase()
      await expect(store.totalsOf('mer_a')).rejects.toBeInstanceOf(StoreUnavailableError)
    })
  })
}
