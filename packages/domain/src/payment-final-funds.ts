// What a payment received for good in its own asset (decisions section 20): the final received amount
// (confirmed, overpaid, or underpaid made final at its deadline) and its late funds. Gross is what a
// refund may give back; net (the payment's fee policy applied to gross) is what it adds to the
// merchant's balance (docs/api.md, "Balances").

import { computeFeeUnits } from './fees.js'
import type { OpenPayment } from './payment-types.js'

export interface PaymentFinalFunds {
  grossUnits: bigint
  netUnits: bigint
}

export function paymentFinalFunds(payment: OpenPayment): PaymentFinalFunds {
  const { created } = payment
  const settled =
    payment.status === 'confirmed' ||
    payment.status === 'overpaid' ||
    (payment.status === 'underpaid' && payment.closedAt !== null)
  const received = settled && payment.receivedUnits !== null ? BigInt(payment.receivedUnits) : 0n
  const late = payment.lateTransfers.reduce((sum, transfer) => sum + BigInt(transfer.amountUnits), 0n)
  const grossUnits = received + late
  const { netUnits } = computeFeeUnits(grossUnits, {
    feeBps: created.feeBps,
    fixedFeeUnits: BigInt(created.fixedFeeUnits),
  })
  return { grossUnits, netUnits }
}
