// TRON receiving addresses, derived watch-only from the account-level extended public key
// (docs/chains.md, "Key material": the service holds no TRON private key).
import { ECDH } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createBase58check } from '@scure/base'
import { HDKey } from '@scure/bip32'

/** m/44'/195'/0': the account whose extended public key the service is given */
export const TRON_ACCOUNT_PATH = "m/44'/195'/0'"

const TRON_ADDRESS_PREFIX = 0x41
const ACCOUNT_DEPTH = 3
const base58check = createBase58check(sha256)

export interface DerivedAddress {
  address: string
  derivationPath: string
}

/** Derives external-chain addresses `m/44'/195'/0'/0/i` from the account xpub, with no private key. */
export function createTronAddressDeriver(accountXpub: string): (index: number) => DerivedAddress {
  const account = HDKey.fromExtendedKey(accountXpub)
  if (account.privateKey) {
    throw new Error('the TRON account key must be an extended public key (xpub), not a private one')
  }
  if (account.depth !== ACCOUNT_DEPTH) {
    throw new Error(`the TRON extended public key must be the account key ${TRON_ACCOUNT_PATH} (depth 3)`)
  }
  const externalChain = account.deriveChild(0)
  precomputeBasePoint()
  return (index) => {
    assertAddressIndex(index)
    const publicKey = externalChain.deriveChild(index).publicKey
    if (!publicKey) throw new Error(`no public key at TRON address index ${index}`)
    return {
      address: tronAddressFromPublicKey(publicKey),
      derivationPath: `${TRON_ACCOUNT_PATH}/0/${index}`,
    }
  }
}

export function deriveTronAddress(accountXpub: string, index: number): DerivedAddress {
  return createTronAddressDeriver(accountXpub)(index)
}

/** 0x41 || last 20 bytes of keccak256(X || Y), Base58Check: always 34 characters starting with T */
export function tronAddressFromPublicKey(publicKey: Uint8Array): string {
  // OpenSSL's point decompression: the same result as @noble/curves' Point.fromBytes(...).toBytes(false),
  // several times faster, and it is on the hot path of every TRON payment's creation
  const uncompressed = ECDH.convertKey(publicKey, 'secp256k1', undefined, undefined, 'uncompressed') as Buffer
  const digest = keccak_256(uncompressed.subarray(1))
  const payload = new Uint8Array(21)
  payload[0] = TRON_ADDRESS_PREFIX
  payload.set(digest.subarray(digest.length - 20), 1)
  return base58check.encode(payload)
}

/** non-hardened BIP32 child indexes: 0 <= index < 2^31 */
export function assertAddressIndex(index: number): void {
  if (!Number.isSafeInteger(index) || index < 0 || index >= 0x80000000) {
    throw new RangeError(`address index must be an integer from 0 to 2147483647, got ${index}`)
  }
}

let basePointPrecomputed = false

/**
 * A payment's creation waits for its address: trade memory for a faster fixed-base multiplication,
 * once per process (@scure/bip32 shares this curve instance).
 */
function precomputeBasePoint(): void {
  if (basePointPrecomputed) return
  secp256k1.Point.BASE.precompute(8, false)
  basePointPrecomputed = true
}
