// Publishes every stored payment event to the bus, in global order, from a durable checkpoint. The
// checkpoint is stored after the publish, so a crash in between publishes that batch again
// (at least once); consumers dedupe by event id or stream revision. It is stored at most once per
// checkpointIntervalMs (and at stop): a payment's events come one at a time, each a batch of its own,
// and a checkpoint per batch was one MongoDB command per event in the distributed shape
// (docs/capacity.md, "Per payment"); a crash republishes at most that interval's events.
//
// The relay is woken by the event store's onAppended, not by its poll (docs/benchmarks.md): the
// SQLite event store tells of every append made through it, which in payment-command and standalone
// is every append (a process owns its embedded file); EventStoreDB's tells of appends by any client,
// through its $all subscription. Appends that an adapter cannot see (another process writing the same
// SQLite file, without the store's own pollIntervalMs) wait for the poll, which is only a safety net.

import {
  outgoingEventBusMessage,
  type PaymentEventMessage,
  paymentEventBusMessage,
} from '@chainpay/contracts'
import { initialOutgoingState, type OutgoingKind, type OutgoingState } from '@chainpay/domain'
import { createWorkLoop, type Logger, type ReadinessReporter, type Service } from '@chainpay/platform'
import {
  type Bus,
  type BusMessage,
  type CheckpointStore,
  type EventStore,
  type RecordedEvent,
  Topics,
} from '@chainpay/ports'
import { evolveOutgoing, toOutgoingEvent } from './outgoing-streams.js'
import { storedSchemaVersion } from './payment-stream.js'

export interface EventRelayOptions {
  eventStore: EventStore
  bus: Bus
  checkpoints: CheckpointStore
  logger: Logger
  checkpointName?: string
  batchSize?: number
  /** how long an idle relay waits before looking again when no append woke it; default 5 s */
  pollIntervalMs?: number
  /**
   * the checkpoint is stored at most this often while events come (the last position always at
   * stop, and by an idle relay once this long has passed); default 1 s, 0: after every batch
   */
  checkpointIntervalMs?: number
  /** told how far behind the relay is; e.g. service-kit's `createServiceMetrics(...).relay` */
  metrics?: EventRelayMetrics
  /**
   * which streams go to which topic, as which message: the payments' by default; the invoices' relay
   * (invoice-relay.ts) names its own
   */
  streams?: {
    prefix: string
    topic: string
    /** a promise where the message needs a read (the deposits' fold: deposit-relay.ts) */
    toMessage: (event: RecordedEvent) => BusMessage | Promise<BusMessage>
  }
}

/** what an operator watches the relay by: whether it keeps up with the event store */
export interface EventRelayMetrics {
  /** events were read that are not on the bus yet; the oldest of them was recorded at `recordedAt` */
  behind(oldestRecordedAt: string): void
  /** a batch is on the bus: `count` payment events, the newest event passed recorded at `recordedAt` */
  published(count: number, newestRecordedAt: string): void
}

const PAYMENT_STREAM_PREFIX = 'payment-'
/** the safety net's interval: every append wakes the relay, so the poll only covers a lost wake */
const DEFAULT_POLL_INTERVAL_MS = 5_000
const DEFAULT_CHECKPOINT_INTERVAL_MS = 1_000
/** a failed batch is retried this soon (or after the poll interval, if that is shorter) */
const FAILURE_RETRY_MS = 500

export function createEventRelay(options: EventRelayOptions): Service & ReadinessReporter {
  const { eventStore, bus, checkpoints, logger, metrics } = options
  const checkpointName = options.checkpointName ?? 'relay:payment-events'
  const batchSize = options.batchSize ?? 200
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
  const streams = options.streams ?? {
    prefix: PAYMENT_STREAM_PREFIX,
    topic: Topics.paymentEvents,
    toMessage: toBusMessage,
  }
  const retryMs = Math.min(pollIntervalMs, FAILURE_RETRY_MS)
  const checkpointIntervalMs = options.checkpointIntervalMs ?? DEFAULT_CHECKPOINT_INTERVAL_MS

  /** how far the relay published; `stored` how far its stored checkpoint says, and since when */
  let position: string | null = null
  let stored: string | null = null
  let storedAt = 0
  const storeCheckpoint = async (at: string | null) => {
    if (at === null || at === stored) return
    await checkpoints.store(checkpointName, at)
    stored = at
    storedAt = Date.now()
  }
  const checkpointDue = () => Date.now() - storedAt >= checkpointIntervalMs
  let unsubscribe: () => void = () => {}

  /** relays one batch; the position after it, or null when there was nothing to relay */
  const outgoingMessages = (batch: readonly RecordedEvent[]) => outgoingMessagesOf(eventStore, batch)
  const relayBatch = async (after: string | null): Promise<string | null> => {
    const batch = await eventStore.readAll(after, batchSize)
    const [first, last] = [batch[0], batch.at(-1)]
    if (first === undefined || last === undefined) return null
    // until the publish below succeeds, the relay is behind by at least this batch
    metrics?.behind(first.recordedAt)
    const messages: BusMessage[] = []
    for (const event of batch) {
      if (event.streamId.startsWith(streams.prefix)) messages.push(await streams.toMessage(event))
    }
    if (messages.length > 0) await bus.publish(streams.topic, messages)
    // refunds and payouts ride with the payments' relay, under its checkpoint
    if (streams.prefix === PAYMENT_STREAM_PREFIX) {
      const outgoing = await outgoingMessages(batch)
      if (outgoing.length > 0) await bus.publish(Topics.outgoingEvents, outgoing)
    }
    metrics?.published(messages.length, last.recordedAt)
    if (checkpointDue()) await storeCheckpoint(last.position)
    return last.position
  }

  // every append wakes the loop, and one during a batch is not slept through
  const loop = createWorkLoop({
    async iterate() {
      const next = await relayBatch(position)
      if (next === null) {
        // an idle relay stores what it published once the interval has passed since the last store
        if (position !== stored && checkpointDue()) await storeCheckpoint(position)
        return position === stored ? 'idle' : { restMs: storedAt + checkpointIntervalMs - Date.now() }
      }
      position = next
      return 'more'
    },
    pollIntervalMs,
    // a failed batch is retried every half second (docs/operations.md), without backing off further
    failureBackoffMs: retryMs,
    maxBackoffMs: retryMs,
    onFailure(error) {
      logger.error({ err: error, checkpointName, position }, `relaying ${streams.topic} failed; retrying`)
    },
  })

  return {
    name:
      streams.prefix === PAYMENT_STREAM_PREFIX ? 'payment event relay' : `event relay of ${streams.topic}`,
    notReadyReason: () => loop.notReadyReason(),
    async start() {
      if (loop.isRunning()) return
      position = await checkpoints.load(checkpointName)
      stored = position
      storedAt = Date.now()
      unsubscribe = eventStore.onAppended(loop.wake)
      loop.start()
      logger.info({ checkpointName, position, topic: streams.topic }, 'event relay started')
    },
    async stop() {
      unsubscribe()
      await loop.stop()
      // a store that cannot take it now only means the events since are published again at start
      await storeCheckpoint(position).catch((error: unknown) =>
        logger.warn({ err: error, checkpointName, position }, 'storing the relay checkpoint at stop failed'),
      )
    },
  }
}

/**
 * The refund and payout events of a batch, each with the item folded from its stream up to it
 * (streams of a few events each: one read per item per batch).
 */
async function outgoingMessagesOf(
  eventStore: EventStore,
  batch: readonly RecordedEvent[],
): Promise<BusMessage[]> {
  const streams = new Map<string, RecordedEvent[]>()
  const messages: BusMessage[] = []
  for (const event of batch) {
    const kind = outgoingKindOf(event.streamId)
    if (kind === null) continue
    let stream = streams.get(event.streamId)
    if (stream === undefined) {
      stream = await eventStore.readStream(event.streamId)
      streams.set(event.streamId, stream)
    }
    const state = stream
      .filter((stored) => stored.revision <= event.revision)
      .reduce(
        (folded: OutgoingState, stored) => evolveOutgoing(kind, folded, toOutgoingEvent(kind, stored)),
        initialOutgoingState,
      )
    if (state.status === 'none') continue
    messages.push(
      outgoingEventBusMessage({
        eventId: event.eventId,
        streamId: event.streamId,
        revision: event.revision,
        recordedAt: event.recordedAt,
        type: event.type,
        item: state,
      }),
    )
  }
  return messages
}

function outgoingKindOf(streamId: string): OutgoingKind | null {
  if (streamId.startsWith('refund-')) return 'refund'
  if (streamId.startsWith('payout-')) return 'payout'
  return null
}

export function toPaymentEventMessage(event: RecordedEvent): PaymentEventMessage {
  return {
    eventId: event.eventId,
    paymentId: event.streamId.slice(PAYMENT_STREAM_PREFIX.length),
    streamId: event.streamId,
    revision: event.revision,
    schemaVersion: storedSchemaVersion(event),
    recordedAt: event.recordedAt,
    // relayed as stored: consumers upcast it to the version they know
    type: event.type,
    data: event.data,
  } as PaymentEventMessage
}

function toBusMessage(event: RecordedEvent): BusMessage {
  return paymentEventBusMessage(toPaymentEventMessage(event))
}
