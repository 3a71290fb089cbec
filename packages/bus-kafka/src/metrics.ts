// The bus's Prometheus families. Registered once per registry, however many buses and subscriptions
// of a process report into it; the consumer lag is measured when scraped, from the broker.

import { Counter, Gauge, type Registry } from 'prom-client'
import { withTimeout } from './time.js'

export interface MessageLabels {
  topic: string
  group: string
}

export interface LagSample extends MessageLabels {
  partition: number
  lag: number
}

/** how one subscription measures its group's lag; sources with one `key` measure the same thing */
export interface LagSource {
  key: string
  sample(): Promise<LagSample[]>
  /** a sample failed or timed out: the scrape goes on without it */
  onFailure(error: unknown): void
}

export interface BusMetrics {
  handled: Counter<'topic' | 'group'>
  handlerFailures: Counter<'topic' | 'group'>
  deadLettered: Counter<'topic' | 'group'>
  /** measures `source` at every scrape until the returned function is called */
  addLagSource(source: LagSource): () => void
}

/** a scrape must answer even when the broker does not */
const lagSampleTimeoutMs = 2000

const metricsByRegistry = new WeakMap<Registry, BusMetrics>()

export function busMetrics(registry: Registry): BusMetrics {
  const known = metricsByRegistry.get(registry)
  if (known) return known
  const labelNames = ['topic', 'group'] as const
  const sources = new Set<LagSource>()
  const metrics: BusMetrics = {
    handled: new Counter({
      name: 'chainpay_bus_messages_handled_total',
      help: 'Bus messages whose handler succeeded (a message delivered again after a restart counts again)',
      labelNames,
      registers: [registry],
    }),
    handlerFailures: new Counter({
      name: 'chainpay_bus_handler_failures_total',
      help: 'Failed attempts to handle a bus message; each failed attempt counts, retried or dead-lettered',
      labelNames,
      registers: [registry],
    }),
    deadLettered: new Counter({
      name: 'chainpay_bus_dead_lettered_total',
      help: 'Bus messages moved to their dead-letter topic: poison, or still failing after maxAttempts',
      labelNames,
      registers: [registry],
    }),
    addLagSource(source) {
      sources.add(source)
      return () => void sources.delete(source)
    },
  }
  new Gauge({
    name: 'chainpay_bus_consumer_lag',
    help: "Messages of a partition not yet handled by a consumer group: the partition's end offset minus the group's committed offset, as of the scrape",
    labelNames: ['topic', 'group', 'partition'] as const,
    registers: [registry],
    async collect() {
      // subscriptions of one group and topic in one process measure the same thing: once is enough
      const distinct = new Map<string, LagSource>()
      for (const source of sources) distinct.set(source.key, source)
      const samples = await Promise.all(
        [...distinct.values()].map((source) =>
          withTimeout(source.sample(), lagSampleTimeoutMs, 'measuring the consumer lag').catch(
            (error: unknown) => {
              source.onFailure(error)
              return []
            },
          ),
        ),
      )
      // reset after the wait, not before: a scrape meanwhile must not see the gauge half filled
      this.reset()
      for (const { topic, group, partition, lag } of samples.flat()) {
        this.set({ topic, group, partition: String(partition) }, lag)
      }
    },
  })
  metricsByRegistry.set(registry, metrics)
  return metrics
}
