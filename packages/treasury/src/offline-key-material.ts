// chainpay-wallet mnemonic and treasury (docs/treasury.md, "Making the key material"): a new
// mnemonic, and the treasury's address and key from one, made offline like `keys` and `sign`. What
// is secret goes to a new file of mode 0600 (or, for a mnemonic, to stdout when asked), never to a
// line of the command's own output.

import { writeFileSync } from 'node:fs'
import { tronAddressFromPublicKey } from '@chainpay/wallet'
import { bytesToHex } from '@noble/hashes/utils.js'
import { HDKey } from '@scure/bip32'
import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { Keypair } from '@solana/web3.js'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { CommandError } from './command-error.js'

/** 24 words, as the development wallet's and hardware wallets' */
const MNEMONIC_STRENGTH_BITS = 256

/** a new random BIP39 English mnemonic of 24 words (@scure/bip39, the platform's CSPRNG) */
export function newMnemonic(): string {
  return generateMnemonic(wordlist, MNEMONIC_STRENGTH_BITS)
}

/**
 * Creates `path` holding `content`, mode 0600; a file already there (another mnemonic, a link
 * planted elsewhere) is never replaced. `flag` names the option, for the message.
 */
export function createSecretFile(path: string, content: string, flag: string): void {
  try {
    writeFileSync(path, content, { mode: 0o600, flag: 'wx' })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error'
    const why = code === 'EEXIST' ? 'it exists, and is never overwritten: name a new file' : code
    throw new CommandError(`${flag}: cannot create ${path}: ${why}`)
  }
}

export interface TreasuryKey {
  address: string
  derivationPath: string
  /** what `sign --treasury-key-file` reads: TRON 64 hex digits, Solana the 64-byte secret key as a JSON array */
  keyFile: string
}

/**
 * The treasury's key at `derivationPath` of the mnemonic: TRON by BIP32 (secp256k1), Solana by
 * SLIP-0010 (ed25519, hardened steps only), as `sign` derives them (plan-signer.ts).
 */
export function treasuryKeyOf(
  chain: 'TRON' | 'SOLANA',
  mnemonic: string,
  derivationPath: string,
  source: string,
): TreasuryKey {
  const words = mnemonic.trim().split(/\s+/).join(' ')
  if (!validateMnemonic(words, wordlist)) {
    throw new CommandError(
      `${source}: not a valid BIP39 English mnemonic (unknown word, wrong length or bad checksum)`,
    )
  }
  const prefix = chain === 'TRON' ? "m/44'/195'/" : "m/44'/501'"
  if (!derivationPath.startsWith(prefix)) {
    throw new CommandError(`--path: a ${chain} key's path starts with ${prefix}, got ${derivationPath}`)
  }
  const seed = mnemonicToSeedSync(words)
  try {
    if (chain === 'TRON') {
      const node = HDKey.fromMasterSeed(seed).derive(derivationPath)
      if (!node.privateKey || !node.publicKey) throw new Error('no private key')
      return {
        address: tronAddressFromPublicKey(node.publicKey),
        derivationPath,
        keyFile: `${bytesToHex(node.privateKey)}\n`,
      }
    }
    const keypair = Keypair.fromSeed(Slip10Key.fromMasterSeed(seed).derive(derivationPath).privateKey)
    return {
      address: keypair.publicKey.toBase58(),
      derivationPath,
      keyFile: `${JSON.stringify([...keypair.secretKey])}\n`,
    }
  } catch (error) {
    if (error instanceof CommandError) throw error
    // the libraries' messages name the path, never a key
    throw new CommandError(`--path ${derivationPath}: ${(error as Error).message}`)
  }
}
