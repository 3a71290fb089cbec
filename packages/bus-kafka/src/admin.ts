// The bus's one admin connection: topics created on demand (the broker is expected to refuse to
// create them itself), and the offsets the consumer lag is measured from.

import type { Logger } from '@chainpay/platform'
import { pauseUnlessAborted } from '@chainpay/ports'
import type { Admin, Kafka } from 'kafkajs'

export interface BusAdmin {
  /** creates those of `topics` that do not exist yet, and waits for their leaders */
  ensureTopics(topics: string[]): Promise<void>
  /** per partition of `topic`: its end offset minus what `groupId` committed (its start if nothing) */
  consumerLag(groupId: string, topic: string): Promise<{ partition: number; lag: number }[]>
  close(): Promise<void>
}

export function createBusAdmin(kafka: Kafka, options: { partitions: number; logger: Logger }): BusAdmin {
  const { partitions, logger } = options
  const admin = kafka.admin()
  let connecting: Promise<Admin> | undefined
  const connected = (): Promise<Admin> => {
    if (!connecting) {
      const attempt = admin.connect().then(() => admin)
      connecting = attempt
      attempt.catch(() => {
        if (connecting === attempt) connecting = undefined
      })
    }
    return connecting
  }

  // a topic is looked up once per bus; a failed attempt is forgotten, so that the next one retries
  const ensured = new Map<string, Promise<void>>()
  const createIfMissing = async (topic: string) => {
    const client = await connected()
    // listing first: kafkajs logs the broker's "already exists" answer as an error
    if (!(await client.listTopics()).includes(topic)) {
      const created = await client.createTopics({
        topics: [{ topic, numPartitions: partitions }],
        // kafkajs's own wait gives up when the new topic is not in the broker's metadata yet
        waitForLeaders: false,
      })
      if (created) logger.info({ topic, partitions }, 'created kafka topic')
    }
    await waitForLeaders(client, topic)
  }
  const ensureTopic = (topic: string): Promise<void> => {
    let ensuring = ensured.get(topic)
    if (!ensuring) {
      const attempt = createIfMissing(topic)
      ensuring = attempt
      ensured.set(topic, attempt)
      attempt.catch(() => {
        if (ensured.get(topic) === attempt) ensured.delete(topic)
      })
    }
    return ensuring
  }

  return {
    async ensureTopics(topics) {
      await Promise.all(topics.map(ensureTopic))
    },

    async consumerLag(groupId, topic) {
      const client = await connected()
      const [ends, committed] = await Promise.all([
        client.fetchTopicOffsets(topic),
        client.fetchOffsets({ groupId, topics: [topic] }),
      ])
      const committedOffsets = new Map(
        committed.flatMap(({ partitions }) => partitions).map((p) => [p.partition, BigInt(p.offset)]),
      )
      return ends.map(({ partition, high, low }) => {
        // -1: nothing committed; below low: what it committed was deleted since
        const start = BigInt(low)
        const from = committedOffsets.get(partition) ?? -1n
        return { partition, lag: Number(BigInt(high) - (from < start ? start : from)) }
      })
    },

    async close() {
      if (connecting) await admin.disconnect()
    },
  }
}

/** how long a topic the bus created may take to get a leader for every partition */
const leadersTimeoutMs = 30_000
const leadersPollMs = 100
/** what the broker answers for a topic it has created but not yet spread through its metadata */
const notReadyYet = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE'])

async function waitForLeaders(client: Admin, topic: string): Promise<void> {
  const deadline = Date.now() + leadersTimeoutMs
  for (;;) {
    try {
      const { topics } = await client.fetchTopicMetadata({ topics: [topic] })
      const ready = topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
      if (ready) return
    } catch (error) {
      if (!notReadyYet.has((error as { type?: string }).type ?? '')) throw error
    }
    if (Date.now() >= deadline) {
      throw new Error(`kafka topic ${topic} has no leader for every partition after ${leadersTimeoutMs} ms`)
    }
    await pauseUnlessAborted(leadersPollMs, [])
  }
}
