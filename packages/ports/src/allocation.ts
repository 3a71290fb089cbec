/** Hands out address derivation indexes: unique and increasing per network, never reused. */
export interface AddressIndexAllocator {
  allocate(network: string): Promise<number>
}
