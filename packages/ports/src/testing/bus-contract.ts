import { randomUUID } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  type Bus,
  type BusMessage,
  type BusSubscription,
  type ConsumedMessage,
  consumerService,
  deadLetterTopic,
  PoisonMessageError,
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

    it('runs a subscription as a service: start subscribes once, stop and start resume the group', async () => {
      const received: string[] = []
      const logged: string[] = []
      const service = consumerService(bus, {
        name: 'contract consumer',
        logger: { info: (_fields, line) => void logged.push(line) },
        topic,
        groupId: randomUUID(),
        handle: async (m) => void received.push(m.value),
      })
      await service.start()
      await service.start()
      await bus.publish(topic, [message('k', 'a')])
      await eventually(() => expect(received).toEqual(['a']))
      await service.stop()
      await bus.publish(topic, [message('k', 'b')])
      await service.start()
      await eventually(() => expect(received).toEqual(['a', 'b']))
      await service.stop()
      expect(logged).toEqual(['contract consumer started', 'contract consumer started'])
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

    it('retries a failing message until it succeeds, however many attempts it takes, in order', async () => {
      // more failures than any fixed budget of a few attempts: an outage must not lose the message
      const failures = 8
      const attempts: string[] = []
      const handled: string[] = []
      await subscribe({
        topic,
        groupId: randomUUID(),
        retryDelayMs: 1,
        maxRetryDelayMs: 4,
        handle: async (m) => {
          attempts.push(m.value)
          if (m.value === 'a' && attempts.length <= failures) throw new Error('store unavailable')
          handled.push(m.value)
        },
      })
      const dead = await consume(randomUUID(), deadLetterTopic(topic))
      await bus.publish(topic, [message('k', 'a'), message('k', 'b')])
      await eventually(() => expect(handled).toEqual(['a', 'b']))
      expect(attempts).toEqual([...Array(failures + 1).fill('a'), 'b'])
      await expectNoDeadLetters(dead.received, 'k')
    })

    it('dead-letters a poison message at once, then carries on', async () => {
      const attempts: string[] = []
      await subscribe({
        topic,
        groupId: randomUUID(),
        retryDelayMs: 1,
        handle: async (m) => {
          attempts.push(m.value)
          if (m.value === 'poison') throw new PoisonMessageError('revision 1 is missing')
          // what contracts' MessageFormatError is: any error marked poison
          if (m.value === 'garbled') throw Object.assign(new Error('not JSON'), { poison: true })
        },
      })
      const dead = await consume(randomUUID(), deadLetterTopic(topic))
      const poison = { key: 'k', value: 'poison', headers: { origin: 'contract' } }
      await bus.publish(topic, [poison, message('k', 'garbled'), message('k', 'after')])
      await eventually(() => expect(attempts).toEqual(['poison', 'garbled', 'after']))
      await eventually(() => expect(values(dead.received)).toEqual(['poison', 'garbled']))
      const [letter, garbled] = dead.received
      expect(letter).toMatchObject({ topic: deadLetterTopic(topic), key: 'k', value: 'poison' })
      expect(letter?.headers).toMatchObject(poison.headers)
      expect(letter?.headers['dead-letter-error']).toContain('revision 1 is missing')
      expect(garbled?.headers['dead-letter-error']).toContain('not JSON')
    })

    it('with maxAttempts, dead-letters a message that still fails after them, then carries on', async () => {
      const attempts: string[] = []
      await subscribe({
        topic,
        groupId: randomUUID(),
        maxAttempts: 3,
        retryDelayMs: 1,
        handle: async (m) => {
          attempts.push(m.value)
          if (m.value === 'stuck') throw new Error('cannot digest it')
        },
      })
      const dead = await consume(randomUUID(), deadLetterTopic(topic))
      const stuck = { key: 'k', value: 'stuck', headers: { origin: 'contract' } }
      await bus.publish(topic, [stuck, message('k', 'after')])
      await eventually(() => expect(attempts).toEqual(['stuck', 'stuck', 'stuck', 'after']))
      await eventually(() => expect(dead.received).toHaveLength(1))
      const [letter] = dead.received
      expect(letter).toMatchObject({ topic: deadLetterTopic(topic), key: 'k', value: 'stuck' })
      expect(letter?.headers).toMatchObject(stuck.headers)
      expect(letter?.headers['dead-letter-error']).toContain('cannot digest it')
    })

    it('on stop while a failed message waits for its retry, stops at once and leaves it uncommitted', async () => {
      const groupId = randomUUID()
      const attempts: string[] = []
      // a retry delay far beyond the test's timeout: only a stop that cuts the wait short passes
      const failing = await subscribe({
        topic,
        groupId,
        retryDelayMs: 600_000,
        handle: async (m) => {
          attempts.push(m.value)
          throw new Error('store unavailable')
        },
      })
      const dead = await consume(randomUUID(), deadLetterTopic(topic))
      await bus.publish(topic, [message('k', 'a'), message('k', 'b')])
      await eventually(() => expect(attempts).toEqual(['a']))
      await failing.stop()
      expect(attempts).toEqual(['a'])
      const next = await consume(groupId)
      await eventually(() => expect(values(next.received)).toEqual(['a', 'b']))
      await expectNoDeadLetters(dead.received, 'k')
    })

    it('on stop, leaves a message whose handler fails meanwhile uncommitted, without retrying it', async () => {
      const groupId = randomUUID()
      let fail = () => {}
      const failed = new Promise<void>((resolve) => {
        fail = resolve
      })
      const attempts: string[] = []
      const first = await subscribe({
        topic,
        groupId,
        retryDelayMs: 1,
        handle: async (m) => {
          attempts.push(m.value)
          await failed
          throw new Error('store unavailable')
        },
      })
      await bus.publish(topic, [message('k', 'a')])
      await eventually(() => expect(attempts).toEqual(['a']))
      const stopping = first.stop()
      fail()
      await stopping
      expect(attempts).toEqual(['a'])
      const next = await consume(groupId)
      await eventually(() => expect(values(next.received)).toEqual(['a']))
    })

    /**
     * Proves that nothing of `key` was dead-lettered before now, without waiting for an absence: a
     * marker published now comes after any such letter, and must be the first letter to arrive.
     */
    async function expectNoDeadLetters(letters: ConsumedMessage[], key: string) {
      await bus.publish(deadLetterTopic(topic), [message(key, 'marker')])
      await eventually(() => expect(letters.length).toBeGreaterThan(0))
      expect(values(letters)).toEqual(['marker'])
    }
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
