// The notifier's configuration, read once from the environment at start. Every problem, the key's and
// the retry schedule's included, is reported together.

import { type InfrastructureConfig, readInfrastructureConfig } from '@chainpay/infrastructure'
import { type EnvReader, readEnv } from '@chainpay/platform'
import {
  checkDistinctPorts,
  type EncryptionKeys,
  readEncryptionKeys,
  readPublicUrl,
  readSharedConfig,
  type SharedConfig,
} from '@chainpay/service-kit'
import { DEFAULT_WEBHOOK_RETENTION_DAYS } from './delivery-pruner.js'
import { DEFAULT_WEBHOOK_CONCURRENCY, DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST } from './dispatcher.js'
import { parseRetrySchedule } from './retry-schedule.js'

export interface NotifierConfig extends SharedConfig {
  /** which servers back the ports: KAFKA_BROKERS, MONGODB_URL, MONGODB_DATABASE */
  infrastructure: InfrastructureConfig
  /** where /healthz and /readyz are served */
  healthPort: number
  /** open the merchants' sealed webhook secrets (the current key and the previous ones) */
  encryptionKeys: EncryptionKeys
  /** delays after failed attempts; the notifier's default schedule when undefined */
  retryScheduleMs: number[] | undefined
  /** development only: webhooks to http, loopback and private addresses */
  allowPrivateTargets: boolean
  /** webhook attempts in flight at once: in all, and to one target host */
  webhookConcurrency: WebhookConcurrency
  /** WEBHOOK_RETENTION_DAYS: finished deliveries and their attempts are kept this long */
  webhookRetentionDays: number
  /** PUBLIC_URL, as the gateway reads it: webhooks carry each payment's checkout_url */
  publicUrl: string
}

export interface WebhookConcurrency {
  /** WEBHOOK_CONCURRENCY: attempts in flight at once in this notifier */
  total: number
  /** WEBHOOK_CONCURRENCY_PER_HOST: attempts in flight at once to one target host, over every notifier */
  perTargetHost: number
}

export function readNotifierConfig(env: NodeJS.ProcessEnv = process.env): NotifierConfig {
  const read = readEnv(env)
  const healthPort = read.int('HEALTH_PORT', { default: 8094, min: 1, max: 65535 })
  const shared = readSharedConfig(read, 'notifier')
  const config: NotifierConfig = {
    healthPort,
    ...shared,
    infrastructure: readInfrastructureConfig(read),
    encryptionKeys: readEncryptionKeys(read),
    retryScheduleMs: readRetrySchedule(read),
    allowPrivateTargets: read.bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', { default: false }),
    webhookConcurrency: readWebhookConcurrency(read),
    webhookRetentionDays: readWebhookRetentionDays(read),
    // the gateway's default address: set PUBLIC_URL alike on both (docs/operations.md)
    publicUrl: readPublicUrl(read, 'http://localhost:8080'),
  }
  checkDistinctPorts(read, { HEALTH_PORT: config.healthPort, METRICS_PORT: shared.metricsPort })
  read.done()
  return config
}

/** WEBHOOK_RETRY_SCHEDULE: the delays after failed attempts; undefined: the default schedule */
export function readRetrySchedule(read: EnvReader): number[] | undefined {
  const text = read.optionalString('WEBHOOK_RETRY_SCHEDULE')
  if (text === undefined) return undefined
  try {
    return parseRetrySchedule(text)
  } catch (error) {
    read.problem(`WEBHOOK_RETRY_SCHEDULE: ${(error as Error).message}`)
    return undefined
  }
}

/**
 * WEBHOOK_RETENTION_DAYS: how long finished webhook deliveries (delivered, failed, without a target)
 * and their attempts are kept before they are pruned (docs/operations.md, "Retention").
 */
export function readWebhookRetentionDays(read: EnvReader): number {
  return read.int('WEBHOOK_RETENTION_DAYS', { default: DEFAULT_WEBHOOK_RETENTION_DAYS, min: 1, max: 36_500 })
}

/**
 * WEBHOOK_CONCURRENCY and WEBHOOK_CONCURRENCY_PER_HOST: how many webhook attempts are in flight at
 * once, in all and to one target host (docs/operations.md, "Webhook delivery").
 */
export function readWebhookConcurrency(read: EnvReader): WebhookConcurrency {
  return {
    total: read.int('WEBHOOK_CONCURRENCY', { default: DEFAULT_WEBHOOK_CONCURRENCY, min: 1, max: 10_000 }),
    perTargetHost: read.int('WEBHOOK_CONCURRENCY_PER_HOST', {
      default: DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST,
      min: 1,
      max: 10_000,
    }),
  }
}
