// A final transfer paying a payment, as the chain watcher reports it, for tests that need a paid payment.

import type { OpenPayment } from '@chainpay/domain'
import type { PaymentCommandHandler } from '../command-handler.js'

export function payFinallyOn(side: {
  handler: Pick<PaymentCommandHandler, 'recordObservation'>
}): (payment: OpenPayment, amountUnits: string) => Promise<void> {
  return async (payment, amountUnits) => {
    const { paymentId, network, address, tokenAccount, requiredConfirmations } = payment.created
    const now = new Date().toISOString()
    await side.handler.recordObservation({
      kind: 'transfer',
      network,
      paymentId,
      txHash: `pay-${paymentId}`,
      transferIndex: 0,
      address: tokenAccount ?? address,
      amountUnits,
      blockHeight: 100,
      blockTime: now,
      confirmations: requiredConfirmations,
      status: 'seen',
      dropReason: null,
      observedAt: now,
    })
  }
}
