// Refunds and payouts as the merchant API shows them (docs/api.md, "Refunds and payouts").

import type { Metadata } from './create-request.js'
import { formatUnits } from './money.js'
import type { Outgoing, OutgoingStatus } from './outgoing-types.js'

interface OutgoingViewCommon {
  merchantId: string
  network: string
  currency: string
  /** as the merchant sent it */
  amount: string
  address: string | null
  status: OutgoingStatus
  txHash: string | null
  /** what the treasury paid to send it, once completed */
  networkFee: { currency: string; amount: string } | null
  failureReason: string | null
  createdAt: string
  updatedAt: string
}

export interface RefundView extends OutgoingViewCommon {
  refundId: string
  paymentId: string
  /** {PUBLIC_URL}/refund/{token} when the customer gives the address; null when the merchant gave it */
  claimUrl: string | null
  reason: string | null
}

export interface PayoutView extends OutgoingViewCommon {
  payoutId: string
  metadata: Metadata
}

function common(item: Outgoing): OutgoingViewCommon {
  return {
    merchantId: item.merchantId,
    network: item.network,
    currency: item.currency,
    amount: item.amount,
    address: item.address,
    status: item.status,
    txHash: item.txHash,
    networkFee:
      item.networkFee === null
        ? null
        : {
            currency: item.networkFee.currency,
            amount: formatUnits(item.networkFee.amountUnits, item.networkFee.decimals),
          },
    failureReason: item.failureReason,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  }
}

export function toRefundView(item: Outgoing, claimUrlOf: (refundId: string) => string): RefundView {
  const { merchantId, ...rest } = common(item)
  return {
    refundId: item.id,
    paymentId: item.paymentId ?? '',
    merchantId,
    ...rest,
    claimUrl: item.claimable ? claimUrlOf(item.id) : null,
    reason: item.reason,
  }
}

export function toPayoutView(item: Outgoing): PayoutView {
  const { merchantId, ...rest } = common(item)
  return { payoutId: item.id, merchantId, ...rest, metadata: item.metadata ?? {} }
}
