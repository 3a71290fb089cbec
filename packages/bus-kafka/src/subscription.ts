// One subscription: a kafkajs consumer in the subscriber's group, handling the messages of each
// partition one at a time and resolving an offset only once its message is handled or dead-lettered.
// A failing message is retried in place, so the partition's later messages wait for it.

import type { Logger } from '@chainpay/platform'
import {
  type BusSubscription,
  type ConsumedMessage,
  deadLetterTopic,
  isPoisonMessage,
  pauseUnlessAborted,
  retryDelayAfter,
  retryPolicyOf,
  type SubscribeOptions,
  shouldLogFailure,
} from '@chainpay/ports'
import type { EachBatchPayload, Kafka, KafkaMessage, Message } from 'kafkajs'
import type { BusAdmin } from './admin.js'
import type { BusMetrics, MessageLabels } from './metrics.js'
import { toConsumedMessage } from './records.js'
import { withTimeout } from './time.js'

/** what a dead-lettered message carries besides its own headers */
export const DeadLetterHeaders = {
  /** the message of the handler's last error */
  error: 'dead-letter-error',
  /** `poison`, or `max-attempts` for a message that still failed after the subscriber's maxAttempts */
  reason: 'dead-letter-reason',
  /** where the message was read: the Kafka topic, partition and offset */
  sourceTopic: 'dead-letter-source-topic',
  sourcePartition: 'dead-letter-source-partition',
  sourceOffset: 'dead-letter-source-offset',
  /** the consumer group that gave up on it, and after how many attempts */
  group: 'dead-letter-group',
  attempts: 'dead-letter-attempts',
} as const

export interface SubscriptionContext {
  kafka: Kafka
  admin: BusAdmin
  logger: Logger
  metrics: BusMetrics | undefined
  /** the Kafka name of a topic or group of the port (the bus's prefix in front) */
  kafkaName(name: string): string
  /** publishes to a Kafka topic, creating it if need be */
  produce(kafkaTopic: string, messages: Message[]): Promise<void>
  shutdownTimeoutMs: number
  /** how long an idle fetch waits at the broker: also how long a stop can wait for the fetch in flight */
  fetchWaitMs: number
  consumerGroup: { sessionTimeoutMs: number; heartbeatIntervalMs: number; rebalanceTimeoutMs: number }
}

/** resolved offsets are committed at most this often while a batch is handled, and after every batch */
const commitIntervalMs = 1000
/**
 * How often a long handler or retry wait asks kafkajs to heartbeat (kafkajs sends one only when its
 * heartbeatInterval is due), at most: it keeps the member in its group, and is how a rebalance is
 * noticed. More often when the heartbeat interval is shorter.
 */
const keepAliveEveryMs = 1000

export interface KafkaSubscription extends BusSubscription {
  /** why the consumer takes no messages (crashed, for good or until kafkajs restarts it); else undefined */
  failure(): string | undefined
}

export async function startSubscription(
  context: SubscriptionContext,
  options: SubscribeOptions,
): Promise<KafkaSubscription> {
  const { logger, metrics } = context
  const { topic, groupId, handle } = options
  const policy = retryPolicyOf(options)
  const kafkaTopic = context.kafkaName(topic)
  const kafkaDeadLetterTopic = context.kafkaName(deadLetterTopic(topic))
  const labels: MessageLabels = { topic, group: groupId }
  // the dead-letter topic of a dead-letter topic is only created if something is ever sent there
  const isDeadLetterTopic = topic.endsWith(deadLetterTopic(''))
  await context.admin.ensureTopics(isDeadLetterTopic ? [kafkaTopic] : [kafkaTopic, kafkaDeadLetterTopic])

  const stopping = new AbortController()
  const kafkaGroupId = context.kafkaName(groupId)
  const { sessionTimeoutMs, heartbeatIntervalMs, rebalanceTimeoutMs } = context.consumerGroup
  const consumer = context.kafka.consumer({
    groupId: kafkaGroupId,
    allowAutoTopicCreation: false,
    // kafkajs heartbeats between fetches: an idle fetch must not outlast the heartbeat interval
    maxWaitTimeInMs: Math.min(context.fetchWaitMs, heartbeatIntervalMs),
    sessionTimeout: sessionTimeoutMs,
    heartbeatInterval: heartbeatIntervalMs,
    rebalanceTimeout: rebalanceTimeoutMs,
  })
  const keepAliveMs = Math.min(keepAliveEveryMs, heartbeatIntervalMs)

  /** handles one message until it succeeds or is dead-lettered; false when it is left uncommitted */
  const deliver = async (
    message: ConsumedMessage,
    record: KafkaMessage,
    partition: number,
    keepAlive: KeepAlive,
  ) => {
    const logFields = { topic, groupId, partition, offset: record.offset }
    let lastLoggedAt = Number.NEGATIVE_INFINITY
    for (let attempt = 1; ; attempt++) {
      // through then(): a handler that throws synchronously fails like one that rejects
      const failure = await Promise.resolve()
        .then(() => handle(message))
        .then(
          () => undefined,
          (error: unknown) => ({ error }),
        )
      if (failure === undefined) {
        metrics?.handled.inc(labels)
        if (attempt > 1)
          logger.warn({ ...logFields, attempts: attempt }, 'bus message handled after failed attempts')
        return true
      }
      metrics?.handlerFailures.inc(labels)
      if (isPoisonMessage(failure.error) || attempt >= policy.maxAttempts) {
        return await deadLetter(message, record, partition, keepAlive, {
          error: failure.error,
          attempts: attempt,
        })
      }
      const delayMs = retryDelayAfter(attempt, policy)
      const now = Date.now()
      if (shouldLogFailure(attempt, now - lastLoggedAt)) {
        lastLoggedAt = now
        logger.warn(
          { ...logFields, attempt, error: errorText(failure.error), retryInMs: delayMs },
          'bus message failed; it is retried and the messages after it wait',
        )
      }
      // stopping (or losing the partition) between attempts leaves the message to the next owner
      if (!(await waitToRetry(delayMs, keepAlive))) return false
    }
  }

  const waitToRetry = async (delayMs: number, keepAlive: KeepAlive): Promise<boolean> => {
    if (stopping.signal.aborted || keepAlive.signal.aborted) return false
    await pauseUnlessAborted(delayMs, [stopping.signal, keepAlive.signal])
    return !(stopping.signal.aborted || keepAlive.signal.aborted)
  }

  /** publishes the message to the dead-letter topic, retrying that until it works; false as deliver */
  const deadLetter = async (
    message: ConsumedMessage,
    record: KafkaMessage,
    partition: number,
    keepAlive: KeepAlive,
    cause: { error: unknown; attempts: number },
  ): Promise<boolean> => {
    const reason = errorText(cause.error)
    const poison = isPoisonMessage(cause.error)
    const letter: Message = {
      key: message.key,
      value: message.value,
      headers: {
        ...message.headers,
        [DeadLetterHeaders.error]: reason,
        [DeadLetterHeaders.reason]: poison ? 'poison' : 'max-attempts',
        [DeadLetterHeaders.sourceTopic]: kafkaTopic,
        [DeadLetterHeaders.sourcePartition]: String(partition),
        [DeadLetterHeaders.sourceOffset]: record.offset,
        [DeadLetterHeaders.group]: groupId,
        [DeadLetterHeaders.attempts]: String(cause.attempts),
      },
    }
    const logFields = { topic, groupId, partition, offset: record.offset, attempts: cause.attempts }
    for (let failures = 1; ; failures++) {
      try {
        await context.produce(kafkaDeadLetterTopic, [letter])
        break
      } catch (error) {
        const delayMs = retryDelayAfter(failures, policy)
        logger.warn(
          { ...logFields, err: error, retryInMs: delayMs },
          'could not dead-letter a bus message; it is retried and the messages after it wait',
        )
        if (!(await waitToRetry(delayMs, keepAlive))) return false
      }
    }
    metrics?.deadLettered.inc(labels)
    logger.error(
      { ...logFields, error: reason, deadLetterTopic: deadLetterTopic(topic) },
      poison
        ? 'bus message dead-lettered: it can never be handled'
        : 'bus message dead-lettered: it still failed after maxAttempts',
    )
    return true
  }

  const eachBatch = async ({
    batch,
    resolveOffset,
    heartbeat,
    commitOffsetsIfNecessary,
    isRunning,
  }: EachBatchPayload) => {
    const keepAlive = keepAliveWith(heartbeat, isRunning, keepAliveMs)
    try {
      for (const record of batch.messages) {
        if (stopping.signal.aborted || keepAlive.signal.aborted) break
        const message = toConsumedMessage(topic, batch.partition, record)
        if (!(await deliver(message, record, batch.partition, keepAlive))) break
        resolveOffset(record.offset)
        await commitOffsetsIfNecessary()
      }
    } finally {
      keepAlive.stop()
    }
    // kafkajs rejoins the group on a rebalance it learns of this way; what is resolved is committed
    if (keepAlive.failure) throw keepAlive.failure.error
  }

  // kafkajs reports a crash and whether it restarts the consumer, which joins the group again if it
  // does: until then the subscription takes nothing. consumer.run() resolves even when the first
  // join failed for good (a session timeout the broker refuses), so only these events tell.
  let crash: { reason: string; restarting: boolean } | undefined
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    const reason = `${topic} (group ${groupId}): the kafka consumer crashed (${errorText(payload.error)})`
    crash = { reason, restarting: payload.restart }
    if (payload.restart) return
    logger.error(
      { topic, groupId, err: payload.error },
      'kafka consumer crashed and kafkajs does not restart it: the subscription takes no more messages',
    )
  })
  consumer.on(consumer.events.GROUP_JOIN, () => {
    // one kafkajs restarted is back; one it gave up on never joins again
    if (crash?.restarting) crash = undefined
  })

  const disconnect = () =>
    withTimeout(
      consumer.disconnect(),
      context.shutdownTimeoutMs,
      `stopping the kafka consumer of group ${groupId} on ${topic}`,
    )
  try {
    await consumer.connect()
    await consumer.subscribe({ topics: [kafkaTopic], fromBeginning: true })
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: commitIntervalMs,
      eachBatchAutoResolve: false,
      eachBatch,
    })
  } catch (error) {
    await disconnect().catch((disconnectError: unknown) =>
      logger.warn(
        { topic, groupId, err: disconnectError },
        'could not disconnect a kafka consumer that failed to start',
      ),
    )
    throw error
  }

  const removeLagSource = metrics?.addLagSource({
    key: `${kafkaGroupId}\n${kafkaTopic}`,
    sample: async () =>
      (await context.admin.consumerLag(kafkaGroupId, kafkaTopic)).map((lag) => ({
        ...labels,
        ...lag,
      })),
    onFailure: (error) => logger.warn({ topic, groupId, err: error }, 'could not measure the consumer lag'),
  })

  let stopped: Promise<void> | undefined
  return {
    failure: () =>
      crash &&
      `${crash.reason}${crash.restarting ? '; kafkajs restarts it' : ' and kafkajs does not restart it'}`,
    stop() {
      stopped ??= (async () => {
        stopping.abort()
        removeLagSource?.()
        // kafkajs waits for the batch in flight, commits what it resolved and leaves the group
        await disconnect()
      })()
      return stopped
    },
  }
}

interface KeepAlive {
  /** aborted when a heartbeat failed or kafkajs stops the consumer itself: the batch is given up */
  signal: AbortSignal
  failure: { error: unknown } | undefined
  stop(): void
}

/**
 * Heartbeats while a batch is handled. The first failure (a rebalance, mostly) aborts the batch, and
 * so does a stop that kafkajs began on its own (after a crash), which waits for the batch.
 */
function keepAliveWith(heartbeat: () => Promise<void>, isRunning: () => boolean, everyMs: number): KeepAlive {
  const aborted = new AbortController()
  const keepAlive: KeepAlive = {
    signal: aborted.signal,
    failure: undefined,
    stop: () => clearInterval(timer),
  }
  const timer = setInterval(() => {
    if (!isRunning()) aborted.abort()
    heartbeat().catch((error: unknown) => {
      if (keepAlive.failure) return
      keepAlive.failure = { error }
      aborted.abort()
    })
  }, everyMs)
  timer.unref()
  return keepAlive
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
