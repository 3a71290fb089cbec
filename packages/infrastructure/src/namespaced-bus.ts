// Several installations (or test runs) can share one bus: BUS_NAMESPACE prefixes every topic and
// consumer group of this one, and handlers still see the topic names of the code. The Kafka bus does
// this itself (its namePrefix, which also keeps the prefix out of metric labels and log lines); this
// wrapper does it for the embedded bus.

import type { Bus } from '@chainpay/ports'

export function namespacedBus(bus: Bus, namespace: string): Bus {
  const prefix = `${namespace}.`
  return {
    publish: (topic, messages) => bus.publish(prefix + topic, messages),
    subscribe: (options) =>
      bus.subscribe({
        ...options,
        topic: prefix + options.topic,
        groupId: prefix + options.groupId,
        handle: (message) =>
          options.handle({
            ...message,
            topic: message.topic.startsWith(prefix) ? message.topic.slice(prefix.length) : message.topic,
          }),
      }),
    subscriptionFailures: () => bus.subscriptionFailures(),
    close: () => bus.close(),
  }
}
