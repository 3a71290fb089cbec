import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freeLoopbackPort, type LocalKafka, startKafka } from '@chainpay/local-servers'
import type { Bus, BusSubscription } from '@chainpay/ports'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createKafkaBus } from './kafka-bus.js'
import { capturedLogger, eventually } from './testing/kafka.js'

// A broker of this file's own, killed and restarted while a bus uses it: the shared test broker
// must not go away under other files. It runs from the project's Maven-built Kafka, which needs
// Java and Maven; where there are none the file is skipped, saying so.
describe('createKafkaBus when the broker goes away', { timeout: 180_000 }, () => {
  let directory: string
  let kafka: LocalKafka | undefined
  let skipReason: string | undefined

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'bus-kafka-outage-'))
    try {
      kafka = await startKafka({
        directory,
        port: await freeLoopbackPort(),
        controllerPort: await freeLoopbackPort(),
        heap: '384m',
        quickStart: true,
      })
    } catch (error) {
      if (!/Java|Maven|mvn|java/.test(String(error))) throw error
      skipReason = `no local Kafka of its own: ${String(error)}`
    }
  }, 180_000)
  afterAll(async () => {
    await kafka?.kill()
    rmSync(directory, { recursive: true, force: true })
  })

  it('fails publishes while it is down, carries on when it is back, and stops in bounded time', async (context) => {
    if (!kafka) return context.skip(skipReason)
    const { logger } = capturedLogger()
    const bus: Bus = createKafkaBus({
      brokers: [kafka.brokers],
      clientId: 'bus-kafka-outage-test',
      logger,
      partitions: 1,
      shutdownTimeoutMs: 1000,
      // kafkajs's default retries (5, doubling from 300 ms up to 30 s) take about 10 s to fail a
      // publish while the broker is down, and wait up to 30 s between attempts to reach it once it
      // is back; the same path with shorter waits
      retry: { retries: 2, initialRetryTimeMs: 100, maxRetryTimeMs: 1000 },
      consumerGroup: { sessionTimeoutMs: 3000, heartbeatIntervalMs: 500 },
    })
    const handled: string[] = []
    const subscription: BusSubscription = await bus.subscribe({
      topic: 'outage',
      groupId: 'projection',
      handle: async (m) => void handled.push(m.value),
    })
    await bus.publish('outage', [{ key: 'k', value: 'before', headers: {} }])
    await eventually(() => expect(handled).toEqual(['before']))

    await kafka.kill()
    await expect(bus.publish('outage', [{ key: 'k', value: 'lost', headers: {} }])).rejects.toThrow()
    // the consumer's fetches fail until kafkajs gives up on them and restarts the consumer
    await eventually(
      () =>
        expect(bus.subscriptionFailures()).toEqual([
          expect.stringMatching(
            /^outage \(group projection\): the kafka consumer crashed .*; kafkajs restarts it$/,
          ),
        ]),
      60_000,
    )

    await kafka.restart()
    // a publish while the clients find the broker again may still fail: the caller retries it
    await eventually(() => bus.publish('outage', [{ key: 'k', value: 'after', headers: {} }]), 60_000)
    await eventually(() => expect(handled).toContain('after'), 60_000)
    expect(handled).not.toContain('lost')
    // restarted, it joined its group again
    expect(bus.subscriptionFailures()).toEqual([])

    await kafka.kill()
    // stopping may fail, as the broker is gone, but it does not wait for it
    const stopped = await subscription.stop().then(
      () => 'stopped',
      (error: unknown) => String(error),
    )
    expect(stopped).toMatch(/stopped|did not finish within 1000 ms/)
    await bus.close()
  })
})
