// Readiness against Kafka: the cluster answers a metadata request. One admin client, connected on
// demand and kept, so that a probe every few seconds costs one round trip.

import { type KafkaConnectionOptions, kafkajsConnectionConfig } from '@chainpay/bus-kafka'
import { Kafka, logLevel } from 'kafkajs'

const PROBE_TIMEOUT_MS = 2000

export interface KafkaProbe {
  answers(): Promise<boolean>
  close(): Promise<void>
}

export function kafkaProbe(brokers: string[], connection: KafkaConnectionOptions = {}): KafkaProbe {
  const admin = new Kafka({
    clientId: 'chainpay-readiness',
    brokers,
    ...kafkajsConnectionConfig(connection),
    logLevel: logLevel.NOTHING,
    connectionTimeout: PROBE_TIMEOUT_MS,
    requestTimeout: PROBE_TIMEOUT_MS,
    retry: { retries: 0 },
  }).admin()
  let connected: Promise<void> | undefined
  return {
    async answers() {
      try {
        connected ??= admin.connect()
        await connected
        await admin.describeCluster()
        return true
      } catch {
        connected = undefined
        await admin.disconnect().catch(() => {})
        return false
      }
    },
    async close() {
      await admin.disconnect().catch(() => {})
    },
  }
}
