import { HDKey } from '@scure/bip32'
import { mnemonicToSeedSync } from '@scure/bip39'
import { describe, expect, it } from 'vitest'
import { walletFromMnemonic } from './development-wallet.js'
import { deriveTronAddress, TRON_ACCOUNT_PATH, tronAddressFromPublicKey } from './tron-address.js'

const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

// the published vectors of the BIP39 test mnemonic (Ian Coleman's BIP39 tool, the Ledger TRON app's tests)
const PUBLISHED_TRON_ADDRESSES = [
  'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH',
  'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK',
  'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx',
]

describe('deriveTronAddress', () => {
  const { tronAccountXpub } = walletFromMnemonic(ABANDON_MNEMONIC)

  it('derives the published addresses from the account xpub alone', () => {
    PUBLISHED_TRON_ADDRESSES.forEach((expected, index) => {
      expect(deriveTronAddress(tronAccountXpub, index)).toEqual({
        address: expected,
        derivationPath: `m/44'/195'/0'/0/${index}`,
      })
    })
  })

  it('equals the derivation along the private path', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON_MNEMONIC))
    for (const index of [0, 1, 2, 7, 2_147_483_647]) {
      const privatePath = root.derive(`m/44'/195'/0'/0/${index}`)
      expect(privatePath.privateKey).not.toBeNull()
      expect(deriveTronAddress(tronAccountXpub, index).address).toBe(
        tronAddressFromPublicKey(privatePath.publicKey as Uint8Array),
      )
    }
  })

  it('gives a distinct, stable, well-formed address per index', () => {
    const addresses = Array.from(
      { length: 50 },
      (_, index) => deriveTronAddress(tronAccountXpub, index).address,
    )
    expect(new Set(addresses).size).toBe(50)
    expect(addresses.every((address) => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(address))).toBe(true)
    expect(deriveTronAddress(tronAccountXpub, 9).address).toBe(addresses[9])
  })

  it('rejects indexes outside the non-hardened range', () => {
    for (const index of [-1, 0.5, 2_147_483_648, Number.NaN]) {
      expect(() => deriveTronAddress(tronAccountXpub, index)).toThrow(RangeError)
    }
  })

  it('refuses a private extended key and a key that is not the account key', () => {
    const root = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON_MNEMONIC))
    expect(() => deriveTronAddress(root.derive(TRON_ACCOUNT_PATH).privateExtendedKey, 0)).toThrow(/xpub/)
    expect(() => deriveTronAddress(root.publicExtendedKey, 0)).toThrow(/depth 3/)
  })
})

// The library's BIP32 public derivation is what the watch-only path relies on; check it against
// the specification's test vector 1 (bitcoin/bips bip-0032.mediawiki).
describe('BIP32 test vector 1', () => {
  const seed = Uint8Array.from(Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex'))
  const expected =
    'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy'

  it("derives m/0'/1/2'/2/1000000000 from the seed", () => {
    expect(HDKey.fromMasterSeed(seed).derive("m/0'/1/2'/2/1000000000").publicExtendedKey).toBe(expected)
  })

  it("derives the same key publicly from the xpub of m/0'/1/2'", () => {
    const parentXpub = HDKey.fromMasterSeed(seed).derive("m/0'/1/2'").publicExtendedKey
    expect(parentXpub).toBe(
      'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
    )
    const child = HDKey.fromExtendedKey(parentXpub).deriveChild(2).deriveChild(1_000_000_000)
    expect(child.privateKey).toBeNull()
    expect(child.publicExtendedKey).toBe(expected)
  })
})
