// What hashes and addresses look like on each chain, so that code reading the simulator sees the
// same shapes it will see from real nodes.
import { createHash, randomBytes } from 'node:crypto'
import type { Chain } from '@chainpay/domain'

export interface ChainFormat {
  /** parent of block 1 */
  genesisParentHash: string
  newTxHash(): string
  newBlockHash(height: number): string
  newAddress(): string
}

const BASE58_ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const TRON_ADDRESS_PREFIX = 0x41

const tronFormat: ChainFormat = {
  genesisParentHash: '0'.repeat(64),
  // txID: 32 bytes of lower-case hex
  newTxHash: () => randomBytes(32).toString('hex'),
  // blockID: the 8-byte big-endian block number, then 24 bytes of hash (java-tron's layout)
  newBlockHash: (height) => height.toString(16).padStart(16, '0') + randomBytes(24).toString('hex'),
  newAddress: () => encodeTronAddress(randomBytes(20)),
}

const solanaFormat: ChainFormat = {
  genesisParentHash: base58Encode(new Uint8Array(32)),
  // a transaction signature: 64 bytes
  newTxHash: () => base58Encode(randomBytes(64)),
  newBlockHash: () => base58Encode(randomBytes(32)),
  newAddress: () => base58Encode(randomBytes(32)),
}

export function chainFormat(chain: Chain): ChainFormat {
  return chain === 'TRON' ? tronFormat : solanaFormat
}

/** a random, well-formed address of the chain: base58check 0x41 || 20 bytes, or a base58 32-byte key */
export function simulatedAddress(chain: Chain): string {
  return chainFormat(chain).newAddress()
}

// Base58 with leading zero bytes as '1's (Bitcoin alphabet), the encoding of both chains.
export function base58Encode(bytes: Uint8Array): string {
  let value = 0n
  for (const byte of bytes) value = value * 256n + BigInt(byte)
  let text = ''
  while (value > 0n) {
    text = BASE58_ALPHABET.charAt(Number(value % 58n)) + text
    value /= 58n
  }
  for (const byte of bytes) {
    if (byte !== 0) break
    text = `1${text}`
  }
  return text
}

/** Base58Check of 0x41 || the 20-byte account id (double SHA-256 checksum) */
export function encodeTronAddress(accountId: Uint8Array): string {
  if (accountId.length !== 20) throw new RangeError(`a TRON account id is 20 bytes, got ${accountId.length}`)
  const payload = Buffer.concat([Buffer.from([TRON_ADDRESS_PREFIX]), accountId])
  const checksum = sha256(sha256(payload)).subarray(0, 4)
  return base58Encode(Buffer.concat([payload, checksum]))
}

function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest()
}
