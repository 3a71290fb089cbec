import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { Keypair } from '@solana/web3.js'
import { HDKey as Slip10 } from 'micro-key-producer/slip10.js'
import { describe, expect, it } from 'vitest'
import { walletFromMnemonic } from './development-wallet.js'
import { assertWalletNotInUse, MerchantWalletError, merchantWalletPublicParts } from './merchant-wallet.js'

const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const OTHER_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow'

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof MerchantWalletError) return error.code
    throw error
  }
  return undefined
}

describe('merchantWalletPublicParts', () => {
  const operator = walletFromMnemonic(ABANDON_MNEMONIC)
  const merchant = walletFromMnemonic(OTHER_MNEMONIC)

  it('gives the xpub, a key fingerprint and the Solana address of index 0, checked with @solana/web3.js', () => {
    const parts = merchantWalletPublicParts(merchant)
    const seed = mnemonicToSeedSync(OTHER_MNEMONIC)
    const index0 = Keypair.fromSeed(Slip10.fromMasterSeed(seed).derive("m/44'/501'/0'/0'").privateKey)
    expect(parts.tronAccountXpub).toBe(merchant.tronAccountXpub)
    expect(parts.solanaAddress0).toBe(index0.publicKey.toBase58())
    expect(parts.walletId).toMatch(/^w_[0-9a-f]{20}$/)
    expect(parts.tronAccountKeyFingerprint).toMatch(/^[0-9a-f]{64}$/)
  })

  it('names the same keys by the same id and different keys by different ids', () => {
    expect(merchantWalletPublicParts(merchant)).toEqual(merchantWalletPublicParts({ ...merchant }))
    expect(merchantWalletPublicParts(merchant).walletId).not.toBe(
      merchantWalletPublicParts(operator).walletId,
    )
  })

  it('never puts the seed in its answer', () => {
    expect(JSON.stringify(merchantWalletPublicParts(merchant))).not.toContain(merchant.solanaSeed)
  })

  it('refuses an extended private key, even of the right account', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(OTHER_MNEMONIC))
    const xprv = root.derive("m/44'/195'/0'").privateExtendedKey
    expect(codeOf(() => merchantWalletPublicParts({ ...merchant, tronAccountXpub: xprv }))).toBe(
      'INVALID_TRON_XPUB',
    )
  })

  it('refuses an xpub of another depth or another account', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(OTHER_MNEMONIC))
    for (const path of ['m', "m/44'/195'", "m/44'/195'/0'/0", "m/44'/195'/1'"]) {
      const xpub = root.derive(path).publicExtendedKey
      expect(codeOf(() => merchantWalletPublicParts({ ...merchant, tronAccountXpub: xpub }))).toBe(
        'INVALID_TRON_XPUB',
      )
    }
  })

  it('refuses text that is no extended key', () => {
    for (const text of ['', 'xpub', `${merchant.tronAccountXpub.slice(0, -1)}x`]) {
      expect(codeOf(() => merchantWalletPublicParts({ ...merchant, tronAccountXpub: text }))).toBe(
        'INVALID_TRON_XPUB',
      )
    }
  })

  it('refuses a seed that is not 16 to 64 bytes of hex, without quoting it', () => {
    for (const solanaSeed of ['', 'zz'.repeat(32), 'ab'.repeat(15), 'ab'.repeat(65), new Uint8Array(8)]) {
      let message = ''
      try {
        merchantWalletPublicParts({ ...merchant, solanaSeed })
      } catch (error) {
        expect(error).toBeInstanceOf(MerchantWalletError)
        expect((error as MerchantWalletError).code).toBe('INVALID_SOLANA_SEED')
        message = (error as Error).message
      }
      expect(message).not.toBe('')
      if (typeof solanaSeed === 'string' && solanaSeed !== '') expect(message).not.toContain(solanaSeed)
    }
  })
})

describe('assertWalletNotInUse', () => {
  const operator = merchantWalletPublicParts(walletFromMnemonic(ABANDON_MNEMONIC))
  const merchantKeys = walletFromMnemonic(OTHER_MNEMONIC)
  const merchant = merchantWalletPublicParts(merchantKeys)
  const operatorKeys = walletFromMnemonic(ABANDON_MNEMONIC)

  it('accepts a wallet that shares no key with the others', () => {
    expect(
      codeOf(() => assertWalletNotInUse(merchant, [{ owner: 'the operator', wallet: operator }])),
    ).toBeUndefined()
  })

  it('accepts the wallet being set again on its own merchant (the same id)', () => {
    expect(
      codeOf(() => assertWalletNotInUse(merchant, [{ owner: 'mer_1', wallet: merchant }])),
    ).toBeUndefined()
  })

  it("refuses the operator's TRON xpub with another Solana seed", () => {
    const candidate = merchantWalletPublicParts({
      ...merchantKeys,
      tronAccountXpub: operatorKeys.tronAccountXpub,
    })
    const others = [{ owner: 'the operator', wallet: operator }]
    expect(codeOf(() => assertWalletNotInUse(candidate, others))).toBe('WALLET_ALREADY_IN_USE')
  })

  it("refuses the operator's Solana seed with another TRON xpub", () => {
    const candidate = merchantWalletPublicParts({ ...merchantKeys, solanaSeed: operatorKeys.solanaSeed })
    const others = [{ owner: 'the operator', wallet: operator }]
    expect(codeOf(() => assertWalletNotInUse(candidate, others))).toBe('WALLET_ALREADY_IN_USE')
  })

  it('refuses the same xpub pasted with surrounding white space', () => {
    const candidate = merchantWalletPublicParts({
      ...merchantKeys,
      tronAccountXpub: ` ${operatorKeys.tronAccountXpub}\n`,
    })
    expect(codeOf(() => assertWalletNotInUse(candidate, [{ owner: 'the operator', wallet: operator }]))).toBe(
      'WALLET_ALREADY_IN_USE',
    )
  })
})

describe('merchantWalletPublicParts on version bytes', () => {
  it('refuses a tpub: the address deriver reads mainnet xpub version bytes only', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON_MNEMONIC), {
      private: 0x04358394,
      public: 0x043587cf,
    })
    const tpub = root.derive("m/44'/195'/0'").publicExtendedKey
    expect(tpub.startsWith('tpub')).toBe(true)
    const keys = { ...walletFromMnemonic(OTHER_MNEMONIC), tronAccountXpub: tpub }
    expect(codeOf(() => merchantWalletPublicParts(keys))).toBe('INVALID_TRON_XPUB')
  })
})
