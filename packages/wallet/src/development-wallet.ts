// The wallet the standalone mode creates on first start (docs/chains.md, "Key material"). It holds the
// mnemonic, so only development setups keep one; production gets just the xpub and the seed.

import { bytesToHex } from '@noble/hashes/utils.js'
import { HDKey } from '@scure/bip32'
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { TRON_ACCOUNT_PATH } from './tron-address.js'

export interface DevelopmentWallet {
  /** BIP39 English mnemonic */
  mnemonic: string
  /** extended public key of m/44'/195'/0' */
  tronAccountXpub: string
  /** hex of the BIP39 seed (no passphrase), the SLIP-0010 input for Solana */
  solanaSeed: string
}

const MNEMONIC_STRENGTH_BITS = 256

/** a new wallet with a random 24-word mnemonic */
export function createDevelopmentWallet(): DevelopmentWallet {
  return walletFromMnemonic(generateMnemonic(wordlist, MNEMONIC_STRENGTH_BITS))
}

export function walletFromMnemonic(mnemonic: string): DevelopmentWallet {
  const words = mnemonic.trim().split(/\s+/).join(' ')
  if (!validateMnemonic(words, wordlist)) {
    throw new Error('not a valid BIP39 English mnemonic (unknown word, wrong length or bad checksum)')
  }
  const seed = mnemonicToSeedSync(words)
  return {
    mnemonic: words,
    tronAccountXpub: HDKey.fromMasterSeed(seed).derive(TRON_ACCOUNT_PATH).publicExtendedKey,
    solanaSeed: bytesToHex(seed),
  }
}
