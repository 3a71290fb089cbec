import { createRootLogger } from '@chainpay/platform'
import type { ConsumedMessage } from '@chainpay/ports'
import { createSqliteBus, openSqliteDatabase } from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { namespacedBus } from './namespaced-bus.js'

const logger = createRootLogger({ service: 'namespaced-bus-test', level: 'silent' })
const db = openSqliteDatabase(':memory:')

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe('namespacedBus', () => {
  it('keeps two installations on one bus apart, and handlers see the topic names of the code', async () => {
    const shared = createSqliteBus(db, { logger, pollIntervalMs: 10 })
    const blue = namespacedBus(shared, 'blue')
    const green = namespacedBus(shared, 'green')
    const seen: { blue: ConsumedMessage[]; green: ConsumedMessage[] } = { blue: [], green: [] }
    const subscriptions = await Promise.all(
      (['blue', 'green'] as const).map((name) =>
        (name === 'blue' ? blue : green).subscribe({
          topic: 'chainpay.payment-events',
          groupId: 'projection',
          handle: async (message) => {
            seen[name].push(message)
          },
        }),
      ),
    )
    await blue.publish('chainpay.payment-events', [{ key: 'p1', value: '{"n":1}', headers: {} }])
    await green.publish('chainpay.payment-events', [{ key: 'p2', value: '{"n":2}', headers: {} }])
    await until(() => seen.blue.length === 1 && seen.green.length === 1)
    expect(seen.blue.map((m) => [m.topic, m.key])).toEqual([['chainpay.payment-events', 'p1']])
    expect(seen.green.map((m) => [m.topic, m.key])).toEqual([['chainpay.payment-events', 'p2']])
    // underneath, the names carry the namespace: a plain subscriber of the shared bus sees both topics apart
    const plain: string[] = []
    const subscription = await shared.subscribe({
      topic: 'blue.chainpay.payment-events',
      groupId: 'inspector',
      handle: async (message) => {
        plain.push(message.key)
      },
    })
    await until(() => plain.length === 1)
    expect(plain).toEqual(['p1'])
    await Promise.all([...subscriptions, subscription].map((s) => s.stop()))
    await shared.close()
  })
})
