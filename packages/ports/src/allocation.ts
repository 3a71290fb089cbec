import type { AddressFamily } from '@chainpay/domain'

export type { AddressFamily }

/**
 * Hands out address derivation indexes: unique and increasing per key and address family (one
 * chain, every network on it), never reused. The operator's keys count under the chain alone; a
 * merchant wallet's key counts on its own (docs/chains.md, "Addresses: one sequence per chain
 * family"), by the key and not by the wallet, so that a key met again in another wallet (a wallet
 * replaced with one key kept, or removed and given to another merchant) continues where it stopped
 * and never derives an address twice. The operator's sequence also starts each family above every
 * index handed out by the per-network counters of before (one per network of `family.networks`).
 */
export interface AddressIndexAllocator {
  /**
   * `keyId`: the public identity of a merchant wallet's key for the family's chain (its TRON account
   * key fingerprint, its Solana address 0; MerchantWalletRecord); absent for the operator's keys
   */
  allocate(family: AddressFamily, keyId?: string): Promise<number>
  /**
   * Moves the key's counter so that no later allocate hands out an index below `next` (never
   * lowers it); answers the next index before the move (0 for a key that never counted). After a
   * restore, what puts the counter past the indexes of payments the copy lost (docs/operations.md,
   * "Backup and restore"); other processes allocating for the key meanwhile may not see it.
   */
  raiseTo(family: AddressFamily, next: number, keyId?: string): Promise<number>
}

/**
 * The name a key's family is counted under: the chain alone for the operator's keys (as before
 * merchant wallets existed), `chain/keyId` for a merchant wallet's. A chain name has no `/`, so the
 * two never meet.
 */
export function allocationKey(family: AddressFamily, keyId?: string): string {
  if (keyId === undefined) return family.chain
  if (!/^[0-9A-Za-z]{32,64}$/.test(keyId)) throw new Error(`not a key id: ${JSON.stringify(keyId)}`)
  return `${family.chain}/${keyId}`
}

/** the networks whose counters of before a sequence starts above: the operator's only */
export function networksCountedBefore(family: AddressFamily, keyId?: string): string[] {
  return keyId === undefined ? [...family.networks] : []
}

/** an address derived ahead of need: its index (handed out by the allocator) and what derives from it */
export interface PooledAddress {
  index: number
  /** the chain-level address of the index (TRON's, a Solana owner's); token accounts derive from it */
  address: string
  derivationPath: string
}

/**
 * Addresses derived ahead of need, in idle time (docs/capacity.md, "Addresses derived ahead"), per
 * pool: one key of one chain family. An address is taken at most once, atomically, and what was
 * added stays until taken, across restarts.
 */
export interface AddressPoolStore {
  /** adds addresses whose indexes the allocator handed out for this pool */
  add(pool: string, addresses: PooledAddress[]): Promise<void>
  /** takes the pooled address with the lowest index, which no later take returns; null when none is left */
  take(pool: string): Promise<PooledAddress | null>
  size(pool: string): Promise<number>
  /** removes the pooled addresses of `pool` whose index is below `index`; how many it removed */
  dropBelow(pool: string, index: number): Promise<number>
}
