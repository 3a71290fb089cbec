import { bytesToHex } from '@noble/hashes/utils.js'
import { mnemonicToSeedSync } from '@scure/bip39'
import { describe, expect, it } from 'vitest'
import { deriveEd25519PublicKey, deriveSolanaAddress, solanaDerivationPath } from './solana-address.js'

const ABANDON_SEED = mnemonicToSeedSync(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)

describe('deriveSolanaAddress', () => {
  it("derives the published address at m/44'/501'/0'/0' (Phantom's and Solflare's first address of the BIP39 test mnemonic)", () => {
    expect(deriveSolanaAddress(ABANDON_SEED, 0)).toEqual({
      address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk',
      derivationPath: "m/44'/501'/0'/0'",
    })
  })

  it('accepts the seed as hex text, in either case', () => {
    const hex = bytesToHex(ABANDON_SEED)
    expect(deriveSolanaAddress(hex, 3)).toEqual(deriveSolanaAddress(ABANDON_SEED, 3))
    expect(deriveSolanaAddress(hex.toUpperCase(), 3)).toEqual(deriveSolanaAddress(ABANDON_SEED, 3))
  })

  it('gives a distinct, stable base58 address per index', () => {
    const addresses = Array.from(
      { length: 30 },
      (_, index) => deriveSolanaAddress(ABANDON_SEED, index).address,
    )
    expect(new Set(addresses).size).toBe(30)
    expect(addresses.every((address) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(address))).toBe(true)
    expect(deriveSolanaAddress(ABANDON_SEED, 4).address).toBe(addresses[4])
  })

  it('rejects malformed seeds and indexes', () => {
    expect(() => deriveSolanaAddress('abc', 0)).toThrow(/hex/)
    expect(() => deriveSolanaAddress('zz'.repeat(32), 0)).toThrow(/hex/)
    expect(() => deriveSolanaAddress(new Uint8Array(8), 0)).toThrow(RangeError)
    expect(() => deriveSolanaAddress(ABANDON_SEED, -1)).toThrow(RangeError)
    expect(() => solanaDerivationPath(2 ** 31)).toThrow(RangeError)
  })
})

// satoshilabs/slips slip-0010.md, "Test vector 1 for ed25519"; the spec prints public keys with a
// leading 00 byte before the 32-byte key.
describe('SLIP-0010 ed25519 test vector 1', () => {
  const seed = '000102030405060708090a0b0c0d0e0f'

  it('derives the master public key', () => {
    expect(`00${bytesToHex(deriveEd25519PublicKey(seed, 'm'))}`).toBe(
      '00a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed',
    )
  })

  it("derives m/0'/1'/2'/2'/1000000000'", () => {
    expect(`00${bytesToHex(deriveEd25519PublicKey(seed, "m/0'/1'/2'/2'/1000000000'"))}`).toBe(
      '003c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a',
    )
  })

  it('refuses non-hardened steps, which ed25519 cannot derive', () => {
    expect(() => deriveEd25519PublicKey(seed, 'm/0')).toThrow(/hardened/i)
  })
})
