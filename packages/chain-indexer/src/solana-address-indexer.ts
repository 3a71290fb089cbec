// One Solana network's chain watcher in SOLANA_WATCH_MODE=address (docs/chains.md, "Solana by
// address"): the counterpart of indexer.ts that follows the accounts of open payments instead of
// scanning blocks. The watch set holds each payment's address (and for SPL, the owner);
// the address watcher (solana-address-watcher.ts) subscribes to its accounts and reads what the
// notifications point at. Nothing is read while nothing happens, except reconciliations, which list
// every account of the payments concerned:
// - on every (re)connect of the websocket: notifications sent while it was down are lost;
// - at a payment's deadline (expiresAt), followed by the chain time (progress) that lets the payment
//   expire: every transfer up to that block time has been listed;
// - every `reconcileIntervalMs` (default 30 minutes), a safety net for a notification lost without
//   a disconnect.
// A new payment is listed from its creation and then reported `watching`, as a backfill would; one
// created before the node's first available block is logged as the backfill logs it.

import type { SolanaAddressReader, SolanaChainTime } from '@chainpay/chain-solana'
import type { AssetRegistry } from '@chainpay/domain'
import {
  type Clock,
  createWorkLoop,
  isoNow,
  type Logger,
  moduleLogger,
  type ReadinessReporter,
  type Service,
} from '@chainpay/platform'
import {
  type Bus,
  type ChainIndexerStore,
  type ConsumedMessage,
  Topics,
  type WatchedAddress,
} from '@chainpay/ports'
import { BLOCK_TIME_SKEW_MS } from './backfill.js'
import { HISTORY_BELOW_MESSAGE } from './coverage.js'
import type { ChainIndexerMetrics } from './indexer.js'
import { observationMessage, watchingObservation } from './observations.js'
import { createPaymentEventConsumer, DEFAULT_LATE_FUNDS_WINDOW_MS } from './payment-event-consumer.js'
import { createSolanaAddressWatcher, type SolanaAddressWatcher } from './solana-address-watcher.js'
import { createWatchSet, type WatchSet } from './watch-set.js'

/** the safety reconciliation of every followed account: at most one listing per account per period */
export const DEFAULT_RECONCILE_INTERVAL_MS = 30 * 60 * 1000
/**
 * while the node's websocket is not open (down, refused, or a wrong <NETWORK>_WS_URL), nothing is
 * notified: every followed account is listed this often instead (docs/chains.md, "Solana by address")
 */
export const DISCONNECTED_RECONCILE_INTERVAL_MS = 15_000
/** a deadline the node's chain time has not reached yet is asked again after this */
const DEADLINE_RETRY_MS = 5_000
const MAX_BACKOFF_MS = 10_000
/**
 * how long the node's first available block, once read, serves new payments: it only rises (a node
 * drops its oldest slots), and a payment created minutes ago lies above it unless the node has just
 * started from a snapshot
 */
const FIRST_AVAILABLE_REREAD_MS = 10 * 60 * 1000

export interface SolanaAddressIndexerOptions {
  network: string
  reader: SolanaAddressReader
  store: ChainIndexerStore
  bus: Bus
  registry: AssetRegistry
  clock: Clock
  logger: Logger
  /** how soon a notification is acted on; nothing is read while nothing happened. Default 500 ms */
  pollIntervalMs?: number
  reconcileIntervalMs?: number
  lateFundsWindowMs?: number
  paymentEventsGroupId?: string
  metrics?: ChainIndexerMetrics
}

export interface SolanaAddressIndexer extends Service, ReadinessReporter {
  readonly network: string
  readonly watchSet: WatchSet
  readonly watcher: SolanaAddressWatcher
  /** one iteration (what the running loop repeats); throws what went wrong */
  scanOnce(): Promise<void>
  handlePaymentEvent(message: ConsumedMessage): Promise<void>
}

export function createSolanaAddressIndexer(options: SolanaAddressIndexerOptions): SolanaAddressIndexer {
  const { network, reader, store, bus, clock, metrics } = options
  const logger = moduleLogger(options.logger, 'chain-indexer').child({ network, watchMode: 'address' })
  const lateFundsWindowMs = options.lateFundsWindowMs ?? DEFAULT_LATE_FUNDS_WINDOW_MS
  const reconcileIntervalMs = options.reconcileIntervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS
  const watchSet = createWatchSet({ network, store })
  const watcher = createSolanaAddressWatcher({
    network,
    reader,
    registry: options.registry,
    bus,
    clock,
    store,
    logger,
    onDue: () => loop.wake(),
  })
  /** entries of the watch set not handed to the watcher yet */
  const toWatch = new Map<string, WatchedAddress>()
  const consumer = createPaymentEventConsumer({
    bus,
    registry: options.registry,
    watchSets: [watchSet],
    logger,
    lateFundsWindowMs,
    groupId: options.paymentEventsGroupId ?? `chain-indexer.${network}`,
    onWatched(address) {
      toWatch.set(address.paymentId, address)
      loop.wake()
    },
  })
  /** every payment handed to the watcher, by id */
  const watched = new Map<string, WatchedAddress>()
  /** payments whose deadline reconciliation is done */
  const pastDeadline = new Set<string>()
  let loaded: Promise<void> | undefined
  let lastFullMs: number | undefined
  /** whether the closed websocket was logged since it was last open */
  let disconnectionLogged = false
  let nextDeadlineAttemptMs = 0
  let firstAvailable: (SolanaChainTime & { readAtMs: number }) | undefined
  /** set while stop() interrupts the calls in flight */
  let stopping = false

  const load = () => {
    loaded ??= (async () => {
      await watchSet.load()
      await watcher.load()
      for (const entry of await store.listWatched(network)) toWatch.set(entry.paymentId, entry)
    })().catch((error: unknown) => {
      loaded = undefined
      throw error
    })
    return loaded
  }

  const stopListening = reader.onConnect(() => {
    // also on the first connection: what happened before it was not notified
    watcher.reconcile()
    loop.wake()
  })

  const expiresAtMs = (entry: WatchedAddress) => Date.parse(entry.watchUntil) - lateFundsWindowMs

  /**
   * A new payment created before the node's first available block (a node started from a snapshot):
   * the listing of its accounts can only return what the node has, so what it was paid before that
   * block cannot be seen. Said once per payment, loudly, as the block scanner's backfill says it
   * (coverage.ts; docs/chains.md, "Backfill").
   */
  async function reportHistoryBelow(entries: readonly WatchedAddress[], nowMs: number): Promise<void> {
    const fresh = entries.filter((entry) => watchSet.get(entry.address)?.watchingReportedAt === null)
    if (fresh.length === 0) return
    if (firstAvailable === undefined || nowMs - firstAvailable.readAtMs >= FIRST_AVAILABLE_REREAD_MS) {
      firstAvailable = { ...(await reader.firstAvailable()), readAtMs: nowMs }
    }
    const { slot, blockTime } = firstAvailable
    if (slot <= 1) return
    for (const entry of fresh) {
      if (Date.parse(blockTime) <= Date.parse(entry.paymentCreatedAt) - BLOCK_TIME_SKEW_MS) continue
      logger.error(
        {
          paymentId: entry.paymentId,
          address: entry.address,
          paymentCreatedAt: entry.paymentCreatedAt,
          firstAvailableHeight: slot,
          firstAvailableTime: blockTime,
        },
        HISTORY_BELOW_MESSAGE,
      )
    }
  }

  async function iterate(): Promise<void> {
    await load()
    const started = [...toWatch.values()]
    for (const entry of started) {
      await watcher.watch({
        paymentId: entry.paymentId,
        owner: entry.owner ?? entry.address,
        tokenAccount: entry.owner === undefined ? null : entry.address,
        assetContract: entry.assetContract,
        requiredConfirmations: entry.requiredConfirmations,
      })
      watched.set(entry.paymentId, entry)
    }
    const nowMs = clock.now().getTime()
    await reportHistoryBelow(started, nowMs)
    const disconnected = watched.size > 0 && !reader.connected()
    if (disconnected && !disconnectionLogged) {
      logger.warn(
        { everyMs: DISCONNECTED_RECONCILE_INTERVAL_MS },
        "the node's websocket is not open: listing every followed account on a timer until it is; check <NETWORK>_WS_URL",
      )
    }
    disconnectionLogged = disconnected
    const period = disconnected ? DISCONNECTED_RECONCILE_INTERVAL_MS : reconcileIntervalMs
    const full = lastFullMs === undefined || nowMs - lastFullMs >= period
    const due =
      nowMs >= nextDeadlineAttemptMs
        ? [...watched.values()].filter(
            (entry) => !pastDeadline.has(entry.paymentId) && expiresAtMs(entry) <= nowMs,
          )
        : []
    // the chain time is read before the listing: everything up to it is then listed
    const chainTime = full || due.length > 0 ? await reader.chainTime() : undefined
    const chainTimeMs = chainTime === undefined ? 0 : Date.parse(chainTime.blockTime)
    const reached = due.filter((entry) => expiresAtMs(entry) <= chainTimeMs)
    if (full) watcher.reconcile()
    else if (reached.length > 0) watcher.reconcile(reached.map((entry) => entry.paymentId))
    if (due.length > reached.length) nextDeadlineAttemptMs = nowMs + DEADLINE_RETRY_MS
    if (watcher.due) await watcher.tick()

    const observedAt = isoNow(clock)
    const reports = started.filter((entry) => watchSet.get(entry.address)?.watchingReportedAt === null)
    if (reports.length > 0) {
      await bus.publish(
        Topics.chainObservations,
        reports.map((entry) => observationMessage(watchingObservation(entry, observedAt))),
      )
      for (const entry of reports) await watchSet.markWatchingReported(entry, observedAt)
    }
    for (const entry of started) toWatch.delete(entry.paymentId)
    if (chainTime !== undefined && !watcher.due) {
      await bus.publish(Topics.chainObservations, [
        observationMessage({
          kind: 'progress',
          network,
          height: chainTime.slot,
          blockTime: chainTime.blockTime,
          observedAt,
        }),
      ])
      if (full) lastFullMs = nowMs
      for (const entry of reached) pastDeadline.add(entry.paymentId)
      metrics?.scanned(network, chainTime.slot, chainTime.slot)
      for (const entry of await watchSet.prune(new Date(chainTime.blockTime))) {
        pastDeadline.delete(entry.paymentId)
        watched.delete(entry.paymentId)
        await watcher.unwatch(entry.paymentId)
      }
    }
  }

  const loop = createWorkLoop({
    iterate: async () => {
      await iterate()
      return watcher.due ? 'more' : 'idle'
    },
    pollIntervalMs: options.pollIntervalMs ?? 500,
    maxBackoffMs: MAX_BACKOFF_MS,
    onFailure(error, retry) {
      // at stop, the calls in flight were interrupted: not a failure worth an operator's attention
      if (stopping) {
        logger.debug({ err: error, ...retry }, 'Solana address watch ended by the stop')
        return
      }
      logger.error({ err: error, ...retry }, 'Solana address watch failed; retrying')
    },
  })

  return {
    name: `chain indexer ${network} (by address)`,
    network,
    watchSet,
    watcher,
    notReadyReason: () =>
      loop.notReadyReason() ??
      (loop.isRunning() && lastFullMs === undefined ? 'no reconciliation with the node yet' : undefined),

    scanOnce: iterate,

    async handlePaymentEvent(message) {
      await load()
      await consumer.handle(message)
    },

    async start() {
      if (loop.isRunning()) return
      await load()
      await consumer.start()
      loop.start()
      logger.info({ watched: watchSet.size, following: watcher.following }, 'chain indexer started')
    },

    async stop() {
      stopListening()
      stopping = true
      const stopped = Promise.all([loop.stop(), consumer.stop()])
      // an iteration waiting for a node that does not answer ends now, not at the RPC timeout
      const resumeCalls = reader.interruptCalls()
      try {
        await stopped
      } finally {
        resumeCalls()
        stopping = false
      }
      await watcher.close()
      reader.release()
      // handed to the watcher again at the next start
      watched.clear()
      pastDeadline.clear()
      loaded = undefined
    },
  }
}
