import type { Logger } from '@chainpay/platform'
import type { Bus } from '@chainpay/ports'
import { Kafka, type Message, Partitioners, type Producer, type RetryOptions } from 'kafkajs'
import type { Registry } from 'prom-client'
import { createBusAdmin } from './admin.js'
import {
  explainConnectionFailure,
  type KafkaConnectionOptions,
  kafkajsConnectionConfig,
} from './connection.js'
import { type KafkaLogLevel, kafkajsLogLevel, pinoLogCreator } from './kafkajs-logging.js'
import { busMetrics } from './metrics.js'
import { toKafkaMessage } from './records.js'
import { type KafkaSubscription, startSubscription } from './subscription.js'
import { withTimeout } from './time.js'

export interface KafkaBusOptions {
  brokers: string[]
  /** TLS and SASL; default plaintext without authentication */
  connection?: KafkaConnectionOptions
  clientId: string
  logger: Logger
  /** where the bus's metrics are registered; none without it */
  metrics?: Registry
  /** partitions of the topics the bus creates; default 6. Topics that exist are left as they are. */
  partitions?: number
  /**
   * Put in front of every topic and consumer group name in Kafka, so that several deployments or
   * test runs can share a cluster; the port's names (ConsumedMessage.topic, log lines, metric
   * labels) stay without it. Default none.
   */
  namePrefix?: string
  /** kafkajs's own log lines at this level and above reach the logger; default warn */
  kafkaLogLevel?: KafkaLogLevel
  /** the longest one stop of a subscription, or each step of close(), waits for the broker; default 8 s */
  shutdownTimeoutMs?: number
  /**
   * How long an idle fetch waits at the broker for new messages, which is also how long stopping a
   * subscription can wait for the fetch in flight; default 1 s (kafkajs's own 5 s would hold every
   * stop that long)
   */
  fetchWaitMs?: number
  /** how each subscription's consumer keeps its place in its group; default kafkajs's (see the type) */
  consumerGroup?: KafkaConsumerGroupTimeouts
  /**
   * How kafkajs retries a connection or a request that failed before it fails the operation; default
   * its own: 5 retries, the first after 300 ms, each wait doubled (with 20 % jitter) up to 30 s, so a
   * broker that cannot be reached fails an operation after about 10 s.
   */
  retry?: KafkaRetryOptions
}

/**
 * A consumer group member's timeouts (docs/operations.md, "How the bus uses Kafka"). A member that
 * stops heartbeating (its process killed) keeps its partitions until the broker drops it after
 * `sessionTimeoutMs`: that is how long its successor waits after a crash. The broker accepts session
 * timeouts between its group.min.session.timeout.ms and group.max.session.timeout.ms (6 s and
 * 30 min unless configured otherwise).
 */
export interface KafkaConsumerGroupTimeouts {
  /** default 30 s */
  sessionTimeoutMs?: number
  /** how often the member tells the broker it is alive, well under the session timeout; default 3 s */
  heartbeatIntervalMs?: number
  /** how long a rebalance waits for the group's members to rejoin; default 60 s */
  rebalanceTimeoutMs?: number
}

export interface KafkaRetryOptions {
  retries?: number
  initialRetryTimeMs?: number
  maxRetryTimeMs?: number
}

/** kafkajs's own defaults, written out so that the documentation can name them */
export const DEFAULT_CONSUMER_GROUP_TIMEOUTS: Required<KafkaConsumerGroupTimeouts> = {
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3000,
  rebalanceTimeoutMs: 60_000,
}

export const DEFAULT_PARTITIONS = 6
const defaultShutdownTimeoutMs = 8000
const defaultFetchWaitMs = 1000
/**
 * kafkajs retries an idempotent producer's send forever unless told otherwise; a publish that fails
 * after these retries (about 10 s of backoff) lets its caller decide, and the producer is replaced.
 */
const publishRetries = 5

/**
 * The bus on Apache Kafka (kafkajs): one topic per bus topic, keyed by the message key so that a
 * key's messages share a partition and keep their order, one consumer group per subscriber group.
 * Topics, dead-letter topics included, are created on first use with `partitions` partitions.
 * Publishing is idempotent with one request in flight and acks from all in-sync replicas, so a
 * retried send neither duplicates nor reorders. close() stops every subscription first.
 */
export function createKafkaBus(options: KafkaBusOptions): Bus {
  const { logger } = options
  const partitions = options.partitions ?? DEFAULT_PARTITIONS
  if (!(Number.isInteger(partitions) && partitions >= 1)) {
    throw new RangeError(`kafka bus: partitions must be a positive integer, got ${partitions}`)
  }
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? defaultShutdownTimeoutMs
  const namePrefix = options.namePrefix ?? ''
  const consumerGroup = consumerGroupTimeouts(options.consumerGroup)
  const fetchWaitMs = options.fetchWaitMs ?? defaultFetchWaitMs
  if (!(Number.isInteger(fetchWaitMs) && fetchWaitMs >= 1)) {
    throw new RangeError(`kafka bus: fetchWaitMs must be a positive integer, got ${fetchWaitMs}`)
  }
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...kafkajsConnectionConfig(options.connection),
    ...(options.retry ? { retry: kafkajsRetry(options.retry) } : {}),
    logLevel: kafkajsLogLevel(options.kafkaLogLevel ?? 'warn'),
    logCreator: pinoLogCreator(logger),
  })
  const admin = createBusAdmin(kafka, { partitions, logger })
  const metrics = options.metrics ? busMetrics(options.metrics) : undefined

  // The producer of the moment. One whose send failed is replaced: the batch may have been written
  // after all, and its sequence number must not be reused for different messages.
  let current: { producer: Producer; connected: Promise<void> } | undefined
  const retiring = new Set<Promise<void>>()
  const retire = (producer: Producer) => {
    if (current?.producer !== producer) return
    current = undefined
    const disconnecting = withTimeout(
      producer.disconnect(),
      shutdownTimeoutMs,
      'disconnecting a kafka producer',
    )
      .catch((error: unknown) => logger.warn({ err: error }, 'could not disconnect a retired kafka producer'))
      .finally(() => retiring.delete(disconnecting))
    retiring.add(disconnecting)
  }
  const connectedProducer = async (): Promise<Producer> => {
    if (!current) {
      const producer = kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        // murmur2 of the key, as Kafka's Java clients partition, so other clients agree on it
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: { retries: publishRetries },
      })
      current = { producer, connected: producer.connect() }
    }
    const { producer, connected } = current
    try {
      await connected
    } catch (error) {
      retire(producer)
      throw error
    }
    return producer
  }

  const publishing = new Set<Promise<void>>()
  const produce = async (kafkaTopic: string, messages: Message[]) => {
    const sending = (async () => {
      await admin.ensureTopics([kafkaTopic])
      const producer = await connectedProducer()
      try {
        await producer.send({ topic: kafkaTopic, messages, acks: -1 })
      } catch (error) {
        retire(producer)
        throw error
      }
    })()
    publishing.add(sending)
    try {
      await sending
    } finally {
      publishing.delete(sending)
    }
  }

  const context = {
    kafka,
    admin,
    logger,
    metrics,
    kafkaName: (name: string) => `${namePrefix}${name}`,
    produce,
    shutdownTimeoutMs,
    fetchWaitMs,
    consumerGroup,
  }
  const subscriptions = new Set<KafkaSubscription>()
  let closed = false
  let closing: Promise<void> | undefined
  const closedError = () => new Error('the kafka bus is closed')

  return {
    async publish(topic, messages) {
      if (closed) throw closedError()
      if (messages.length === 0) return
      await produce(context.kafkaName(topic), messages.map(toKafkaMessage)).catch((error: unknown) => {
        throw explainConnectionFailure(error, options.connection)
      })
    },

    async subscribe(subscribeOptions) {
      if (closed) throw closedError()
      const started = await startSubscription(context, subscribeOptions).catch((error: unknown) => {
        throw explainConnectionFailure(error, options.connection)
      })
      const subscription: KafkaSubscription = {
        failure: () => started.failure(),
        async stop() {
          subscriptions.delete(subscription)
          await started.stop()
        },
      }
      // a close() that began while this one started did not see it
      if (closed) {
        await subscription.stop()
        throw closedError()
      }
      subscriptions.add(subscription)
      return subscription
    },

    subscriptionFailures() {
      return [...subscriptions].flatMap((subscription) => subscription.failure() ?? [])
    },

    close() {
      closing ??= (async () => {
        closed = true
        const failures: unknown[] = []
        const settle = (step: Promise<unknown>) => step.catch((error: unknown) => void failures.push(error))
        await Promise.all([...subscriptions].map((subscription) => settle(subscription.stop())))
        // publishes that began before close(); the subscriptions' dead letters are done by now
        await settle(
          withTimeout(Promise.allSettled(publishing), shutdownTimeoutMs, 'the publishes in flight'),
        )
        if (current) {
          const { producer } = current
          current = undefined
          await settle(
            withTimeout(producer.disconnect(), shutdownTimeoutMs, 'disconnecting the kafka producer'),
          )
        }
        await Promise.all([...retiring])
        await settle(withTimeout(admin.close(), shutdownTimeoutMs, 'disconnecting the kafka admin client'))
        if (failures.length === 1) throw failures[0]
        if (failures.length > 1) throw new AggregateError(failures, 'closing the kafka bus failed')
      })()
      return closing
    },
  }
}

function consumerGroupTimeouts(
  timeouts: KafkaConsumerGroupTimeouts = {},
): Required<KafkaConsumerGroupTimeouts> {
  const resolved = { ...DEFAULT_CONSUMER_GROUP_TIMEOUTS, ...definedOnly(timeouts) }
  for (const [name, value] of Object.entries(resolved)) {
    if (!(Number.isInteger(value) && value >= 1)) {
      throw new RangeError(`kafka bus: consumerGroup.${name} must be a positive integer, got ${value}`)
    }
  }
  if (resolved.heartbeatIntervalMs >= resolved.sessionTimeoutMs) {
    throw new RangeError(
      `kafka bus: consumerGroup.heartbeatIntervalMs (${resolved.heartbeatIntervalMs}) must be less than sessionTimeoutMs (${resolved.sessionTimeoutMs})`,
    )
  }
  return resolved
}

function kafkajsRetry(retry: KafkaRetryOptions): RetryOptions {
  const { retries, initialRetryTimeMs, maxRetryTimeMs } = retry
  return {
    ...(retries !== undefined ? { retries } : {}),
    ...(initialRetryTimeMs !== undefined ? { initialRetryTime: initialRetryTimeMs } : {}),
    ...(maxRetryTimeMs !== undefined ? { maxRetryTime: maxRetryTimeMs } : {}),
  }
}

function definedOnly<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as Partial<T>
}
