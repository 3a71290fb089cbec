import { bytesToHex } from '@noble/hashes/utils.js'
import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { describe, expect, it } from 'vitest'
import { createDevelopmentWallet, walletFromMnemonic } from './development-wallet.js'
import { deriveSolanaAddress } from './solana-address.js'
import { deriveTronAddress } from './tron-address.js'

const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

describe('createDevelopmentWallet', () => {
  it('creates a fresh 24-word English mnemonic with its xpub and seed', () => {
    const wallet = createDevelopmentWallet()
    expect(wallet.mnemonic.split(' ')).toHaveLength(24)
    expect(validateMnemonic(wallet.mnemonic, wordlist)).toBe(true)
    expect(wallet).toEqual(walletFromMnemonic(wallet.mnemonic))
    expect(createDevelopmentWallet().mnemonic).not.toBe(wallet.mnemonic)
  })
})

describe('walletFromMnemonic', () => {
  it("holds the account xpub of m/44'/195'/0' and the hex BIP39 seed", () => {
    const wallet = walletFromMnemonic(ABANDON_MNEMONIC)
    const seed = mnemonicToSeedSync(ABANDON_MNEMONIC)
    expect(wallet.solanaSeed).toBe(bytesToHex(seed))
    expect(wallet.solanaSeed).toMatch(/^[0-9a-f]{128}$/)
    const account = HDKey.fromExtendedKey(wallet.tronAccountXpub)
    expect(account.depth).toBe(3)
    expect(account.privateKey).toBeNull()
    expect(wallet.tronAccountXpub).toMatch(/^xpub/)
    expect(deriveTronAddress(wallet.tronAccountXpub, 0).address).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')
    expect(deriveSolanaAddress(wallet.solanaSeed, 0).address).toBe(
      'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
    )
  })

  it('tolerates surrounding and repeated whitespace', () => {
    expect(walletFromMnemonic(`  ${ABANDON_MNEMONIC.replaceAll(' ', '  ')}\n`)).toEqual(
      walletFromMnemonic(ABANDON_MNEMONIC),
    )
  })

  it('rejects a bad checksum and unknown words', () => {
    expect(() => walletFromMnemonic(ABANDON_MNEMONIC.replace('about', 'abandon'))).toThrow(/mnemonic/)
    expect(() => walletFromMnemonic('hello world')).toThrow(/mnemonic/)
  })
})
