import type { AddressFamily } from '@chainpay/domain'

export type { AddressFamily }

/**
 * Hands out address derivation indexes: unique and increasing per address family (one chain, every
 * network on it), never reused. A family's first index lies above every index handed out by the
 * per-network counters of before (one per network of `family.networks`).
 */
export interface AddressIndexAllocator {
  allocate(family: AddressFamily): Promise<number>
}
