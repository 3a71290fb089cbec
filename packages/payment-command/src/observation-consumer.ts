// Turns the chain watcher's observations into payment commands: transfers and foreign funds are
// decided on the payment's stream, deposits on the deposit's; progress moves the chain time, and a watching report marks the payment's
// deadline, both of which expiry waits for.

import {
  type DepositObservation,
  parseChainObservationMessage,
  type TransferObservation,
} from '@chainpay/contracts'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type PaymentDeadlineStore,
  PoisonMessageError,
  Topics,
} from '@chainpay/ports'
import type { ChainTimeTracker } from './chain-times.js'
import type { PaymentCommandHandler } from './command-handler.js'
import type { DepositObservationHandler } from './deposit-observation-handler.js'

export interface ObservationConsumerOptions {
  bus: Bus
  handler: Pick<PaymentCommandHandler, 'recordObservation'>
  /** deposits at customers' deposit addresses (decisions.md section 22) */
  deposits: Pick<DepositObservationHandler, 'record'>
  /**
   * the PER_USER payment's transfer a deposit observation is, or null (deposit-or-payment.ts);
   * absent: every deposit observation is a deposit
   */
  paymentTransferOf?: (observation: DepositObservation) => Promise<TransferObservation | null>
  chainTimes: Pick<ChainTimeTracker, 'update'>
  deadlines: Pick<PaymentDeadlineStore, 'markWatched'>
  logger: Logger
  groupId?: string
}

export function createObservationConsumer(options: ObservationConsumerOptions): Service {
  const { bus, handler, deposits, chainTimes, deadlines, logger } = options
  return consumerService(bus, {
    name: 'chain observation consumer',
    logger,
    topic: Topics.chainObservations,
    groupId: options.groupId ?? 'payment-command',
    handle: async (message) => {
      const observation = parseChainObservationMessage(message.value)
      switch (observation.kind) {
        case 'transfer':
        case 'foreign_funds':
          await handler.recordObservation(observation)
          break
        case 'progress':
          chainTimes.update(observation.network, observation.blockTime, observation.holds)
          break
        case 'deposit': {
          // a payment the indexer did not know yet may count it (deposit-or-payment.ts)
          const transfer = (await options.paymentTransferOf?.(observation)) ?? null
          if (transfer === null) await deposits.record(observation)
          else await handler.recordObservation(transfer)
          break
        }
        case 'watching':
          await deadlines.markWatched(observation.paymentId, observation.observedAt)
          break
        default: {
          const unknown: never = observation
          throw new PoisonMessageError(`unknown observation ${JSON.stringify(unknown)}`)
        }
      }
    },
  })
}
