// A merchant's own wallet (issue 15 item 1): the operator gives a TRON account xpub (watch-only,
// like the operator's wallet) and a Solana seed. These rules validate the keys, name the wallet by
// a fingerprint of its public parts only, and refuse a wallet that would share addresses with
// another one (docs/chains.md, "Key material"; addresses are unique per chain family).

import type { Chain } from '@chainpay/domain'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { HDKey } from '@scure/bip32'
import { deriveSolanaAddress } from './solana-address.js'
import { TRON_ACCOUNT_PATH } from './tron-address.js'

const ACCOUNT_DEPTH = 3
const HARDENED_ZERO = 0x80000000
const WALLET_ID_BYTES = 10

export type MerchantWalletErrorCode = 'INVALID_TRON_XPUB' | 'INVALID_SOLANA_SEED' | 'WALLET_ALREADY_IN_USE'

export class MerchantWalletError extends Error {
  override readonly name = 'MerchantWalletError'
  constructor(
    readonly code: MerchantWalletErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** What may be shown and stored anywhere: never the seed. */
export interface MerchantWalletPublicParts {
  /** `w_` + hex of the first 10 bytes of sha256 over both chains' public key material */
  walletId: string
  tronAccountXpub: string
  /** hex of the account's public key and chain code: the same key whatever the version bytes */
  tronAccountKeyFingerprint: string
  /** the Solana address at index 0 (m/44'/501'/0'/0'), public, identifies the seed */
  solanaAddress0: string
}

/**
 * The public identity of a wallet's key for a chain, which its address indexes are counted by and
 * its pooled addresses named by: the TRON account key fingerprint, the Solana address 0
 */
export function walletKeyIdOf(
  parts: Pick<MerchantWalletPublicParts, 'tronAccountKeyFingerprint' | 'solanaAddress0'>,
  chain: Chain,
): string {
  return chain === 'TRON' ? parts.tronAccountKeyFingerprint : parts.solanaAddress0
}

/** Validates both keys and gives the wallet's public parts; the seed itself is not kept. */
export function merchantWalletPublicParts(keys: {
  tronAccountXpub: string
  solanaSeed: Uint8Array | string
}): MerchantWalletPublicParts {
  const tronAccountXpub = keys.tronAccountXpub.trim()
  const tronAccountKeyFingerprint = tronAccountFingerprint(tronAccountXpub)
  let solanaAddress0: string
  try {
    solanaAddress0 = deriveSolanaAddress(keys.solanaSeed, 0).address
  } catch {
    // the cause's message may quote the input: say only what is wrong with its shape
    throw new MerchantWalletError(
      'INVALID_SOLANA_SEED',
      `the Solana seed must be 16 to 64 bytes of hex text (${seedShape(keys.solanaSeed)})`,
    )
  }
  const digest = sha256(new TextEncoder().encode(`${tronAccountKeyFingerprint}|${solanaAddress0}`))
  return {
    walletId: `w_${bytesToHex(digest.subarray(0, WALLET_ID_BYTES))}`,
    tronAccountXpub,
    tronAccountKeyFingerprint,
    solanaAddress0,
  }
}

/**
 * Refuses a wallet whose TRON account key or Solana seed another wallet (the operator's included)
 * already uses: two wallets sharing a key would derive the same address at the same index, and
 * each wallet counts its indexes on its own. Key material is compared, not the text as given.
 */
export function assertWalletNotInUse(
  candidate: MerchantWalletPublicParts,
  others: ReadonlyArray<{ owner: string; wallet: MerchantWalletPublicParts }>,
): void {
  for (const { owner, wallet } of others) {
    if (wallet.walletId === candidate.walletId) continue
    if (wallet.tronAccountKeyFingerprint === candidate.tronAccountKeyFingerprint) {
      throw new MerchantWalletError(
        'WALLET_ALREADY_IN_USE',
        `this TRON account key is already the wallet of ${owner}`,
      )
    }
    if (wallet.solanaAddress0 === candidate.solanaAddress0) {
      throw new MerchantWalletError(
        'WALLET_ALREADY_IN_USE',
        `this Solana seed is already the wallet of ${owner}`,
      )
    }
  }
}

function tronAccountFingerprint(xpub: string): string {
  let key: HDKey
  try {
    key = HDKey.fromExtendedKey(xpub)
  } catch {
    throw new MerchantWalletError(
      'INVALID_TRON_XPUB',
      'the TRON account key is not a valid extended public key',
    )
  }
  if (key.privateKey) {
    // a private key must never be accepted, even though it would derive the same addresses
    throw new MerchantWalletError(
      'INVALID_TRON_XPUB',
      'the TRON account key must be an extended public key (xpub), not a private one',
    )
  }
  if (key.depth !== ACCOUNT_DEPTH || key.index !== HARDENED_ZERO) {
    throw new MerchantWalletError(
      'INVALID_TRON_XPUB',
      `the TRON extended public key must be the account key ${TRON_ACCOUNT_PATH} (depth 3, hardened index 0), got depth ${key.depth}`,
    )
  }
  if (!key.publicKey || !key.chainCode) {
    throw new MerchantWalletError('INVALID_TRON_XPUB', 'the TRON account key has no public key')
  }
  return bytesToHex(sha256(new Uint8Array([...key.publicKey, ...key.chainCode])))
}

function seedShape(seed: Uint8Array | string): string {
  return typeof seed === 'string' ? `got ${seed.length} characters` : `got ${seed.length} bytes`
}
