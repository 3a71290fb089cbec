// Builds the payment read model from the payment events on the bus, one message at a time, in
// order per payment. Idempotent by stream revision: replays and write-throughs are skipped. A read
// model that fails is retried by the bus until it works, holding the events after it; only a message
// that can never apply (malformed, or a revision gap: BrokenPaymentStreamError) is poison and dead-lettered.

import { parsePaymentEventMessage } from '@chainpay/contracts'
import { foldPaymentEvent } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type PaymentReadModel,
  rememberingReadModel,
  type SubscribeOptions,
  Topics,
} from '@chainpay/ports'

export interface ProjectionServiceOptions {
  bus: Bus
  readModel: PaymentReadModel
  logger: Logger
  groupId?: string
  /** how the bus paces retries while the read model fails; the bus's defaults unless given */
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

export function createProjectionService(options: ProjectionServiceOptions): Service {
  const { bus, logger } = options
  // each event is folded onto the document saved last: no read of the store per event
  const readModel = rememberingReadModel(options.readModel)
  return consumerService(bus, {
    name: 'projection',
    logger,
    topic: Topics.paymentEvents,
    groupId: options.groupId ?? 'projection',
    ...options.retry,
    handle: async (consumed) => {
      const message = parsePaymentEventMessage(consumed.value)
      const projected = foldPaymentEvent(
        await readModel.documentBefore(message.paymentId, message.revision),
        message,
      )
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
}
