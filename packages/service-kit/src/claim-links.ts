// The refund claim page's address (docs/api.md, "Refunds and payouts"): {PUBLIC_URL}/refund/{token}.
// As the checkout page's (checkout-links.ts): the refund id and a 128-bit MAC of it under a key derived
// from the encryption keys for claim tokens alone. Nothing is stored, so no token can leak from a
// store; the gateway and the notifier, which both hold the keys, write the same address, and the
// claim page reads the refund id back from it (null for any token no configured key made).

import type { SecretKeys } from '@chainpay/platform'
import { createSignedIdLinks } from './checkout-links.js'

export interface ClaimLinks {
  /** {PUBLIC_URL}/refund/{token} */
  urlOf(refundId: string): string
  /** the refund id the token was made for, or null when no configured key made it */
  refundIdOf(token: string): string | null
}

export function createClaimLinks(options: { publicUrl: string; keys: string | SecretKeys }): ClaimLinks {
  const links = createSignedIdLinks({
    ...options,
    label: 'refund claim token v1',
    path: 'refund',
    what: 'refund',
  })
  return { urlOf: links.urlOf, refundIdOf: links.paymentIdOf }
}
