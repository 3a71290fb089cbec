import type { Logger } from '@chainpay/platform'
import type { Bus, BusSubscription } from '@chainpay/ports'
import { Kafka, type Message, Partitioners, type Producer } from 'kafkajs'
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
import { startSubscription } from './subscription.js'
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
}

export const DEFAULT_PARTITIONS = 6
const defaultShutdownTimeoutMs = 8000
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
  const kafka = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...kafkajsConnectionConfig(options.connection),
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
  }
  const subscriptions = new Set<BusSubscription>()
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
      const subscription: BusSubscription = {
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
