import { testKafkaBrokers, uniqueName } from '@chainpay/local-servers/testing'
import {
  type Bus,
  type BusMessage,
  type BusSubscription,
  type ConsumedMessage,
  deadLetterTopic,
  PoisonMessageError,
  type SubscribeOptions,
} from '@chainpay/ports'
import type { KafkaMessage } from 'kafkajs'
import { Registry } from 'prom-client'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createKafkaBus, DeadLetterHeaders, type KafkaBusOptions } from './index.js'
import { capturedLogger, deleteKafkaNames, eventually, type LogLine, plainKafka } from './testing/kafka.js'

const partitions = 3
/**
 * Every test stops its subscriptions, and a stop waits for the idle fetch in flight: a tenth of the
 * default second keeps that short. The services' default is what the cross-process tests run.
 */
const fetchWaitMs = 100

describe('createKafkaBus', () => {
  const brokers = testKafkaBrokers()
  let namePrefix: string
  let topic: string
  let registry: Registry
  let log: LogLine[]
  let buses: Bus[]
  let subscriptions: BusSubscription[]

  const openBus = (options: Partial<KafkaBusOptions> = {}) => {
    const { logger, lines } = capturedLogger()
    log = lines
    const bus = createKafkaBus({
      brokers,
      clientId: 'bus-kafka-test',
      logger,
      metrics: registry,
      namePrefix,
      partitions,
      fetchWaitMs,
      ...options,
    })
    buses.push(bus)
    return bus
  }
  const subscribe = async (bus: Bus, options: SubscribeOptions) => {
    const subscription = await bus.subscribe(options)
    subscriptions.push(subscription)
    return subscription
  }
  const collect = async (bus: Bus, options: Omit<SubscribeOptions, 'handle'>) => {
    const received: ConsumedMessage[] = []
    const subscription = await subscribe(bus, { ...options, handle: async (m) => void received.push(m) })
    return { received, subscription }
  }

  beforeEach(() => {
    namePrefix = `${uniqueName('bus-kafka')}.`
    topic = 'chainpay.payment-events'
    registry = new Registry()
    buses = []
    subscriptions = []
  })
  afterEach(async () => {
    await Promise.all(subscriptions.map((s) => s.stop()))
    await Promise.all(buses.map((bus) => bus.close()))
    await deleteKafkaNames(brokers, namePrefix)
  })

  it('creates the topic and its dead-letter topic, with the partitions asked for, under the prefix', async () => {
    const bus = openBus()
    await collect(bus, { topic, groupId: 'projection' })
    const admin = plainKafka(brokers).admin()
    await admin.connect()
    try {
      const { topics } = await admin.fetchTopicMetadata({
        topics: [`${namePrefix}${topic}`, `${namePrefix}${deadLetterTopic(topic)}`],
      })
      expect(topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
        [`${namePrefix}${topic}`, partitions],
        [`${namePrefix}${deadLetterTopic(topic)}`, partitions],
      ])
      // kafkajs's consumer.run joins the group in the background: the group appears shortly after
      const group = `${namePrefix}projection`
      const listed = async () => (await admin.listGroups()).groups.map((g) => g.groupId)
      await expect.poll(listed, { timeout: 30_000, interval: 200 }).toContain(group)
      // and is joined: a consumer stopped halfway through its join stays a member until its session
      // times out, and the group cannot be deleted afterwards
      const state = async () => (await admin.describeGroups([group])).groups[0]?.state
      await expect.poll(state, { timeout: 30_000, interval: 200 }).toBe('Stable')
    } finally {
      await admin.disconnect()
    }
    expect(log).toContainEqual(
      expect.objectContaining({ msg: 'created kafka topic', topic: `${namePrefix}${topic}`, partitions }),
    )
  })

  it('writes plain Kafka records: the key, the JSON value, the headers as sent, one partition per key', async () => {
    const bus = openBus()
    const messages: BusMessage[] = [1, 2, 3, 4].map((revision) => ({
      key: revision % 2 ? 'payment-odd' : 'payment-even',
      value: JSON.stringify({ type: 'payment.created', revision }),
      headers: {
        'event-id': `event-${revision}`,
        'event-type': 'payment.created',
        'stream-revision': `${revision}`,
      },
    }))
    await bus.publish(topic, messages)

    const records: { partition: number; record: KafkaMessage }[] = []
    const consumer = plainKafka(brokers).consumer({ groupId: `${namePrefix}observer` })
    await consumer.connect()
    try {
      await consumer.subscribe({ topics: [`${namePrefix}${topic}`], fromBeginning: true })
      await consumer.run({
        eachMessage: async ({ partition, message }) => void records.push({ partition, record: message }),
      })
      await eventually(() => expect(records).toHaveLength(messages.length))
    } finally {
      await consumer.disconnect()
    }
    const asSent = records.map(({ record }) => ({
      key: record.key?.toString(),
      value: record.value?.toString(),
      headers: Object.fromEntries(Object.entries(record.headers ?? {}).map(([name, v]) => [name, String(v)])),
    }))
    for (const key of ['payment-odd', 'payment-even']) {
      expect(asSent.filter((m) => m.key === key)).toEqual(messages.filter((m) => m.key === key))
      expect(
        new Set(records.filter(({ record }) => record.key?.toString() === key).map((r) => r.partition)).size,
      ).toBe(1)
    }
  })

  it('dead-letters a poison message with why and where it came from, logs it and counts it', async () => {
    const bus = openBus()
    const attempts: ConsumedMessage[] = []
    await subscribe(bus, {
      topic,
      groupId: 'projection',
      handle: async (m) => {
        attempts.push(m)
        if (m.value === 'poison') throw new PoisonMessageError('revision 1 is missing')
      },
    })
    const dead = await collect(bus, { topic: deadLetterTopic(topic), groupId: 'operator' })
    await bus.publish(topic, [
      { key: 'payment-1', value: 'poison', headers: { 'event-id': 'e-1' } },
      { key: 'payment-1', value: 'after', headers: {} },
    ])
    await eventually(() => expect(attempts.map((m) => m.value)).toEqual(['poison', 'after']))
    await eventually(() => expect(dead.received).toHaveLength(1))

    const [partition, offset] = attempts[0]?.offset.split(':') ?? []
    expect(dead.received[0]).toEqual({
      topic: deadLetterTopic(topic),
      key: 'payment-1',
      value: 'poison',
      offset: expect.any(String),
      headers: {
        'event-id': 'e-1',
        [DeadLetterHeaders.error]: 'revision 1 is missing',
        [DeadLetterHeaders.reason]: 'poison',
        [DeadLetterHeaders.sourceTopic]: `${namePrefix}${topic}`,
        [DeadLetterHeaders.sourcePartition]: partition,
        [DeadLetterHeaders.sourceOffset]: offset,
        [DeadLetterHeaders.group]: 'projection',
        [DeadLetterHeaders.attempts]: '1',
      },
    })
    expect(ownLines(log, 'error')).toEqual([
      expect.objectContaining({
        msg: 'bus message dead-lettered: it can never be handled',
        topic,
        groupId: 'projection',
        partition: Number(partition),
        offset,
        attempts: 1,
        error: 'revision 1 is missing',
        deadLetterTopic: deadLetterTopic(topic),
      }),
    ])
    const labels = { topic, group: 'projection' }
    expect(await metricValue(registry, 'chainpay_bus_dead_lettered_total', labels)).toBe(1)
    expect(await metricValue(registry, 'chainpay_bus_handler_failures_total', labels)).toBe(1)
    expect(await metricValue(registry, 'chainpay_bus_messages_handled_total', labels)).toBe(1)
  })

  it('with maxAttempts, dead-letters after that many failed attempts, counting each of them', async () => {
    const bus = openBus()
    const attempts: string[] = []
    await subscribe(bus, {
      topic,
      groupId: 'notifier',
      maxAttempts: 4,
      retryDelayMs: 1,
      handle: async (m) => {
        attempts.push(m.value)
        if (m.value === 'stuck') throw new Error('webhook target unreachable')
      },
    })
    const dead = await collect(bus, { topic: deadLetterTopic(topic), groupId: 'operator' })
    await bus.publish(topic, [
      { key: 'payment-1', value: 'stuck', headers: {} },
      { key: 'payment-1', value: 'next', headers: {} },
    ])
    await eventually(() => expect(attempts).toEqual(['stuck', 'stuck', 'stuck', 'stuck', 'next']))
    await eventually(() => expect(dead.received).toHaveLength(1))
    expect(dead.received[0]?.headers).toMatchObject({
      [DeadLetterHeaders.error]: 'webhook target unreachable',
      [DeadLetterHeaders.reason]: 'max-attempts',
      [DeadLetterHeaders.group]: 'notifier',
      [DeadLetterHeaders.attempts]: '4',
    })
    const labels = { topic, group: 'notifier' }
    expect(await metricValue(registry, 'chainpay_bus_handler_failures_total', labels)).toBe(4)
    expect(await metricValue(registry, 'chainpay_bus_dead_lettered_total', labels)).toBe(1)
    expect(await metricValue(registry, 'chainpay_bus_messages_handled_total', labels)).toBe(1)
    expect(ownLines(log, 'error')).toEqual([
      expect.objectContaining({
        msg: 'bus message dead-lettered: it still failed after maxAttempts',
        attempts: 4,
      }),
    ])
  })

  it('logs failed attempts 1, 2, 4 and 8 of a transient failure, then that the message got through', async () => {
    const bus = openBus()
    let attempts = 0
    const handled: string[] = []
    await subscribe(bus, {
      topic,
      groupId: 'projection',
      retryDelayMs: 1,
      maxRetryDelayMs: 2,
      handle: async (m) => {
        if (++attempts <= 9) throw new Error('read model unavailable')
        handled.push(m.value)
      },
    })
    await bus.publish(topic, [{ key: 'payment-1', value: 'a', headers: {} }])
    await eventually(() => expect(handled).toEqual(['a']))
    const where = { topic, groupId: 'projection', partition: expect.any(Number), offset: '0' }
    const failed = (attempt: number, retryInMs: number) =>
      expect.objectContaining({ ...where, attempt, retryInMs, error: 'read model unavailable' })
    expect(ownLines(log, 'warn')).toEqual([
      failed(1, 1),
      failed(2, 2),
      failed(4, 2),
      failed(8, 2),
      expect.objectContaining({ ...where, attempts: 10, msg: 'bus message handled after failed attempts' }),
    ])
  })

  it('reports the lag of a group held up by a failing message, and none once it is through', async () => {
    const bus = openBus()
    let failing = true
    await subscribe(bus, {
      topic,
      groupId: 'projection',
      retryDelayMs: 1,
      maxRetryDelayMs: 50,
      handle: async () => {
        if (failing) throw new Error('read model unavailable')
      },
    })
    await bus.publish(
      topic,
      ['a', 'b', 'c'].map((value) => ({ key: 'payment-1', value, headers: {} })),
    )
    const lagOfGroup = async () => {
      const samples = await metricValues(registry, 'chainpay_bus_consumer_lag')
      return samples.filter((s) => s.labels.topic === topic && s.labels.group === 'projection')
    }
    await eventually(async () => expect((await lagOfGroup()).map((s) => s.value).sort()).toEqual([0, 0, 3]))
    failing = false
    await eventually(async () => expect((await lagOfGroup()).map((s) => s.value)).toEqual([0, 0, 0]))
    expect((await lagOfGroup()).map((s) => s.labels.partition).sort()).toEqual(['0', '1', '2'])
  })

  it('keeps the order of each key across a restart of the group, handling each message once', async () => {
    const bus = openBus()
    const keys = ['payment-a', 'payment-b', 'payment-c', 'payment-d']
    const published = Array.from({ length: 40 }, (_, n) => ({
      key: keys[n % keys.length] ?? '',
      value: String(n),
      headers: {},
    }))
    await bus.publish(topic, published.slice(0, 20))
    await bus.publish(topic, published.slice(20))

    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const first: BusMessage[] = []
    const before = await bus.subscribe({
      topic,
      groupId: 'projection',
      handle: async (m) => {
        first.push(m)
        // the 15th message is in flight when the subscription stops
        if (first.length === 15) await released
      },
    })
    await eventually(() => expect(first).toHaveLength(15))
    const stopping = before.stop()
    release()
    await stopping
    expect(first).toHaveLength(15)

    const second = await collect(bus, { topic, groupId: 'projection' })
    await eventually(() => expect(first.length + second.received.length).toBe(published.length))
    for (const key of keys) {
      const ofKey = (messages: BusMessage[]) => messages.filter((m) => m.key === key).map((m) => m.value)
      expect([...ofKey(first), ...ofKey(second.received)]).toEqual(ofKey(published))
    }
  })

  it('shares the partitions between two subscribers of one group, each message handled by one of them', async () => {
    const bus = openBus()
    const [one, two] = [
      await collect(bus, { topic, groupId: 'notifier' }),
      await collect(openBus(), { topic, groupId: 'notifier' }),
    ]
    const published = Array.from({ length: 60 }, (_, n) => ({
      key: `payment-${n % 20}`,
      value: String(n),
      headers: {},
    }))
    await bus.publish(topic, published)
    const handled = () => [...(one?.received ?? []), ...(two?.received ?? [])].map((m) => m.value)
    await eventually(() => expect(new Set(handled())).toEqual(new Set(published.map((m) => m.value))))
    expect(one?.received.length).toBeGreaterThan(0)
    expect(two?.received.length).toBeGreaterThan(0)
    for (const { received } of [one, two]) {
      for (const key of new Set(received.map((m) => m.key))) {
        const values = received.filter((m) => m.key === key).map((m) => Number(m.value))
        expect(values).toEqual([...values].sort((a, b) => a - b))
      }
    }
  })

  it('reports a consumer that crashed for good although subscribe() resolved, logging why, until it is stopped', async () => {
    // a session timeout above the broker's group.max.session.timeout.ms (30 min): the broker refuses
    // the join, which kafkajs counts as a crash it does not restart from
    const bus = openBus({ consumerGroup: { sessionTimeoutMs: 1_800_001 } })
    const { subscription } = await collect(bus, { topic, groupId: 'projection' })
    await eventually(() =>
      expect(bus.subscriptionFailures()).toEqual([
        expect.stringMatching(
          /^chainpay\.payment-events \(group projection\): the kafka consumer crashed \(.*session timeout.*\) and kafkajs does not restart it$/,
        ),
      ]),
    )
    expect(log).toContainEqual(
      expect.objectContaining({
        level: 'error',
        topic,
        groupId: 'projection',
        msg: 'kafka consumer crashed and kafkajs does not restart it: the subscription takes no more messages',
      }),
    )
    await subscription.stop()
    expect(bus.subscriptionFailures()).toEqual([])
  })

  it('registers its metrics once per registry, however many buses report into it', async () => {
    const first = openBus()
    const second = openBus()
    for (const bus of [first, second]) {
      await subscribe(bus, { topic, groupId: 'projection', handle: async () => {} })
    }
    await first.publish(topic, [{ key: 'payment-1', value: 'a', headers: {} }])
    await eventually(async () =>
      expect(
        await metricValue(registry, 'chainpay_bus_messages_handled_total', { topic, group: 'projection' }),
      ).toBe(1),
    )
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name).sort()
    expect(names).toEqual([
      'chainpay_bus_consumer_lag',
      'chainpay_bus_dead_lettered_total',
      'chainpay_bus_handler_failures_total',
      'chainpay_bus_messages_handled_total',
    ])
  })

  it('refuses meaningless options before it talks to the broker', async () => {
    expect(() => openBus({ partitions: 0 })).toThrow(RangeError)
    expect(() => openBus({ consumerGroup: { sessionTimeoutMs: 0 } })).toThrow(RangeError)
    expect(() => openBus({ fetchWaitMs: 0 })).toThrow(RangeError)
    // a member that heartbeats less often than its session lasts would be dropped all the time
    expect(() => openBus({ consumerGroup: { sessionTimeoutMs: 5000, heartbeatIntervalMs: 5000 } })).toThrow(
      /heartbeatIntervalMs \(5000\) must be less than sessionTimeoutMs \(5000\)/,
    )
    const bus = openBus()
    const handle = async () => {}
    await expect(bus.subscribe({ topic, groupId: 'g', handle, maxAttempts: 0 })).rejects.toThrow(RangeError)
    await expect(bus.subscribe({ topic, groupId: 'g', handle, retryDelayMs: -1 })).rejects.toThrow(
      /retryDelayMs/,
    )
  })

  it('refuses to publish or subscribe once closed', async () => {
    const bus = openBus()
    await bus.publish(topic, [{ key: 'payment-1', value: 'a', headers: {} }])
    await bus.close()
    await expect(bus.publish(topic, [{ key: 'payment-1', value: 'b', headers: {} }])).rejects.toThrow(
      /closed/,
    )
    await expect(bus.subscribe({ topic, groupId: 'g', handle: async () => {} })).rejects.toThrow(/closed/)
  })
})

describe('createKafkaBus without a broker', () => {
  it('fails a publish and a subscribe in bounded time, logs what kafkajs says, and closes', async () => {
    const { logger, lines } = capturedLogger()
    // A port nothing listens on: connections are refused at once. kafkajs retries a refused
    // connection 5 times over about 10 s by default; the failure and what it logs are the same after
    // one retry.
    const bus = createKafkaBus({
      brokers: ['127.0.0.1:1'],
      clientId: 'bus-kafka-test',
      logger,
      retry: { retries: 1, initialRetryTimeMs: 50 },
    })
    await Promise.all([
      expect(bus.publish('t', [{ key: 'k', value: 'v', headers: {} }])).rejects.toThrow(),
      expect(bus.subscribe({ topic: 't', groupId: 'g', handle: async () => {} })).rejects.toThrow(),
    ])
    await bus.close()
    expect(lines).toContainEqual(expect.objectContaining({ module: 'kafkajs', level: 'error' }))
  })
})

/** the bus's own lines at `level`, without those kafkajs logs through it */
function ownLines(lines: LogLine[], level: string): LogLine[] {
  return lines.filter((line) => line.level === level && line.module === undefined)
}

type MetricSample = { labels: Record<string, string | number>; value: number }

async function metricValues(registry: Registry, name: string): Promise<MetricSample[]> {
  const metric = registry.getSingleMetric(name)
  if (!metric) throw new Error(`no metric ${name}`)
  return (await metric.get()).values as MetricSample[]
}

async function metricValue(registry: Registry, name: string, labels: Record<string, string>) {
  const samples = await metricValues(registry, name)
  return samples.find((s) => Object.entries(labels).every(([label, value]) => s.labels[label] === value))
    ?.value
}
