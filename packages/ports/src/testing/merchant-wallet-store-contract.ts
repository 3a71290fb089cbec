import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type MerchantWalletRecord,
  type MerchantWalletStore,
  WalletKeyInUseError,
} from '../merchant-wallets.js'

export interface MerchantWalletStoreFixture {
  store: MerchantWalletStore
  teardown(): Promise<void>
}

const wallet = (
  merchantId: string,
  keys: string,
  setAt = '2030-01-01T00:00:00.000Z',
): MerchantWalletRecord => ({
  merchantId,
  walletId: `w_${keys.padEnd(20, '0')}`,
  tronAccountXpub: `xpub-${keys}`,
  tronAccountKeyFingerprint: `tron-${keys}`,
  solanaAddress0: `sol-${keys}`,
  sealedSolanaSeed: `v2.sealed.${merchantId}.${keys}`,
  setAt,
})

/** What every MerchantWalletStore adapter must do; run it against a fresh, empty store per test. */
export function describeMerchantWalletStoreContract(
  adapterName: string,
  setup: () => Promise<MerchantWalletStoreFixture>,
): void {
  describe(`MerchantWalletStore contract: ${adapterName}`, () => {
    let fixture: MerchantWalletStoreFixture
    let store: MerchantWalletStore

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture?.teardown())

    it('gives back the wallet set, and null for a merchant without one', async () => {
      await store.setWallet(wallet('mer_1', 'a1'))
      expect(await store.getWallet('mer_1')).toEqual(wallet('mer_1', 'a1'))
      expect(await store.getWallet('mer_2')).toBeNull()
    })

    it('replaces a merchant wallet when set again', async () => {
      await store.setWallet(wallet('mer_1', 'a1'))
      await store.setWallet(wallet('mer_1', 'b2', '2030-01-02T00:00:00.000Z'))
      expect(await store.getWallet('mer_1')).toEqual(wallet('mer_1', 'b2', '2030-01-02T00:00:00.000Z'))
      expect(await store.listWallets()).toHaveLength(1)
    })

    it('removes a wallet once', async () => {
      await store.setWallet(wallet('mer_1', 'a1'))
      expect(await store.removeWallet('mer_1')).toBe(true)
      expect(await store.removeWallet('mer_1')).toBe(false)
      expect(await store.getWallet('mer_1')).toBeNull()
    })

    it('lists every wallet by merchant id', async () => {
      await store.setWallet(wallet('mer_b', 'b2'))
      await store.setWallet(wallet('mer_a', 'a1'))
      expect((await store.listWallets()).map((record) => record.merchantId)).toEqual(['mer_a', 'mer_b'])
    })

    it("refuses another merchant's TRON account key or Solana seed, and keeps what was there", async () => {
      await store.setWallet(wallet('mer_1', 'a1'))
      await store.setWallet(wallet('mer_2', 'b2'))
      const sameTron = { ...wallet('mer_2', 'c3'), tronAccountKeyFingerprint: 'tron-a1' }
      const sameSolana = { ...wallet('mer_3', 'd4'), solanaAddress0: 'sol-a1' }
      await expect(store.setWallet(sameTron)).rejects.toBeInstanceOf(WalletKeyInUseError)
      await expect(store.setWallet(sameSolana)).rejects.toBeInstanceOf(WalletKeyInUseError)
      expect(await store.getWallet('mer_2')).toEqual(wallet('mer_2', 'b2'))
      expect(await store.getWallet('mer_3')).toBeNull()
    })

    it('frees the keys of a removed wallet', async () => {
      await store.setWallet(wallet('mer_1', 'a1'))
      await store.removeWallet('mer_1')
      await store.setWallet(wallet('mer_2', 'a1'))
      expect((await store.getWallet('mer_2'))?.walletId).toBe(wallet('mer_2', 'a1').walletId)
    })

    it('replaces a sealed seed only while it is still the one expected', async () => {
      const set = wallet('mer_1', 'a1')
      await store.setWallet(set)
      expect(await store.replaceSealedSeed('mer_1', 'not-the-seed', 'resealed-1')).toBe(false)
      expect(await store.replaceSealedSeed('mer_1', set.sealedSolanaSeed, 'resealed-1')).toBe(true)
      expect(await store.getWallet('mer_1')).toEqual({ ...set, sealedSolanaSeed: 'resealed-1' })
      // a second run that read the value of before changes nothing
      expect(await store.replaceSealedSeed('mer_1', set.sealedSolanaSeed, 'resealed-2')).toBe(false)
      expect(await store.replaceSealedSeed('mer_9', set.sealedSolanaSeed, 'resealed-2')).toBe(false)
      expect((await store.getWallet('mer_1'))?.sealedSolanaSeed).toBe('resealed-1')
    })
  })
}
