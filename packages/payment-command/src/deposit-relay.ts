// Publishes the deposit address streams and the deposits' streams on Topics.depositEvents (docs/api.md, "Deposit addresses"),
// from a checkpoint of their own, as the invoices' relay does (invoice-keeper.ts): the projection
// builds the read model the merchant's lists are answered from.

import { depositAddressEventBusMessage, depositEventBusMessage, parseDepositEvent } from '@chainpay/contracts'
import {
  DEPOSIT_ADDRESS_STREAM_PREFIX,
  type DepositState,
  evolveDeposit,
  initialDepositState,
} from '@chainpay/domain'
import type { Logger, ReadinessReporter, Service } from '@chainpay/platform'
import { type Bus, type CheckpointStore, type EventStore, type RecordedEvent, Topics } from '@chainpay/ports'
import { toDepositAddressEvent } from './deposit-address-handler.js'
import { storedSchemaVersion } from './payment-stream.js'
import { createEventRelay } from './relay.js'

/** the prefix both kinds of stream share: deposit addresses' and deposits' (toDepositStreamId) */
const DEPOSIT_STREAMS_PREFIX = 'deposit-'

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
      // `deposit-`: the deposit address streams (deposit-address-...) and the deposits' (deposit-<id>)
      prefix: DEPOSIT_STREAMS_PREFIX,
      topic: Topics.depositEvents,
      toMessage: (recorded) =>
        recorded.streamId.startsWith(DEPOSIT_ADDRESS_STREAM_PREFIX)
          ? depositAddressEventBusMessage({
              eventId: recorded.eventId,
              streamId: recorded.streamId,
              revision: recorded.revision,
              schemaVersion: storedSchemaVersion(recorded),
              recordedAt: recorded.recordedAt,
              ...toDepositAddressEvent(recorded),
            })
          : depositMessage(options.eventStore, recorded),
    },
  })
}

/** a deposit event with the deposit folded from its stream up to it (a few events a stream) */
async function depositMessage(eventStore: EventStore, recorded: RecordedEvent) {
  const event = parseDepositEvent(recorded.type, storedSchemaVersion(recorded), recorded.data)
  const stream = await eventStore.readStream(recorded.streamId)
  const deposit = stream
    .filter((stored) => stored.revision <= recorded.revision)
    .reduce(
      (state: DepositState, stored) =>
        evolveDeposit(state, parseDepositEvent(stored.type, storedSchemaVersion(stored), stored.data)),
      initialDepositState,
    )
  return depositEventBusMessage({
    eventId: recorded.eventId,
    streamId: recorded.streamId,
    depositId: recorded.streamId.slice(DEPOSIT_STREAMS_PREFIX.length),
    revision: recorded.revision,
    schemaVersion: storedSchemaVersion(recorded),
    recordedAt: recorded.recordedAt,
    ...event,
    ...(deposit.status === 'none' ? {} : { deposit }),
  })
}
