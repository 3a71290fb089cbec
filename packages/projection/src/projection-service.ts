// Builds the payment read model from the payment events on the bus, one message at a time, in
// order per payment. Idempotent by stream revision: replays and write-throughs are skipped.

import { parsePaymentEventMessage } from '@chainpay/contracts'
import type { Logger, Service } from '@chainpay/platform'
import { type Bus, type BusSubscription, type PaymentReadModel, Topics } from '@chainpay/ports'
import { projectPaymentEvent } from './payment-document.js'

export interface ProjectionServiceOptions {
  bus: Bus
  readModel: PaymentReadModel
  logger: Logger
  groupId?: string
}

export function createProjectionService(options: ProjectionServiceOptions): Service {
  const { bus, readModel, logger } = options
  const groupId = options.groupId ?? 'projection'
  let subscription: BusSubscription | undefined

  return {
    name: 'projection',
    async start() {
      if (subscription) return
      subscription = await bus.subscribe({
        topic: Topics.paymentEvents,
        groupId,
        handle: async (consumed) => {
          const message = parsePaymentEventMessage(consumed.value)
          const projected = projectPaymentEvent(await readModel.get(message.paymentId), message)
          if (projected === 'skip') {
            logger.debug(
              { paymentId: message.paymentId, revision: message.revision },
              'payment event already in the read model',
            )
            return
          }
          // 'stale' means a write-through saved a newer revision meanwhile: it already covers this one
          await readModel.save(projected)
        },
      })
      logger.info({ groupId }, 'projection started')
    },
    async stop() {
      await subscription?.stop()
      subscription = undefined
    },
  }
}
