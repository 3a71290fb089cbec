import { type AddressFamily, OPERATOR_WALLET_ID } from '@chainpay/domain'

export type { AddressFamily }

/**
 * Hands out address derivation indexes: unique and increasing per wallet and address family (one
 * chain, every network on it), never reused. Each wallet counts on its own (a merchant's wallet has
 * keys of its own, so its index 0 is another address; docs/chains.md). The operator's wallet also
 * starts each family above every index handed out by the per-network counters of before (one per
 * network of `family.networks`), which counted for it alone.
 */
export interface AddressIndexAllocator {
  /** `walletId`: OPERATOR_WALLET_ID (the default) or a merchant wallet's id (`w_` + hex) */
  allocate(family: AddressFamily, walletId?: string): Promise<number>
}

/**
 * The key a wallet's family is counted under: the chain alone for the operator's wallet (as before
 * merchant wallets existed), `chain/walletId` for a merchant's. A chain name has no `/`, so the two
 * never meet.
 */
export function allocationKey(family: AddressFamily, walletId: string = OPERATOR_WALLET_ID): string {
  if (walletId === OPERATOR_WALLET_ID) return family.chain
  if (!/^w_[0-9a-f]+$/.test(walletId)) throw new Error(`not a wallet id: ${JSON.stringify(walletId)}`)
  return `${family.chain}/${walletId}`
}

/** the networks whose counters of before a wallet's family starts above: the operator's only */
export function networksCountedBefore(
  family: AddressFamily,
  walletId: string = OPERATOR_WALLET_ID,
): string[] {
  return walletId === OPERATOR_WALLET_ID ? [...family.networks] : []
}
