// Retention of the webhook delivery log (docs/operations.md, "Retention"): deliveries that finished
// (delivered, failed, no target) more than the retention period ago are deleted with their attempts,
// so that the log holds what a steady load adds in one period rather than everything ever sent.
//
// Time is the injected clock's: a short real timer only looks at the clock, and once the clock has
// passed the next prune's time, the prune runs, in batches of at most `batchSize` deliveries with a
// yield to the event loop between them, so that a large backlog (the first prune after an upgrade)
// never holds the process, or SQLite's write lock, for long. Several notifiers may prune at once:
// each batch is the store's own, and a delivery deleted by one is simply not found by another.
//
// A pruned delivery is never sent again: the recorder skips an event its copy of the payment already
// folded (notifier_payments keeps one document per payment, with the record), so a bus that hands out
// old events again finds them folded rather than re-enqueuing them. A pruned delivery's id is unknown
// to the admin API (GET .../deliveries lists what is left, a redelivery of it is not found).

import { type Clock, createWorkLoop, type Logger, moduleLogger, type Service } from '@chainpay/platform'
import type { WebhookDeliveryStore } from '@chainpay/ports'

export const DEFAULT_WEBHOOK_RETENTION_DAYS = 90
const DAY_MS = 24 * 60 * 60 * 1000
/** clock time between prunes */
const DEFAULT_PRUNE_INTERVAL_MS = 60 * 60 * 1000
/** real time between looks at the clock: a comparison, no store access */
const DEFAULT_CHECK_INTERVAL_MS = 1_000
const DEFAULT_BATCH_SIZE = 500
const MAX_BACKOFF_MS = 5 * 60 * 1000

export interface DeliveryPrunerOptions {
  deliveries: Pick<WebhookDeliveryStore, 'pruneFinished'>
  clock: Clock
  logger: Logger
  /** deliveries finished longer ago than this are deleted; WEBHOOK_RETENTION_DAYS */
  retentionMs: number
  /** clock time between prunes; default one hour */
  pruneIntervalMs?: number
  /** real time between looks at the clock; default 1 s */
  checkIntervalMs?: number
  /** deliveries deleted per batch, at most; default 500 */
  batchSize?: number
}

export interface DeliveryPruner extends Service {
  /** prunes everything past retention now, batch after batch; resolves with the batches run */
  pruneNow(): Promise<{ batches: number; deleted: number }>
}

export function retentionDaysToMs(days: number): number {
  return days * DAY_MS
}

export function createDeliveryPruner(options: DeliveryPrunerOptions): DeliveryPruner {
  const { deliveries, clock, retentionMs } = options
  const logger = moduleLogger(options.logger, 'delivery-pruner')
  const pruneIntervalMs = options.pruneIntervalMs ?? DEFAULT_PRUNE_INTERVAL_MS
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE
  if (!Number.isSafeInteger(retentionMs) || retentionMs <= 0) {
    throw new RangeError(`delivery pruner: retention must be a positive number of ms, got ${retentionMs}`)
  }
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`delivery pruner: batch size must be a positive integer, got ${batchSize}`)
  }
  let stopping = false
  /** clock time of the next prune; the first runs at the first look */
  let nextPruneAtMs: number | undefined

  async function pruneNow(): Promise<{ batches: number; deleted: number }> {
    const finishedBefore = new Date(clock.now().getTime() - retentionMs).toISOString()
    let batches = 0
    let deleted = 0
    while (!stopping) {
      const inBatch = await deliveries.pruneFinished(finishedBefore, batchSize)
      if (inBatch === 0) break
      batches += 1
      deleted += inBatch
      // the rest of the process (HTTP, the dispatcher) runs between batches
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (deleted > 0)
      logger.info({ deleted, batches, finishedBefore }, 'pruned webhook deliveries past retention')
    return { batches, deleted }
  }

  const loop = createWorkLoop({
    pollIntervalMs: options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS,
    maxBackoffMs: MAX_BACKOFF_MS,
    async iterate() {
      const nowMs = clock.now().getTime()
      if (nextPruneAtMs !== undefined && nowMs < nextPruneAtMs) return 'idle'
      await pruneNow()
      nextPruneAtMs = nowMs + pruneIntervalMs
      return 'idle'
    },
    onFailure(error, { failures, retryInMs }) {
      logger.warn({ err: error, failures, retryInMs }, 'pruning webhook deliveries failed; will retry')
    },
  })

  return {
    name: 'delivery-pruner',
    async start() {
      stopping = false
      loop.start()
    },
    async stop() {
      stopping = true
      await loop.stop()
    },
    pruneNow,
  }
}
