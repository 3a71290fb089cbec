// The notifier's /readyz (docs/operations.md, "Health") with what it needs broken for real: the
// dispatcher's loop failing on a table it cannot read, the embedded bus's log gone from under its
// consumer, and a Kafka consumer the broker refused for good.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { testKafkaBrokers, testMongoDbUrl, uniqueName } from '@chainpay/local-servers/testing'
import { createRootLogger, createServiceRunner, generateSecretKey } from '@chainpay/platform'
import { freePort } from '@chainpay/service-kit/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readNotifierConfig } from './config.js'
import { buildNotifierContext } from './context.js'

interface LogLine {
  msg: string
  err?: { message: string }
}

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** a started notifier on `env`, its /readyz status, the lines it logged, and its SQLite file */
async function startedNotifier(env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-notifier-readiness-'))
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }))
  const healthPort = await freePort()
  const config = readNotifierConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    HEALTH_PORT: String(healthPort),
    CHAINPAY_ENCRYPTION_KEY: generateSecretKey(),
    ...env,
  })
  const lines: LogLine[] = []
  const logger = createRootLogger({
    service: 'notifier-test',
    level: 'warn',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  })
  const context = await buildNotifierContext(config, logger)
  cleanups.push(() => context.close())
  const runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
  cleanups.push(() => runner.stop('test over'))
  expect(await runner.start()).toBe(true)
  return {
    lines,
    readyz: async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).status,
    /** the notifier's SQLite file through a connection of the test's own */
    sqlite() {
      const file = new DatabaseSync(join(dataDir, 'chainpay.sqlite'), { timeout: 5000 })
      cleanups.push(() => file.close())
      return file
    },
  }
}

/** the log line of a /readyz that failed because of `reason` */
function readinessFailure(reason: RegExp) {
  return expect.objectContaining({
    msg: 'readiness check failed',
    err: expect.objectContaining({ message: expect.stringMatching(reason) }),
  })
}

describe('the notifier’s readiness', () => {
  it('is not ready while its dispatcher’s loop fails, naming it in the log, and ready once it works again', async () => {
    const notifier = await startedNotifier()
    expect(await notifier.readyz()).toBe(200)
    const file = notifier.sqlite()

    // the deliveries gone from under the dispatcher: the database itself still answers
    file.exec('ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_away')
    await vi.waitFor(async () => expect(await notifier.readyz()).toBe(503), { timeout: 15_000 })
    expect(notifier.lines).toContainEqual(
      readinessFailure(/webhook dispatcher: its latest \d+ iteration\(s\) in a row failed/),
    )

    file.exec('ALTER TABLE webhook_deliveries_away RENAME TO webhook_deliveries')
    await vi.waitFor(async () => expect(await notifier.readyz()).toBe(200), { timeout: 15_000 })
  })

  it('is not ready while its consumer cannot read the embedded bus, naming it in the log, and ready once it can', async () => {
    const notifier = await startedNotifier()
    expect(await notifier.readyz()).toBe(200)
    const file = notifier.sqlite()

    file.exec('ALTER TABLE bus_messages RENAME TO bus_messages_away')
    await vi.waitFor(async () => expect(await notifier.readyz()).toBe(503), { timeout: 15_000 })
    expect(notifier.lines).toContainEqual(
      readinessFailure(
        /bus subscriptions take no messages: .*reading the log failed: no such table: bus_messages/,
      ),
    )

    file.exec('ALTER TABLE bus_messages_away RENAME TO bus_messages')
    await vi.waitFor(async () => expect(await notifier.readyz()).toBe(200), { timeout: 15_000 })
  })

  it('is not ready once Kafka refused its consumer for good, though Kafka and MongoDB answer', async () => {
    const notifier = await startedNotifier({
      KAFKA_BROKERS: testKafkaBrokers().join(','),
      MONGODB_URL: testMongoDbUrl(),
      MONGODB_DATABASE: uniqueName('notifier_readiness').replaceAll('.', '_'),
      BUS_NAMESPACE: uniqueName('notifier-readiness'),
      // accepted by the configuration, above the broker's group.max.session.timeout.ms (30 min): the
      // broker refuses the consumer's join, and kafkajs does not restart it
      KAFKA_SESSION_TIMEOUT_MS: '1800001',
    })
    await vi.waitFor(async () => expect(await notifier.readyz()).toBe(503), { timeout: 15_000 })
    expect(notifier.lines).toContainEqual(
      readinessFailure(
        /bus subscriptions take no messages: .*the kafka consumer crashed .* and kafkajs does not restart it/,
      ),
    )
  })
})
