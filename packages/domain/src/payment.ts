// The payment aggregate: events, state and commands (their types in payment-types.ts, re-exported
// here), evolve (payment-evolve.ts), decide. Pure: time, ids, addresses and the asset arrive inside
// commands; nothing here does I/O. Arithmetic on amounts is done on bigint.

import { DomainError } from './errors.js'
import {
  cancelPayment,
  createPayment,
  expirePayment,
  recordForeignFunds,
  recordSweep,
  recordTransferObservation,
} from './payment-decide.js'
import type { PaymentCommand, PaymentEvent, PaymentEventType, PaymentState } from './payment-types.js'

export type * from './payment-types.js'

export const PaymentEventTypes: readonly PaymentEventType[] = [
  'PaymentCreated',
  'TransferDetected',
  'TransferConfirmationsUpdated',
  'TransferWithdrawn',
  'TransferDropped',
  'PaymentConfirmed',
  'PaymentUnderpaid',
  'PaymentOverpaid',
  'PaymentExpired',
  'PaymentCanceled',
  'PaymentFailed',
  'LateFundsReceived',
  'PaymentUnderpaidFinalized',
  'ForeignFundsReceived',
  'PaymentFundsSwept',
]

export const initialPaymentState: PaymentState = { status: 'none' }

// evolve lives in its own module so that the decide helpers can fold events without importing this one.
export { evolvePayment } from './payment-evolve.js'

//////// Decide

/** The events a command produces on a state; throws DomainError when the command breaks a rule. */
export function decidePayment(command: PaymentCommand, state: PaymentState): PaymentEvent[] {
  switch (command.type) {
    case 'CreatePayment':
      return createPayment(command.data, state)
    case 'CancelPayment':
      return cancelPayment(command.data, state)
    case 'ExpirePayment':
      return expirePayment(command.data, state)
    case 'RecordTransferObservation':
      return recordTransferObservation(command.data, state)
    case 'RecordForeignFunds':
      return recordForeignFunds(command.data, state)
    case 'RecordSweep':
      return recordSweep(command.data, state)
    default: {
      const unknown: never = command
      throw new DomainError('INTERNAL_ERROR', `unknown payment command ${(unknown as { type: string }).type}`)
    }
  }
}

export const toPaymentStreamId = (paymentId: string): string => `payment-${paymentId}`
