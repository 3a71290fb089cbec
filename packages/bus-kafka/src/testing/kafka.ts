// What the bus's integration tests share: a logger whose lines they can read, a plain kafkajs client
// to look at the broker with, and the cleanup of what a test created there.

import { createRootLogger, type Logger } from '@chainpay/platform'
import { Kafka, logLevel } from 'kafkajs'
import { vi } from 'vitest'

export interface LogLine {
  level: string
  msg: string
  [field: string]: unknown
}

/** a real pino logger at info whose JSON lines the test reads instead of stdout */
export function capturedLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = []
  const logger = createRootLogger({
    service: 'bus-kafka-test',
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  })
  return { logger, lines }
}

/** a kafkajs client of the test's own, quiet: for looking at what the bus wrote */
export function plainKafka(brokers: string[]): Kafka {
  return new Kafka({ clientId: 'bus-kafka-test-observer', brokers, logLevel: logLevel.NOTHING })
}

/** deletes the topics and consumer groups whose names start with `prefix` */
export async function deleteKafkaNames(brokers: string[], prefix: string): Promise<void> {
  const admin = plainKafka(brokers).admin()
  await admin.connect()
  try {
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix))
    if (groups.length > 0) await admin.deleteGroups(groups)
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix))
    if (topics.length > 0) await admin.deleteTopics({ topics })
  } finally {
    await admin.disconnect()
  }
}

/** generous enough for a real broker's group join; tests only wait this long when they fail */
export function eventually(check: () => unknown, timeoutMs = 20_000): Promise<void> {
  return vi.waitFor(async () => void (await check()), { timeout: timeoutMs, interval: 20 })
}
