import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AddressIndexAllocator } from '../allocation.js'

/** What every AddressIndexAllocator adapter must do; run it against a fresh, empty store per test. */
export function describeAddressIndexAllocatorContract(
  adapterName: string,
  setup: () => Promise<{ store: AddressIndexAllocator; teardown(): Promise<void> }>,
): void {
  describe(`AddressIndexAllocator contract: ${adapterName}`, () => {
    let store: AddressIndexAllocator
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    it('hands out non-negative integer indexes that increase on every call', async () => {
      const indexes: number[] = []
      for (let call = 0; call < 5; call += 1) indexes.push(await store.allocate('TRON'))
      for (const index of indexes) expect(Number.isSafeInteger(index) && index >= 0).toBe(true)
      for (let position = 1; position < indexes.length; position += 1) {
        expect(indexes[position]).toBeGreaterThan(indexes[position - 1] ?? Number.POSITIVE_INFINITY)
      }
    })

    it('counts each network on its own', async () => {
      const tronFirst = await store.allocate('TRON')
      const solanaFirst = await store.allocate('SOLANA')
      const tronSecond = await store.allocate('TRON')
      const solanaSecond = await store.allocate('SOLANA')
      expect(tronSecond).toBeGreaterThan(tronFirst)
      expect(solanaSecond).toBeGreaterThan(solanaFirst)
      // a network's first index does not depend on how many another network handed out
      expect(solanaFirst).toBe(tronFirst)
    })

    it('never hands out the same index twice under concurrent allocations', async () => {
      const indexes = await Promise.all(Array.from({ length: 50 }, () => store.allocate('TRON')))
      expect(new Set(indexes).size).toBe(50)
      const next = await store.allocate('TRON')
      expect(next).toBeGreaterThan(Math.max(...indexes))
    })
  })
}
