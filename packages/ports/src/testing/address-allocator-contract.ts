import type { AddressFamily } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AddressIndexAllocator } from '../allocation.js'

export const TRON_FAMILY: AddressFamily = { chain: 'TRON', networks: ['TRON', 'TRON_NILE'] }
export const SOLANA_FAMILY: AddressFamily = { chain: 'SOLANA', networks: ['SOLANA', 'SOLANA_DEVNET'] }
/** a merchant wallet's TRON account key fingerprint (hex), and a Solana address 0 (base58) */
const KEY_A = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'
const KEY_B = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk'

export interface AddressIndexAllocatorFixture {
  store: AddressIndexAllocator
  /**
   * writes, straight into the store, what a version that counted indexes per network left after
   * handing out `count` indexes (0 to count - 1) on `network`
   */
  handOutPerNetwork(network: string, count: number): Promise<void>
  teardown(): Promise<void>
}

/** What every AddressIndexAllocator adapter must do; run it against a fresh, empty store per test. */
export function describeAddressIndexAllocatorContract(
  adapterName: string,
  setup: () => Promise<AddressIndexAllocatorFixture>,
): void {
  describe(`AddressIndexAllocator contract: ${adapterName}`, () => {
    let fixture: AddressIndexAllocatorFixture
    let store: AddressIndexAllocator

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture?.teardown())

    it('hands out non-negative integer indexes that increase on every call', async () => {
      const indexes: number[] = []
      for (let call = 0; call < 5; call += 1) indexes.push(await store.allocate(TRON_FAMILY))
      for (const index of indexes) expect(Number.isSafeInteger(index) && index >= 0).toBe(true)
      for (let position = 1; position < indexes.length; position += 1) {
        expect(indexes[position]).toBeGreaterThan(indexes[position - 1] ?? Number.POSITIVE_INFINITY)
      }
    })

    it('counts each family on its own', async () => {
      const tronFirst = await store.allocate(TRON_FAMILY)
      const solanaFirst = await store.allocate(SOLANA_FAMILY)
      const tronSecond = await store.allocate(TRON_FAMILY)
      const solanaSecond = await store.allocate(SOLANA_FAMILY)
      expect(tronSecond).toBeGreaterThan(tronFirst)
      expect(solanaSecond).toBeGreaterThan(solanaFirst)
      // a family's first index does not depend on how many another family handed out
      expect(solanaFirst).toBe(tronFirst)
    })

    it('never hands out the same index twice under concurrent allocations', async () => {
      const indexes = await Promise.all(Array.from({ length: 50 }, () => store.allocate(TRON_FAMILY)))
      expect(new Set(indexes).size).toBe(50)
      const next = await store.allocate(TRON_FAMILY)
      expect(next).toBeGreaterThan(Math.max(...indexes))
    })

    it('starts each family above every index its networks handed out when each counted on its own', async () => {
      await fixture.handOutPerNetwork('TRON', 3)
      await fixture.handOutPerNetwork('TRON_NILE', 7)
      await fixture.handOutPerNetwork('SOLANA_DEVNET', 2)
      const tron = [await store.allocate(TRON_FAMILY), await store.allocate(TRON_FAMILY)]
      const solana = await store.allocate(SOLANA_FAMILY)
      // TRON_NILE handed out 0 to 6, which are TRON's addresses too
      expect(Math.min(...tron)).toBeGreaterThanOrEqual(7)
      expect(tron[1]).toBeGreaterThan(tron[0] ?? Number.POSITIVE_INFINITY)
      expect(solana).toBeGreaterThanOrEqual(2)
    })

    it('starts above the old counters however many allocations ask at once', async () => {
      await fixture.handOutPerNetwork('TRON_NILE', 4)
      const indexes = await Promise.all(Array.from({ length: 10 }, () => store.allocate(TRON_FAMILY)))
      expect(new Set(indexes).size).toBe(10)
      expect(Math.min(...indexes)).toBeGreaterThanOrEqual(4)
    })

    it('starts above the old counter of a network that joins the family later', async () => {
      await fixture.handOutPerNetwork('SOLANA_TESTNET', 5)
      // a registry without SOLANA_TESTNET, as when an operator removed it for a while
      await store.allocate(SOLANA_FAMILY)
      const extended: AddressFamily = {
        chain: 'SOLANA',
        networks: [...SOLANA_FAMILY.networks, 'SOLANA_TESTNET'],
      }
      // once the registry has the network again, its old indexes are never handed out
      expect(await store.allocate(extended)).toBeGreaterThanOrEqual(5)
    })

    it("counts each merchant wallet key on its own, from 0, apart from the operator's", async () => {
      await fixture.handOutPerNetwork('TRON', 3)
      const operator = [await store.allocate(TRON_FAMILY), await store.allocate(TRON_FAMILY)]
      const keyA = [await store.allocate(TRON_FAMILY, KEY_A), await store.allocate(TRON_FAMILY, KEY_A)]
      const keyB = await store.allocate(TRON_FAMILY, KEY_B)
      const keyASolana = await store.allocate(SOLANA_FAMILY, KEY_A)
      // the counters of before were the operator's: a merchant wallet's keys start at their index 0
      expect(operator).toEqual([3, 4])
      expect(keyA).toEqual([0, 1])
      expect(keyB).toBe(0)
      expect(keyASolana).toBe(0)
      expect(await store.allocate(TRON_FAMILY)).toBe(5)
      // a key met again (in another wallet, for another merchant) continues where it stopped
      expect(await store.allocate(TRON_FAMILY, KEY_A)).toBe(2)
    })

    it('never hands out one index of a key twice under concurrent allocations', async () => {
      const asked = Array.from({ length: 20 }, (_, call) =>
        store.allocate(TRON_FAMILY, call % 2 === 0 ? KEY_A : undefined),
      )
      const indexes = await Promise.all(asked)
      const ofKey = indexes.filter((_, call) => call % 2 === 0)
      const ofOperator = indexes.filter((_, call) => call % 2 === 1)
      expect(new Set(ofKey).size).toBe(10)
      expect(new Set(ofOperator).size).toBe(10)
    })

    it('raises a counter past a given index, never lowers it, and answers where it was', async () => {
      for (let call = 0; call < 3; call += 1) await store.allocate(TRON_FAMILY)
      expect(await store.raiseTo(TRON_FAMILY, 100)).toBe(3)
      expect(await store.allocate(TRON_FAMILY)).toBe(100)
      // lower than the counter: nothing moves
      expect(await store.raiseTo(TRON_FAMILY, 50)).toBe(101)
      expect(await store.allocate(TRON_FAMILY)).toBe(101)
      // a key that never counted, and each key on its own
      expect(await store.raiseTo(SOLANA_FAMILY, 7, KEY_B)).toBe(0)
      expect(await store.allocate(SOLANA_FAMILY, KEY_B)).toBe(7)
      expect(await store.allocate(SOLANA_FAMILY)).toBe(0)
      expect(await store.allocate(TRON_FAMILY, KEY_A)).toBe(0)
    })

    it('raises above the old per-network counters too', async () => {
      await fixture.handOutPerNetwork('TRON_NILE', 10)
      expect(await store.raiseTo(TRON_FAMILY, 5)).toBe(0)
      expect(await store.allocate(TRON_FAMILY)).toBe(10)
    })

    it('refuses a key id that is not one', async () => {
      await expect(store.allocate(TRON_FAMILY, 'TRON')).rejects.toThrow(/not a key id/)
      await expect(store.allocate(TRON_FAMILY, `${KEY_A}/x`)).rejects.toThrow(/not a key id/)
    })
  })
}
