// Deposit addresses (docs/treasury.md, "Derivation paths"): a customer's address, derived from the
// same wallet as payment addresses on a branch of its own that no payment address can take.
// TRON: m/44'/195'/0'/2/j, branch 2 of the account whose xpub the service holds (payments take branch
// 0; branch 1 is BIP44's change chain, left to wallets), so it stays watch-only. Solana:
// m/44'/501'/j'/2', whose last level is never the 0' of a payment's m/44'/501'/i'/0'.

import type { Chain } from '@chainpay/domain'
import { base58 } from '@scure/base'
import { HDKey } from '@scure/bip32'
import { deriveEd25519PublicKey } from './solana-address.js'
import {
  assertAddressIndex,
  type DerivedAddress,
  TRON_ACCOUNT_PATH,
  tronAddressFromPublicKey,
} from './tron-address.js'

/** the BIP32 branch of deposit addresses under the TRON account, and the last level on Solana */
export const DEPOSIT_BRANCH = 2

export function tronDepositPath(index: number): string {
  assertAddressIndex(index)
  return `${TRON_ACCOUNT_PATH}/${DEPOSIT_BRANCH}/${index}`
}

export function solanaDepositPath(index: number): string {
  assertAddressIndex(index)
  return `m/44'/501'/${index}'/${DEPOSIT_BRANCH}'`
}

/** whether a recorded derivation path is a deposit address's (a sweep plan tells the two apart by it) */
export function isDepositDerivationPath(path: string): boolean {
  return (
    new RegExp(`^m/44'/195'/0'/${DEPOSIT_BRANCH}/\\d+$`).test(path) ||
    new RegExp(`^m/44'/501'/\\d+'/${DEPOSIT_BRANCH}'$`).test(path)
  )
}

export function createDepositAddressDeriver(keys: {
  tronAccountXpub: string
  solanaSeed: Uint8Array | string
}): (chain: Chain, index: number) => DerivedAddress {
  const tronBranch = HDKey.fromExtendedKey(keys.tronAccountXpub).deriveChild(DEPOSIT_BRANCH)
  return (chain, index) => {
    switch (chain) {
      case 'TRON': {
        const derivationPath = tronDepositPath(index)
        const publicKey = tronBranch.deriveChild(index).publicKey
        if (!publicKey) throw new Error(`no public key at ${derivationPath}`)
        return { address: tronAddressFromPublicKey(publicKey), derivationPath }
      }
      case 'SOLANA': {
        const derivationPath = solanaDepositPath(index)
        return {
          address: base58.encode(deriveEd25519PublicKey(keys.solanaSeed, derivationPath)),
          derivationPath,
        }
      }
    }
  }
}
