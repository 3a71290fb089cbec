import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type Bus,
  type BusMessage,
  type BusSubscription,
  type ConsumedMessage,
  deadLetterTopic,
  type SubscribeOptions,
} from '../bus.js'

export interface BusFixture {
  bus: Bus
  /** closes the bus and releases whatever setup created */
  teardown(): Promise<void>
}

/** generous enough for a real broker's group join; tests only wait this long when they fail */
const deliveryTimeoutMs = 20_000

/**
 * The behaviour every Bus adapter promises. `setup` runs before each test; every test uses fresh
 * random topics and groups, so a broker shared with earlier runs is fine.
 */
export function describeBusContract(adapterName: string, setup: () => Promise<BusFixture>): void {
  describe(`Bus contract: ${adapterName}`, () => {
    let fixture: BusFixture
    let bus: Bus
    let topic: string
    let subscriptions: BusSubscription[]
    const subscribe = async (options: SubscribeOptions) => {
      const subscription = await bus.subscribe(options)
      subscriptions.push(subscription)
      // a test that stops a subscription itself takes it off the list afterEach stops
      const stop = () => {
        subscriptions = subscriptions.filter((s) => s !== subscription)
        return subscription.stop()
      }
      return { stop }
    }
    const consume = async (groupId = randomUUID(), onTopic = topic) => {
      const received: ConsumedMessage[] = []
      const subscription = await subscribe({
        topic: onTopic,
        groupId,
        handle: async (message) => void received.push(message),
      })
      return { received, subscription }
    }

    beforeEach(async () => {
      fixture = await setup()
      bus = fixture.bus
      topic = `contract-${randomUUID()}`
      subscriptions = []
    })
    afterEach(async () => {
      await Promise.all(subscriptions.map((subscription) => subscription.stop()))
      await fixture.teardown()
    })

    it('delivers a message with its topic, key, value, headers and an offset', async () => {
      const { received } = await consume()
      const message = { key: 'payment-1', value: '{"n":1}', headers: { 'content-type': 'json' } }
      await bus.publish(topic, [message])
      await eventually(() => expect(received).toHaveLength(1))
      expect(received[0]).toMatchObject({ topic, ...message })
      expect(received[0]?.offset).toEqual(expect.any(String))
    })

    it('round-trips headers, including none at all', async () => {
      const { received } = await consume()
      const headers = { a: '1', 'x-trace': 'Zürich ✓', json: '{"k":["v"]}', empty: '' }
      await bus.publish(topic, [message('k', 'with'), { ...message('k', 'with'), headers }])
      await eventually(() => expect(received).toHaveLength(2))
      expect(received.map((m) => m.headers)).toEqual([{}, headers])
    })

    it('starts a new group at the first message of the topic', async () => {
      await bus.publish(topic, [message('k', 'a'), message('k', 'b')])
      await bus.publish(topic, [message('k', 'c')])
      const { received } = await consume()
      await eventually(() => expect(values(received)).toEqual(['a', 'b', 'c']))
    })

    it('delivers the messages of one key in publish order', async () => {
      const { received } = await consume()
      const published: BusMessage[] = []
      for (let batch = 0; batch < 6; batch++) {
        const messages = [0, 1, 2, 3, 4].map((i) => message(`key-${(batch + i) % 3}`, `${batch}.${i}`))
        published.push(...messages)
        await bus.publish(topic, messages)
      }
      await eventually(() => expect(received).toHaveLength(published.length))
      for (const key of ['key-0', 'key-1', 'key-2']) {
        const ofKey = (list: BusMessage[]) => values(list.filter((m) => m.key === key))
        expect(ofKey(received)).toEqual(ofKey(published))
      }
    })

    it('gives every group every message', async () => {
      const first = await consume()
      const second = await consume()
      await bus.publish(topic, [message('k', 'a'), message('k', 'b'), message('k', 'c')])
      await eventually(() => expect(values(first.received)).toEqual(['a', 'b', 'c']))
      await eventually(() => expect(values(second.received)).toEqual(['a', 'b', 'c']))
    })

    it('resumes a group after the last message it handled', async () => {
      const groupId = randomUUID()
      const before = await consume(groupId)
      await bus.publish(topic, [message('k', 'a'), message('k', 'b')])
      await eventually(() => expect(values(before.received)).toEqual(['a', 'b']))
      await before.subscription.stop()
      await bus.publish(topic, [message('k', 'c'), message('k', 'd')])
      const after = await consume(groupId)
      await eventually(() => expect(values(after.received)).toEqual(['c', 'd']))
    })

    it('on stop, finishes the message in flight, takes no more, and resumes after it', async () => {
      const groupId = randomUUID()
      let release = () => {}
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      const started: string[] = []
      const finished: string[] = []
      const first = await subscribe({
        topic,
        groupId,
        handle: async (m) => {
          started.push(m.value)
          if (m.value === 'b') await released
          finished.push(m.value)
        },
      })
      await bus.publish(
        topic,
        ['a', 'b', 'c', 'd'].map((value) => message('k', value)),
      )
      await eventually(() => expect(started).toContain('b'))
      const stopping = first.stop()
      release()
      await stopping
      expect(finished).toEqual(['a', 'b'])
      expect(started).toEqual(['a', 'b'])
      const second = await consume(groupId)
      await eventually(() => expect(values(second.received)).toEqual(['c', 'd']))
    })

    it('retries a failing message until it succeeds, before the next one of its key', async () => {
      const attempts: string[] = []
      await subscribe({
        topic,
        groupId: randomUUID(),
        retryDelayMs: 5,
        handle: async (m) => {
          attempts.push(m.value)
          if (m.value === 'a' && attempts.length < 3) throw new Error('transient')
        },
      })
      await bus.publish(topic, [message('k', 'a'), message('k', 'b')])
      await eventually(() => expect(attempts).toEqual(['a', 'a', 'a', 'b']))
    })

    it('dead-letters a message that keeps failing, then carries on', async () => {
      const attempts: string[] = []
      await subscribe({
        topic,
        groupId: randomUUID(),
        maxAttempts: 3,
        retryDelayMs: 5,
        handle: async (m) => {
          attempts.push(m.value)
          if (m.value === 'poison') throw new Error('cannot digest poison')
        },
      })
      const dead = await consume(randomUUID(), deadLetterTopic(topic))
      const poison = { key: 'k', value: 'poison', headers: { origin: 'contract' } }
      await bus.publish(topic, [poison, message('k', 'after')])
      await eventually(() => expect(attempts).toEqual(['poison', 'poison', 'poison', 'after']))
      await eventually(() => expect(dead.received).toHaveLength(1))
      const [letter] = dead.received
      expect(letter).toMatchObject({ topic: deadLetterTopic(topic), key: 'k', value: 'poison' })
      expect(letter?.headers).toMatchObject(poison.headers)
      expect(letter?.headers['dead-letter-error']).toContain('cannot digest poison')
    })
  })
}

function message(key: string, value: string): BusMessage {
  return { key, value, headers: {} }
}

function values(messages: BusMessage[]): string[] {
  return messages.map((m) => m.value)
}

function eventually(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: deliveryTimeoutMs, interval: 10 })
}
