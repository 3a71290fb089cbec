// Publishes the deposit address streams on Topics.depositEvents (docs/api.md, "Deposit addresses"),
// from a checkpoint of their own, as the invoices' relay does (invoice-keeper.ts): the projection
// builds the read model the merchant's lists are answered from.

import { depositAddressEventBusMessage } from '@chainpay/contracts'
import { DEPOSIT_ADDRESS_STREAM_PREFIX } from '@chainpay/domain'
import type { Logger, ReadinessReporter, Service } from '@chainpay/platform'
import { type Bus, type CheckpointStore, type EventStore, Topics } from '@chainpay/ports'
import { toDepositAddressEvent } from './deposit-address-handler.js'
import { storedSchemaVersion } from './payment-stream.js'
import { createEventRelay } from './relay.js'

export function createDepositRelay(options: {
  eventStore: EventStore
  bus: Bus
  checkpoints: CheckpointStore
  logger: Logger
}): Service & ReadinessReporter {
  return createEventRelay({
    ...options,
    checkpointName: 'relay:deposit-events',
    streams: {
      prefix: DEPOSIT_ADDRESS_STREAM_PREFIX,
      topic: Topics.depositEvents,
      toMessage: (recorded) =>
        depositAddressEventBusMessage({
          eventId: recorded.eventId,
          streamId: recorded.streamId,
          revision: recorded.revision,
          schemaVersion: storedSchemaVersion(recorded),
          recordedAt: recorded.recordedAt,
          ...toDepositAddressEvent(recorded),
        }),
    },
  })
}
