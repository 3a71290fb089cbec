import { describe, expect, it } from 'vitest'
import { base58Encode, chainFormat, encodeTronAddress, simulatedAddress } from './chain-format.js'

// bitcoin/bitcoin src/test/data/base58_encode_decode.json
const BITCOIN_BASE58_VECTORS: Array<[string, string]> = [
  ['', ''],
  ['61', '2g'],
  ['626262', 'a3gV'],
  ['73696d706c792061206c6f6e6720737472696e67', '2cFupjhnEsSn59qHXstmK2ffpLv2'],
  ['00eb15231dfceb60925886b67d065299925915aeb172c06647', '1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L'],
  ['bf4f89001e670274dd', '3SEo3LWLoPntC'],
  ['ecac89cad93923c02321', 'EJDM8drfXA6uyA'],
  ['00000000000000000000', '1111111111'],
]

describe('base58Encode', () => {
  it('encodes the Bitcoin reference vectors, leading zero bytes as 1s', () => {
    for (const [hex, expected] of BITCOIN_BASE58_VECTORS) {
      expect(base58Encode(Buffer.from(hex, 'hex'))).toBe(expected)
    }
  })

  it('encodes 32 zero bytes as the Solana system program id', () => {
    expect(base58Encode(new Uint8Array(32))).toBe('11111111111111111111111111111111')
  })
})

describe('encodeTronAddress', () => {
  it('encodes the USDT contract account id as its published address (the TRC20 contract of Tether)', () => {
    const accountId = Buffer.from('a614f803b6fd780986a42c78ec9c7f77e6ded13c', 'hex')
    expect(encodeTronAddress(accountId)).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')
  })

  it('refuses an account id that is not 20 bytes', () => {
    expect(() => encodeTronAddress(new Uint8Array(21))).toThrow(RangeError)
  })
})

describe('chainFormat', () => {
  it('makes TRON-shaped hashes and addresses', () => {
    const tron = chainFormat('TRON')
    expect(tron.newTxHash()).toMatch(/^[0-9a-f]{64}$/)
    expect(tron.newTxHash()).not.toBe(tron.newTxHash())
    const blockHash = tron.newBlockHash(66_987_627)
    expect(blockHash).toMatch(/^0000000003fe266b[0-9a-f]{48}$/)
    expect(tron.genesisParentHash).toBe('0'.repeat(64))
    expect(simulatedAddress('TRON')).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/)
  })

  it('makes Solana-shaped signatures, block hashes and addresses', () => {
    const solana = chainFormat('SOLANA')
    // 64 bytes in base58 take 86 to 88 characters (fewer only with leading zero bytes)
    expect(solana.newTxHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,88}$/)
    expect(solana.newBlockHash(5)).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    expect(simulatedAddress('SOLANA')).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)
    expect(simulatedAddress('SOLANA')).not.toBe(simulatedAddress('SOLANA'))
  })
})
