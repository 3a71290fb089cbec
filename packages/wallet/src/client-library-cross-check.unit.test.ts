// The addresses chainpay derives must be the ones the chains' own client libraries compute from the
// same keys: tronweb for TRON (its mnemonic path and its public-key encoder), @solana/web3.js for
// Solana (its Keypair from the SLIP-0010 child seed) and the token account (its PDA search).

import { mnemonicToSeedSync } from '@scure/bip39'
import { Keypair, PublicKey } from '@solana/web3.js'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { TronWeb } from 'tronweb'
import { describe, expect, it } from 'vitest'
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAccount,
  TOKEN_PROGRAM_ID,
} from './associated-token-account.js'
import { walletFromMnemonic } from './development-wallet.js'
import { deriveSolanaAddress } from './solana-address.js'
import { deriveTronAddress, tronAddressFromPublicKey } from './tron-address.js'

const ABANDON_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
// a second, unrelated mnemonic: agreement on one key could be luck
const LEGAL_MNEMONIC = 'legal winner thank year wave sausage worth useful legal winner thank yellow'
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const INDEXES = [0, 1, 2, 19, 1000, 2_147_483_647]

describe.each([ABANDON_MNEMONIC, LEGAL_MNEMONIC])('addresses of "%s"', (mnemonic) => {
  const { tronAccountXpub, solanaSeed } = walletFromMnemonic(mnemonic)

  it.each(INDEXES)(
    'TRON index %i: the watch-only address is the one tronweb derives from the mnemonic',
    (index) => {
      const account = TronWeb.fromMnemonic(mnemonic, `m/44'/195'/0'/0/${index}`)
      expect(deriveTronAddress(tronAccountXpub, index).address).toBe(account.address)
      // tronweb's own encoder of a public key gives the same text too
      const publicKey = Uint8Array.from(Buffer.from(account.publicKey.replace(/^0x/, ''), 'hex'))
      expect(TronWeb.address.fromHex(TronWeb.address.toHex(account.address))).toBe(account.address)
      expect(tronAddressFromPublicKey(compressed(publicKey))).toBe(account.address)
    },
  )

  it.each(INDEXES.slice(0, 4))(
    "Solana index %i: the address is @solana/web3.js's Keypair of the SLIP-0010 child seed",
    (index) => {
      const { address, derivationPath } = deriveSolanaAddress(solanaSeed, index)
      const child = Slip10Key.fromMasterSeed(mnemonicToSeedSync(mnemonic)).derive(derivationPath)
      const keypair = Keypair.fromSeed(child.privateKey)
      expect(address).toBe(keypair.publicKey.toBase58())
      const [expected] = PublicKey.findProgramAddressSync(
        [
          keypair.publicKey.toBuffer(),
          new PublicKey(TOKEN_PROGRAM_ID).toBuffer(),
          new PublicKey(USDC_MINT).toBuffer(),
        ],
        new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
      )
      expect(associatedTokenAccount(address, USDC_MINT)).toBe(expected.toBase58())
    },
  )
})

/** SEC1 compressed form of an uncompressed (0x04 || X || Y) or compressed secp256k1 key */
function compressed(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length === 33) return publicKey
  const x = publicKey.subarray(1, 33)
  const yIsOdd = (publicKey[64] as number) & 1
  return Uint8Array.from([yIsOdd ? 0x03 : 0x02, ...x])
}
