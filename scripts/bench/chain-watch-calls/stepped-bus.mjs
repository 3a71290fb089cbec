// The bus port in memory, delivered when the benchmark says so: publish appends to the topic, and
// drain() hands every consumer group its messages in order, awaiting each handler, until no group
// has anything left. On a simulated clock nothing may happen "later by itself": what the services
// publish is consumed within the same simulated instant, as a bus that keeps up does.

import { isPoisonMessage } from '../../../packages/ports/dist/index.js'

export function createSteppedBus() {
  /** by topic: the messages not yet delivered to every group, and the offset of the first */
  const topics = new Map()
  const groups = []
  const deadLetters = []

  const topicOf = (name) => {
    let topic = topics.get(name)
    if (topic === undefined) {
      topic = { base: 0, messages: [] }
      topics.set(name, topic)
    }
    return topic
  }

  /** drops what every group of the topic has had */
  function trim(name) {
    const topic = topicOf(name)
    const readers = groups.filter((group) => group.topic === name && !group.stopped)
    if (readers.length === 0) return
    const done = Math.min(...readers.map((group) => group.next)) - topic.base
    if (done < 1024) return
    topic.messages.splice(0, done)
    topic.base += done
  }

  return {
    async publish(name, messages) {
      const topic = topicOf(name)
      for (const message of messages) {
        const offset = topic.base + topic.messages.length
        topic.messages.push({ ...message, topic: name, offset: String(offset) })
      }
    },
    async subscribe(options) {
      // a new group reads from the start, as a consumer group without offsets does here
      const group = { ...options, next: topicOf(options.topic).base, stopped: false }
      groups.push(group)
      return {
        async stop() {
          group.stopped = true
        },
      }
    },
    subscriptionFailures: () => [],
    async close() {},

    /** delivers until every group has had every message; a handler that fails (not poison) throws */
    async drain() {
      let delivered = 0
      for (let progress = true; progress; ) {
        progress = false
        for (const group of groups) {
          if (group.stopped) continue
          const topic = topicOf(group.topic)
          while (group.next < topic.base + topic.messages.length) {
            const message = topic.messages[group.next - topic.base]
            try {
              await group.handle(message)
            } catch (error) {
              if (!isPoisonMessage(error)) throw error
              deadLetters.push({ groupId: group.groupId, message, reason: String(error.message) })
            }
            group.next += 1
            delivered += 1
            progress = true
          }
        }
      }
      for (const name of topics.keys()) trim(name)
      return delivered
    },

    /** messages a handler refused as poison, with why */
    deadLetters: () => deadLetters,
  }
}
