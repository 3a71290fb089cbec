// The dispatcher's wake-ups from the gateway (docs/api.md, "Trying a webhook receiver"): a delivery
// the gateway puts in line (a redelivery, a test event) is due at once, and its wake-up on the bus
// makes the dispatcher claim it by id now rather than at its next poll. A wake-up is a hint: one
// lost, or one this replica does not get, leaves the delivery to the poll, never undelivered.

import type { Logger } from '@chainpay/platform'
import { type Bus, type ConsumerService, consumerService, deliveryIdsOfWakeup, Topics } from '@chainpay/ports'
import type { WebhookDispatcher } from './dispatcher.js'

export function deliveryWakeupConsumer(
  bus: Bus,
  dispatcher: Pick<WebhookDispatcher, 'dispatchRecorded'>,
  logger: Logger,
): ConsumerService {
  return consumerService(bus, {
    name: 'webhook wake-ups',
    logger,
    topic: Topics.webhookWakeups,
    groupId: 'notifier-wakeups',
    async handle(message) {
      const deliveryIds = deliveryIdsOfWakeup(message.value)
      if (deliveryIds.length > 0) dispatcher.dispatchRecorded(deliveryIds)
    },
  })
}
