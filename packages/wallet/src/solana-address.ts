// Solana receiving addresses: SLIP-0010 ed25519, hardened only, so they are derived where the
// seed is (SLIP-0010: ed25519 has no public-parent derivation).

import { ed25519 } from '@noble/curves/ed25519.js'
import { hexToBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
import { HARDENED_OFFSET, HDKey } from 'micro-key-producer/slip10.js'
import { assertAddressIndex, type DerivedAddress } from './tron-address.js'

const MIN_SEED_BYTES = 16
const MAX_SEED_BYTES = 64

/** the Phantom / Solflare / Ledger Live layout: m/44'/501'/i'/0' */
export function solanaDerivationPath(index: number): string {
  assertAddressIndex(index)
  return `m/44'/501'/${index}'/0'`
}

/** Derives `m/44'/501'/i'/0'` addresses from the `m/44'/501'` key, derived once. */
export function createSolanaAddressDeriver(seed: Uint8Array | string): (index: number) => DerivedAddress {
  const coin = HDKey.fromMasterSeed(seedBytes(seed)).derive("m/44'/501'")
  precomputeBasePoint()
  return (index) => {
    const derivationPath = solanaDerivationPath(index)
    const key = coin.deriveChild(HARDENED_OFFSET + index).deriveChild(HARDENED_OFFSET)
    return { address: base58.encode(key.publicKeyRaw), derivationPath }
  }
}

export function deriveSolanaAddress(seed: Uint8Array | string, index: number): DerivedAddress {
  return createSolanaAddressDeriver(seed)(index)
}

/** the raw 32-byte ed25519 public key at a hardened SLIP-0010 path */
export function deriveEd25519PublicKey(seed: Uint8Array | string, path: string): Uint8Array {
  return HDKey.fromMasterSeed(seedBytes(seed)).derive(path).publicKeyRaw
}

function seedBytes(seed: Uint8Array | string): Uint8Array {
  const bytes = typeof seed === 'string' ? parseHexSeed(seed) : seed
  if (bytes.length < MIN_SEED_BYTES || bytes.length > MAX_SEED_BYTES) {
    throw new RangeError(`the seed must be 16 to 64 bytes, got ${bytes.length}`)
  }
  return bytes
}

function parseHexSeed(text: string): Uint8Array {
  if (!/^([0-9a-fA-F]{2})+$/.test(text)) throw new Error('the seed must be hex text (pairs of 0-9a-f)')
  return hexToBytes(text.toLowerCase())
}

let basePointPrecomputed = false

/**
 * A payment's creation waits for its address: trade memory for a faster fixed-base multiplication,
 * once per process (micro-key-producer shares this curve instance).
 */
function precomputeBasePoint(): void {
  if (basePointPrecomputed) return
  ed25519.Point.BASE.precompute(8, false)
  basePointPrecomputed = true
}
