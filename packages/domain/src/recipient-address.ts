// The format of an address money is sent to (docs/api.md, "Refunds and payouts"), per chain family:
// TRON, base58check of 0x41 and 20 bytes (T...); Solana, the base58 text of a 32-byte public key.
// The claim page, the merchant routes and the deciders all ask here, so they refuse the same things.

import { createHash } from 'node:crypto'
import { base58, createBase58check } from '@scure/base'
import type { Chain } from './assets.js'

const TRON_ADDRESS_PREFIX = 0x41
const base58check = createBase58check((data: Uint8Array) =>
  Uint8Array.from(createHash('sha256').update(data).digest()),
)

/** why `address` is no address of the chain, or null when it is one */
export function recipientAddressProblem(chain: Chain, address: unknown): string | null {
  if (typeof address !== 'string' || address.length === 0 || address.length > 64)
    return `expected a ${chain} address`
  if (chain === 'TRON') {
    try {
      const bytes = base58check.decode(address)
      if (bytes.length === 21 && bytes[0] === TRON_ADDRESS_PREFIX) return null
    } catch {
      // reported below
    }
    return `'${address}' is no TRON address (base58check, starting with T)`
  }
  try {
    if (base58.decode(address).length === 32) return null
  } catch {
    // reported below
  }
  return `'${address}' is no Solana address (the base58 text of a 32-byte public key)`
}
