// Builds the refunds and payouts read model from chainpay.outgoing-events (docs/architecture.md, "The
// refunds and payouts read model"), one message at a time, in order per item (keyed by its id). Each
// message carries the item right after its event, folded by payment-command's relay from the item's
// own stream; foldOutgoingEvent keeps the newest revision, so replays and the gateway's write-throughs
// are skipped, and the read model is made whole whatever happened to a write-through.

import { parseOutgoingEventMessage } from '@chainpay/contracts'
import { foldOutgoingEvent } from '@chainpay/domain'
import type { Logger, Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type OutgoingReadModel,
  type SubscribeOptions,
  Topics,
} from '@chainpay/ports'

export interface OutgoingProjectionOptions {
  bus: Bus
  readModel: OutgoingReadModel
  logger: Logger
  groupId?: string
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

export function createOutgoingProjection(options: OutgoingProjectionOptions): Service {
  const { bus, readModel, logger } = options
  return consumerService(bus, {
    name: 'refund and payout projection',
    logger,
    topic: Topics.outgoingEvents,
    groupId: options.groupId ?? 'projection-outgoing',
    ...options.retry,
    handle: async (consumed) => {
      const message = parseOutgoingEventMessage(consumed.value)
      const { kind, id } = message.item
      const projected = foldOutgoingEvent(await readModel.get(kind, id), message)
      if (projected === 'skip') return
      // 'stale': a write-through saved this revision or a newer one meanwhile
      await readModel.save(projected)
    },
  })
}
