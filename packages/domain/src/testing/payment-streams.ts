// Payment streams for the read sides' tests: what payment-command would store for a 10.5 USDT
// payment on TRON (the domain's fixture payment) under the given payment id.

import type { PaymentEvent } from '../payment.js'
import {
  at,
  confirmationsUpdated,
  lateFunds,
  paymentCreated,
  settled,
  transferDetected,
} from './payment-fixtures.js'

/** created, a transfer seen, final at 20 confirmations, confirmed */
export function confirmedStream(paymentId: string): PaymentEvent[] {
  return [
    paymentCreated({ paymentId }),
    transferDetected({ paymentId }),
    confirmationsUpdated({ paymentId, confirmations: 20, updatedAt: at(6) }),
    settled('PaymentConfirmed', { paymentId, confirmedAt: at(6) }),
  ]
}

/** created, canceled, then funds that arrived too late */
export function canceledStream(paymentId: string): PaymentEvent[] {
  return [
    paymentCreated({ paymentId }),
    { type: 'PaymentCanceled', data: { paymentId, canceledAt: at(2), canceledBy: 'merchant' } },
    lateFunds('canceled', { paymentId, blockHeight: 140, blockTime: at(8), receivedAt: at(9) }),
  ]
}
