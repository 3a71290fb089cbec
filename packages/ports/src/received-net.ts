// Each merchant's received net per asset, as a running total the payments' projection keeps (docs/
// capacity.md, "Refunds and payouts"): a refund's or payout's create reads one total instead of paging
// through every funded payment of the merchant. Each payment is counted at most once per revision and
// only forward, so a total may lag the event store (it undercounts while the projection catches up)
// and never leads it: what the ledger decides against it is never more than the truth.

import { paymentFinalFunds } from '@chainpay/domain'
import type { PaymentDocument } from './read-model.js'

/** one payment's final net (paymentFinalFunds) after the event at `revision` */
export interface ReceivedNetCount {
  paymentId: string
  merchantId: string
  network: string
  currency: string
  decimals: number
  netUnits: bigint
  revision: number
}

/** a merchant's received net of one asset, as counted so far */
export interface ReceivedNetTotal {
  network: string
  currency: string
  decimals: number
  units: bigint
}

export interface ReceivedNetTotals {
  /**
   * counts the payment's net as of `revision`: the total of its asset moves by the difference to what
   * was counted for it; an older or equal revision changes nothing (replays, redeliveries)
   */
  count(entry: ReceivedNetCount): Promise<void>
  /** the merchant's totals, one per asset it received; of one network's assets when given */
  totalsOf(merchantId: string, network?: string): Promise<ReceivedNetTotal[]>
  /**
   * the most of this payment's net that a total read before this call may hold (0 when uncounted);
   * a create subtracts it from the total and adds the payment's net from the source of truth
   */
  countedOf(paymentId: string): Promise<bigint>
}

/** what a payment's read model document counts for its merchant's received net */
export function receivedNetCountOf(document: Pick<PaymentDocument, 'state' | 'revision'>): ReceivedNetCount {
  const { created } = document.state
  return {
    paymentId: created.paymentId,
    merchantId: created.merchantId,
    network: created.network,
    currency: created.currency,
    decimals: created.decimals,
    netUnits: paymentFinalFunds(document.state).netUnits,
    revision: document.revision,
  }
}
