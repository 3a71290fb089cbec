import type { Asset } from '@chainpay/domain'
import { describe, expect, it } from 'vitest'
import { createAddressDeriver } from './address-deriver.js'
import { associatedTokenAccount } from './associated-token-account.js'
import { walletFromMnemonic } from './development-wallet.js'

const wallet = walletFromMnemonic(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)
const deriver = createAddressDeriver(wallet)

function asset(fields: Pick<Asset, 'network' | 'chain' | 'currency' | 'tokenStandard' | 'contract'>): Asset {
  return { ...fields, decimals: 6, maxAmountUnits: '1000000000000000' }
}

const TRX = asset({
  network: 'TRON',
  chain: 'TRON',
  currency: 'TRX',
  tokenStandard: 'NATIVE',
  contract: null,
})
const USDT_TRC20 = asset({
  network: 'TRON',
  chain: 'TRON',
  currency: 'USDT',
  tokenStandard: 'TRC20',
  contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
})
const SOL = asset({
  network: 'SOLANA',
  chain: 'SOLANA',
  currency: 'SOL',
  tokenStandard: 'NATIVE',
  contract: null,
})
const USDC_SPL = asset({
  network: 'SOLANA',
  chain: 'SOLANA',
  currency: 'USDC',
  tokenStandard: 'SPL',
  contract: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
})

describe('createAddressDeriver', () => {
  it('derives TRON addresses from the xpub, with no token account, for TRX and TRC20 alike', () => {
    expect(deriver.derive(TRX, 1)).toEqual({
      address: 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
      tokenAccount: null,
      derivationPath: "m/44'/195'/0'/0/1",
      walletId: 'operator',
    })
    expect(deriver.derive(USDT_TRC20, 1)).toEqual(deriver.derive(TRX, 1))
  })

  it('derives Solana owner addresses, with no token account for SOL', () => {
    expect(deriver.derive(SOL, 0)).toEqual({
      address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      tokenAccount: null,
      derivationPath: "m/44'/501'/0'/0'",
      walletId: 'operator',
    })
  })

  it('names the merchant wallet its addresses come from', () => {
    expect(createAddressDeriver(wallet, 'wallet-7').derive(USDC_SPL, 0).walletId).toBe('wallet-7')
  })

  it("adds the owner's associated token account for the SPL asset's mint", () => {
    const derived = deriver.derive(USDC_SPL, 0)
    expect(derived.address).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')
    expect(derived.tokenAccount).toBe(
      associatedTokenAccount('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', USDC_SPL.contract as string),
    )
    expect(derived.tokenAccount).not.toBe(derived.address)
  })

  it('is deterministic and distinct per index on both chains', () => {
    for (const chainAsset of [TRX, USDC_SPL]) {
      const first = Array.from({ length: 10 }, (_, index) => deriver.derive(chainAsset, index))
      const again = Array.from({ length: 10 }, (_, index) =>
        createAddressDeriver(wallet).derive(chainAsset, index),
      )
      expect(again).toEqual(first)
      expect(new Set(first.map((derived) => derived.address)).size).toBe(10)
      expect(new Set(first.map((derived) => derived.derivationPath)).size).toBe(10)
    }
  })

  it('refuses an SPL asset without a mint', () => {
    expect(() => deriver.derive({ ...USDC_SPL, contract: null }, 0)).toThrow(/no mint/)
  })
})
