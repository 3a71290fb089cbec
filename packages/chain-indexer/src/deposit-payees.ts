// How a deposit's tracked transfer names its customer (deposit-addresses.ts): the ChainIndexerStore
// keeps it under TrackedTransfer.paymentId, so that tracking a deposit needs nothing new of the store.

import type { WatchedDepositAddress } from '@chainpay/ports'

const DEPOSIT_PAYEE_PREFIX = 'deposit:'

/**
 * the payee id a deposit's tracked transfer is kept under (TrackedTransfer.paymentId), so that the
 * store needs nothing new for it: `deposit:<merchantId>:<merchantUserId>` (merchant ids hold no ':')
 */
export function depositPayeeId(entry: Pick<WatchedDepositAddress, 'merchantId' | 'merchantUserId'>): string {
  return `${DEPOSIT_PAYEE_PREFIX}${entry.merchantId}:${entry.merchantUserId}`
}

/** the customer a deposit payee id names; undefined for a payment's id */
export function depositOwnerOf(payeeId: string): { merchantId: string; merchantUserId: string } | undefined {
  if (!payeeId.startsWith(DEPOSIT_PAYEE_PREFIX)) return undefined
  const rest = payeeId.slice(DEPOSIT_PAYEE_PREFIX.length)
  const colon = rest.indexOf(':')
  if (colon < 1) return undefined
  return { merchantId: rest.slice(0, colon), merchantUserId: rest.slice(colon + 1) }
}
