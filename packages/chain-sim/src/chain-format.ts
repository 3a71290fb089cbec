// What hashes and addresses look like on each chain, so that code reading the simulator sees the
// same shapes it will see from real nodes.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import type { Chain } from '@chainpay/domain'
import { base58, createBase58check } from '@scure/base'
import { PublicKey } from '@solana/web3.js'

/** how a simulated transaction fails on chain: TRON's contract results; Solana's instruction error */
export const SIMULATED_FAILURES = ['REVERT', 'OUT_OF_ENERGY', 'INSTRUCTION_ERROR'] as const
export type SimulatedFailure = (typeof SIMULATED_FAILURES)[number]

export interface ChainFormat {
  /** parent of block 1 */
  genesisParentHash: string
  /**
   * blocks on top of a block before the chain treats it as final: TRON solidifies a block once 18
   * more blocks by distinct producers exist; Solana finalizes a slot with 31 confirmed blocks on top
   */
  finalityDepth: number
  /** how the chain's transactions fail on chain, the first being what a plain `fail` means */
  failures: readonly SimulatedFailure[]
  defaultFailure: SimulatedFailure
  newTxHash(): string
  newBlockHash(height: number): string
  newAddress(): string
}

const TRON_ADDRESS_PREFIX = 0x41
const base58check = createBase58check(sha256)

const tronFormat: ChainFormat = {
  genesisParentHash: '0'.repeat(64),
  finalityDepth: 18,
  failures: ['REVERT', 'OUT_OF_ENERGY'],
  defaultFailure: 'REVERT',
  // txID: 32 bytes of lower-case hex
  newTxHash: () => randomBytes(32).toString('hex'),
  // blockID: the 8-byte big-endian block number, then 24 bytes of hash (java-tron's layout)
  newBlockHash: (height) => height.toString(16).padStart(16, '0') + randomBytes(24).toString('hex'),
  newAddress: () => encodeTronAddress(randomBytes(20)),
}

const solanaFormat: ChainFormat = {
  genesisParentHash: base58Encode(new Uint8Array(32)),
  finalityDepth: 31,
  failures: ['INSTRUCTION_ERROR'],
  defaultFailure: 'INSTRUCTION_ERROR',
  // a transaction signature: 64 bytes
  newTxHash: () => base58Encode(randomBytes(64)),
  newBlockHash: () => base58Encode(randomBytes(32)),
  newAddress: () => base58Encode(offCurveKey()),
}

/**
 * 32 random bytes that are no ed25519 point (about every other draw): an address no key signs for,
 * as a program-derived one, which the simulator's transfer routes take for a token account when
 * tokens are sent to it, never for a wallet whose associated account would receive them
 */
function offCurveKey(): Uint8Array {
  for (;;) {
    const bytes = randomBytes(32)
    if (!PublicKey.isOnCurve(bytes)) return bytes
  }
}

export function chainFormat(chain: Chain): ChainFormat {
  return chain === 'TRON' ? tronFormat : solanaFormat
}

/**
 * a random, well-formed address of the chain: base58check 0x41 || 20 bytes, or a base58 32-byte
 * key off the curve (an account nobody owns a key to: tokens sent to it stay there, as at a token
 * account; simulatedWalletAddress is a wallet's)
 */
export function simulatedAddress(chain: Chain): string {
  return chainFormat(chain).newAddress()
}

/**
 * the address of a wallet, as a payment's is: on Solana a real ed25519 public key, which token
 * accounts can be derived for (an off-curve key has no associated token account)
 */
export function simulatedWalletAddress(chain: Chain): string {
  if (chain === 'TRON') return simulatedAddress(chain)
  const spki = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' })
  // an Ed25519 SubjectPublicKeyInfo is a 12-byte header and the key
  return base58Encode(new Uint8Array(spki.subarray(spki.length - 32)))
}

/** Base58 with leading zero bytes as '1's (Bitcoin alphabet), the encoding of both chains */
export function base58Encode(bytes: Uint8Array): string {
  return base58.encode(bytes)
}

/** Base58Check of 0x41 || the 20-byte account id (double SHA-256 checksum) */
export function encodeTronAddress(accountId: Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError(`a TRON account id is 20 bytes, got ${accountId.length}`)
  const payload = new Uint8Array(21)
  payload[0] = TRON_ADDRESS_PREFIX
  payload.set(accountId, 1)
  return base58check.encode(payload)
}

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest())
}
