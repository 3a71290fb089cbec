// What the payment service makes of the chain observations: the payment's own decide and evolve,
// fed the observations as the command side records them. A transfer counted twice, or one missed,
// shows as a wrong total or a payment that never settles.

import type { TestPayment } from '@chainpay/chain-indexer/testing'
import {
  type ForeignFundsObservation,
  parsePaymentEventMessage,
  recordForeignFundsCommand,
  recordTransferObservationCommand,
  type TransferObservation,
} from '@chainpay/contracts'
import { decidePayment, evolvePayment, initialPaymentState, type OpenPayment } from '@chainpay/domain'

export function paymentAfter(
  payment: TestPayment,
  observations: Array<TransferObservation | ForeignFundsObservation>,
): OpenPayment {
  const created = parsePaymentEventMessage(payment.message.value)
  if (created.type !== 'PaymentCreated') throw new Error(`expected PaymentCreated, got ${created.type}`)
  let state = evolvePayment(initialPaymentState, { type: 'PaymentCreated', data: created.data })
  for (const observation of observations) {
    const { paymentId } = created.data
    const command =
      observation.kind === 'transfer'
        ? recordTransferObservationCommand(paymentId, observation, observation.observedAt)
        : recordForeignFundsCommand(paymentId, observation, observation.observedAt)
    const events = decidePayment(command, state)
    state = events.reduce(evolvePayment, state)
  }
  if (state.status === 'none') throw new Error('the payment was not created')
  return state
}
