import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hexToBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { HDKey as Slip10Key } from 'micro-key-producer/slip10.js'
import { describe, expect, it } from 'vitest'
import { createAddressDeriver } from './address-deriver.js'
import { createDepositAddressDeriver, isDepositDerivationPath } from './deposit-address-deriver.js'
import { walletFromMnemonic } from './development-wallet.js'
import { tronAddressFromPublicKey } from './tron-address.js'

const wallet = walletFromMnemonic(
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
)
const seed = hexToBytes(wallet.solanaSeed)
const deposits = createDepositAddressDeriver(wallet)
const payments = createAddressDeriver(wallet)

describe('deposit addresses (docs/treasury.md, "Derivation paths")', () => {
  it('derives TRON deposit addresses on branch 2 of the account, watch-only, as the mnemonic signs them', () => {
    const derived = deposits('TRON', 7)
    expect(derived.derivationPath).toBe("m/44'/195'/0'/2/7")
    // the offline signer derives the private key at the recorded path from the mnemonic alone
    const privateKey = HDKey.fromMasterSeed(seed).derive(derived.derivationPath).privateKey
    if (!privateKey) throw new Error('no private key')
    expect(tronAddressFromPublicKey(secp256k1.getPublicKey(privateKey, true))).toBe(derived.address)
  })

  it("derives Solana deposit addresses at m/44'/501'/j'/2', as the mnemonic signs them", () => {
    const derived = deposits('SOLANA', 3)
    expect(derived.derivationPath).toBe("m/44'/501'/3'/2'")
    const key = Slip10Key.fromMasterSeed(seed).derive(derived.derivationPath)
    expect(base58.encode(key.publicKeyRaw)).toBe(derived.address)
  })

  it('never derives an address a payment index takes, on either chain', () => {
    for (const chain of ['TRON', 'SOLANA'] as const) {
      const paymentAddresses = new Set(
        Array.from({ length: 20 }, (_, i) => payments.deriveChainAddress(chain, i).address),
      )
      for (let j = 0; j < 20; j++) {
        const deposit = deposits(chain, j)
        expect(paymentAddresses.has(deposit.address)).toBe(false)
        expect(isDepositDerivationPath(deposit.derivationPath)).toBe(true)
        expect(isDepositDerivationPath(payments.deriveChainAddress(chain, j).derivationPath)).toBe(false)
      }
    }
  })

  it("is the wallet deriver's deposit branch", () => {
    expect(payments.deriveDepositAddress('TRON', 1)).toEqual(deposits('TRON', 1))
    expect(payments.deriveDepositAddress('SOLANA', 1)).toEqual(deposits('SOLANA', 1))
  })
})
