// One Solana network's chain watcher in SOLANA_WATCH_MODE=address (docs/chains.md, "Solana by
// address"): the counterpart of indexer.ts that follows the accounts of payments instead of scanning
// blocks, at a cost bounded by open work (decisions 19). The watch set holds each payment's address;
// the address watcher (solana-address-watcher.ts) follows its accounts one by one while the payment
// is open and in batched checks until its late funds window ends; the transfer follower
// (solana-transfer-follower.ts) follows what they were paid until the chain decides. Nothing is
// read while nothing happens, except batched checks (getMultipleAccounts, 100 accounts a call):
// - of a new payment's accounts, before it is reported `watching`: what came before its
//   subscriptions;
// - of the open payments' accounts on every (re)connect of the websocket (notifications sent while it
//   was down are lost) and every 15 s while it is not open, with the status of every transfer not
//   final yet;
// - at a payment's deadline (expiresAt), after the chain time, so that every transfer up to that block
//   time is listed before the chain time (progress) that lets the payment expire is published;
// - of every account every `checkIntervalMs` (default 10 minutes), with the chain time: the safety
//   net for a notification lost without a disconnect, and late funds of final payments.
// A new payment created before the node's first available block is logged as the backfill logs it.
// Customers' deposit addresses (decisions 22), read from Topics.depositEvents, are followed for as
// long as they exist by batched checks of their accounts every `depositCheckIntervalMs` (default 10
// minutes: one call per 100 accounts per ten minutes, decisions 19), and at once when new; what
// arrives there that no open payment counts is a deposit (docs/chains.md, "Customers' deposit
// addresses").

import type { ChainTimeHold } from '@chainpay/contracts'
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
  type SolanaAddressReader,
  type SolanaChainTime,
  Topics,
  type WatchedAddress,
} from '@chainpay/ports'
import { BLOCK_TIME_SKEW_MS, CLOCK_SKEW_MS } from './backfill.js'
import { HISTORY_BELOW_MESSAGE } from './coverage.js'
import {
  createDepositAddressConsumer,
  createDepositPayeeOf,
  createDepositWatch,
  DEPOSIT_BACKFILL_MAX_AGE_MS,
  type DepositWatch,
} from './deposit-addresses.js'
import type { ChainIndexerMetrics } from './indexer.js'
import { observationMessage, watchingObservation } from './observations.js'
import { createPayeeOf } from './payees.js'
import { createPaymentEventConsumer, DEFAULT_LATE_FUNDS_WINDOW_MS } from './payment-event-consumer.js'
import { createSolanaAddressWatcher, type SolanaAddressWatcher } from './solana-address-watcher.js'
import { createSolanaTransferFollower } from './solana-transfer-follower.js'
import { createWatchSet, type WatchSet } from './watch-set.js'

/**
 * how often every followed account is checked, in batches: at most one call per 100 accounts per
 * period (decisions 19), and how often the chain time is reported when nothing else asks for it
 * (SOLANA_CHECK_INTERVAL_MS)
 */
export const DEFAULT_CHECK_INTERVAL_MS = 10 * 60 * 1000
/**
 * how often every deposit address's accounts are checked in batches (SOLANA_DEPOSIT_CHECK_INTERVAL_MS):
 * at most one call per 100 accounts per ten minutes, as decisions 19 allows at idle; a deposit is
 * seen within it (docs/chains.md, "Customers' deposit addresses")
 */
export const DEFAULT_DEPOSIT_CHECK_INTERVAL_MS = 10 * 60 * 1000
export { DEPOSIT_BACKFILL_MAX_AGE_MS } from './deposit-addresses.js'
/**
 * while the node's websocket is not open (down, refused, half-open, or a wrong <NETWORK>_WS_URL),
 * nothing is notified: the open payments' accounts are checked this often instead
 */
export const DISCONNECTED_CHECK_INTERVAL_MS = 15_000
/** a deadline the node's chain time has not reached yet is asked again after this */
const DEADLINE_RETRY_MS = 5_000
const MAX_BACKOFF_MS = 10_000
/**
 * how long the node's first available block, once read, serves new payments: it only rises (a node
 * drops its oldest slots), and a payment created minutes ago lies above it unless the node has just
 * started from a snapshot
 */
const FIRST_AVAILABLE_REREAD_MS = 10 * 60 * 1000
/**
 * a payment still open this long after its deadline had its closing event missed (a version that
 * did not keep closedAt, an expiry stalled): its subscriptions end, its accounts are checked in
 * batches with the closed payments' until its closing event comes
 */
export const STALE_OPEN_MS = 60 * 60 * 1000
/** how often the open payments are looked over for one that stayed open past STALE_OPEN_MS */
const STALE_OPEN_SWEEP_MS = 60_000

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
  checkIntervalMs?: number
  lateFundsWindowMs?: number
  paymentEventsGroupId?: string
  metrics?: ChainIndexerMetrics
  /** the operator's treasuries: what they send is nobody's funds (TREASURY_ADDRESSES, docs/treasury.md) */
  treasuries?: ReadonlySet<string>
  /** how often every deposit address's accounts are checked in batches (SOLANA_DEPOSIT_CHECK_INTERVAL_MS) */
  depositCheckIntervalMs?: number
  /** consumer group for deposit address events; default `chain-indexer-deposits.<network>` */
  depositEventsGroupId?: string
}

export interface SolanaAddressIndexer extends Service, ReadinessReporter {
  readonly network: string
  readonly watchSet: WatchSet
  readonly watcher: SolanaAddressWatcher
  /** the customers' deposit addresses watched (decisions.md section 22) */
  readonly depositWatch: DepositWatch
  /** one iteration (what the running loop repeats); throws what went wrong */
  scanOnce(): Promise<void>
  handlePaymentEvent(message: ConsumedMessage): Promise<void>
  /** handles one deposit address event message as the running indexer's subscription does */
  handleDepositEvent(message: ConsumedMessage): Promise<void>
}

export function createSolanaAddressIndexer(options: SolanaAddressIndexerOptions): SolanaAddressIndexer {
  const { network, reader, store, bus, clock, metrics } = options
  const logger = moduleLogger(options.logger, 'chain-indexer').child({ network, watchMode: 'address' })
  const lateFundsWindowMs = options.lateFundsWindowMs ?? DEFAULT_LATE_FUNDS_WINDOW_MS
  const checkIntervalMs = options.checkIntervalMs ?? DEFAULT_CHECK_INTERVAL_MS
  const depositCheckIntervalMs = options.depositCheckIntervalMs ?? DEFAULT_DEPOSIT_CHECK_INTERVAL_MS
  const watchSet = createWatchSet({ network, store })
  const rules = {
    network,
    registry: options.registry,
    ...(options.treasuries ? { treasuries: options.treasuries } : {}),
  }
  const depositWatch = createDepositWatch({ network, store })
  /** deposit addresses the consumer added, not handed to the watcher yet, with when they were created */
  const newDeposits = new Map<string, string>()
  const depositConsumer = createDepositAddressConsumer({
    bus,
    registry: options.registry,
    watches: [depositWatch],
    logger,
    groupId: options.depositEventsGroupId ?? `chain-indexer-deposits.${network}`,
    async watchNew(watch, entry, createdAt) {
      const added = await watch.watch(entry)
      if (added) {
        newDeposits.set(entry.address, createdAt)
        loop.wake()
      }
      return added
    },
  })
  const paymentPayeeOf = createPayeeOf(rules, watchSet)
  const depositPayeeOf = createDepositPayeeOf(rules, depositWatch, paymentPayeeOf)
  const follower = createSolanaTransferFollower({
    network,
    reader,
    bus,
    clock,
    store,
    logger,
    onDue: () => loop.wake(),
  })
  const watcher = createSolanaAddressWatcher({
    network,
    reader,
    registry: options.registry,
    store,
    follower,
    payeeOf: depositPayeeOf,
    // what a new deposit address's backfill finds that a payment's watch claims was that payment's
    backfillPayeeOf: (transfer) =>
      paymentPayeeOf(transfer) === undefined ? depositPayeeOf(transfer) : undefined,
    clock,
    logger,
    onDue: () => loop.wake(),
  })
  /** entries of the watch set not handed to the watcher yet */
  const toWatch = new Map<string, WatchedAddress>()
  /** payments that became final, not told to the watcher yet */
  const toClose = new Set<string>()
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
    onClosed(address) {
      toClose.add(address.paymentId)
      loop.wake()
    },
  })
  /** payments handed to the watcher whose watching is not reported yet: their first check comes first */
  const unchecked = new Set<string>()
  /** open payments whose deadline check is done */
  const pastDeadline = new Set<string>()
  let loaded: Promise<void> | undefined
  let lastFullMs: number | undefined
  let lastDepositCheckMs: number | undefined
  let lastOpenCheckMs = 0
  /** set on every (re)connect of the websocket, the first one included: notifications were lost */
  let reconnected = false
  /** whether the closed websocket was logged since it was last open */
  let disconnectionLogged = false
  let nextDeadlineAttemptMs = 0
  let nextStaleSweepMs = 0
  let firstAvailable: (SolanaChainTime & { readAtMs: number }) | undefined
  /** set while stop() interrupts the calls in flight */
  let stopping = false
  /** the chain time last reported, and what it held */
  let published: { chainTime: SolanaChainTime; holds: string } | undefined

  const load = () => {
    loaded ??= (async () => {
      await watchSet.load()
      await depositWatch.load()
      const depositAddresses = depositWatch.addresses()
      await watcher.load([...watchSet.entries()], new Set(depositAddresses))
      await follower.load()
      for (const entry of watchSet.entries()) toWatch.set(entry.paymentId, entry)
      // what arrived while the process was down is found by the first check, which comes at once
      for (const address of depositAddresses) watcher.watchDeposit(address)
      lastDepositCheckMs = undefined
    })().catch((error: unknown) => {
      loaded = undefined
      throw error
    })
    return loaded
  }

  const stopListening = reader.onConnect(() => {
    reconnected = true
    loop.wake()
  })

  const expiresAtMs = (entry: WatchedAddress) => Date.parse(entry.watchUntil) - lateFundsWindowMs
  const isOpen = (entry: WatchedAddress) => (entry.closedAt ?? null) === null

  /**
   * A new payment created before the node's first available block (a node started from a snapshot):
   * what the node lists for its accounts can only be what it has, so what it was paid before that
   * block cannot be seen. Said once per payment, loudly, as the block scanner's backfill says it
   * (coverage.ts; docs/chains.md, "Backfill").
   */
  async function reportHistoryBelow(entries: readonly WatchedAddress[], nowMs: number): Promise<void> {
    if (entries.length === 0) return
    if (firstAvailable === undefined || nowMs - firstAvailable.readAtMs >= FIRST_AVAILABLE_REREAD_MS) {
      firstAvailable = { ...(await reader.firstAvailable()), readAtMs: nowMs }
    }
    const { slot, blockTime } = firstAvailable
    if (slot <= 1) return
    for (const entry of entries) {
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

  /** hands new and closed payments to the watcher; the new ones not reported yet wait for their first check */
  async function follow(nowMs: number): Promise<void> {
    for (const entry of [...toWatch.values()]) {
      await watcher.watch(entry)
      toWatch.delete(entry.paymentId)
      if (entry.watchingReportedAt === null) unchecked.add(entry.paymentId)
    }
    for (const paymentId of [...toClose]) {
      await watcher.close(paymentId)
      toClose.delete(paymentId)
      pastDeadline.delete(paymentId)
    }
    if (nowMs < nextStaleSweepMs) return
    nextStaleSweepMs = nowMs + STALE_OPEN_SWEEP_MS
    for (const entry of watchSet.entries()) {
      if (isOpen(entry) && nowMs - expiresAtMs(entry) >= STALE_OPEN_MS) await watcher.close(entry.paymentId)
    }
  }

  /**
   * the deposit addresses' accounts in batches: all of them every depositCheckIntervalMs (the first
   * iteration included: what arrived while the process was down), and new ones at once, what came
   * to them since their creation read then (their backfill); DEPOSIT_ACCOUNTS_PER_CHECK an iteration
   */
  async function checkDeposits(nowMs: number): Promise<void> {
    for (const [address, createdAt] of [...newDeposits]) {
      // created recently: what came since its creation (less the clock skew) was before its watch
      const from =
        nowMs - Date.parse(createdAt) <= DEPOSIT_BACKFILL_MAX_AGE_MS
          ? new Date(Date.parse(createdAt) - CLOCK_SKEW_MS).toISOString()
          : 'now'
      watcher.watchDeposit(address, { from })
      newDeposits.delete(address)
    }
    if (lastDepositCheckMs === undefined || nowMs - lastDepositCheckMs >= depositCheckIntervalMs) {
      watcher.startDepositRound()
      lastDepositCheckMs = nowMs
    }
    if (watcher.depositChecksPending > 0) await watcher.checkDeposits()
  }

  /** the open payments whose deadline passed by the clock and has not been checked */
  function dueDeadlines(nowMs: number): WatchedAddress[] {
    if (nowMs < nextDeadlineAttemptMs) return []
    return [...watchSet.entries()].filter(
      (entry) => isOpen(entry) && !pastDeadline.has(entry.paymentId) && expiresAtMs(entry) <= nowMs,
    )
  }

  async function iterate(): Promise<void> {
    await load()
    const nowMs = clock.now().getTime()
    await follow(nowMs)

    const fresh = [...unchecked].flatMap((paymentId) => watchSet.byPayment(paymentId) ?? [])
    await reportHistoryBelow(
      fresh.filter((entry) => entry.watchingReportedAt === null),
      nowMs,
    )
    if (fresh.length > 0) await watcher.check(fresh.map((entry) => entry.paymentId))

    // only open payments are followed over the websocket: without them a closed one misses nothing
    const disconnected = watcher.followsOpen && !reader.connected()
    if (disconnected && !disconnectionLogged) {
      logger.warn(
        { everyMs: DISCONNECTED_CHECK_INTERVAL_MS },
        "the node's websocket is not open: checking the open payments' accounts on a timer until it is; check <NETWORK>_WS_URL",
      )
    }
    disconnectionLogged = disconnected
    if (reconnected || (disconnected && nowMs - lastOpenCheckMs >= DISCONNECTED_CHECK_INTERVAL_MS)) {
      // finality subscriptions said nothing while the socket was down (or say nothing while it is)
      follower.recountAll()
      const afterReconnect = reconnected
      reconnected = false
      try {
        // a token account opened for an open payment's owner meanwhile was not heard of either
        if (afterReconnect) await watcher.discoverOpen()
        await watcher.check('open')
      } catch (error) {
        // asked again next iteration: what the socket missed is still unexplained
        reconnected ||= afterReconnect
        throw error
      }
      lastOpenCheckMs = nowMs
    }

    await checkDeposits(nowMs)

    const full = lastFullMs === undefined || nowMs - lastFullMs >= checkIntervalMs
    const due = dueDeadlines(nowMs)
    // the chain time is read before the check: everything up to it is then listed
    const chainTime = full || due.length > 0 ? await reader.chainTime() : undefined
    const reached =
      chainTime === undefined
        ? []
        : due.filter((entry) => expiresAtMs(entry) <= Date.parse(chainTime.blockTime))
    if (due.length > reached.length) nextDeadlineAttemptMs = nowMs + DEADLINE_RETRY_MS
    if (chainTime !== undefined) {
      if (full) await watcher.check('all', chainTime.slot)
      else if (reached.length > 0)
        await watcher.check(
          reached.map((entry) => entry.paymentId),
          chainTime.slot,
        )
    }
    if (watcher.due) await watcher.tick()

    const observedAt = isoNow(clock)
    const reports = fresh.filter((entry) => watchSet.byPayment(entry.paymentId)?.watchingReportedAt === null)
    if (reports.length > 0) {
      await bus.publish(
        Topics.chainObservations,
        reports.map((entry) => observationMessage(watchingObservation(entry, observedAt))),
      )
      for (const entry of reports) await watchSet.markWatchingReported(entry, observedAt)
    }
    for (const entry of fresh) unchecked.delete(entry.paymentId)
    if (watcher.listingPending) return
    if (chainTime !== undefined) await publishProgress(chainTime, full, reached, nowMs)
    // a transaction read since the last report releases what it held, at the same chain time
    else if (published !== undefined && holdsKey(watcher.holds()) !== published.holds) {
      await publishProgress(published.chainTime, false, [], nowMs)
    }
  }

  /** a comparable form of the holds */
  const holdsKey = (holds: readonly ChainTimeHold[]) =>
    JSON.stringify([...holds].sort((a, b) => a.paymentId.localeCompare(b.paymentId)))

  /**
   * the chain time every account was listed up to, with the payments a transaction not read yet
   * holds before it: a payment whose deadline it reaches may expire, unless held (docs/chains.md,
   * "Solana by address: the watcher")
   */
  async function publishProgress(
    chainTime: SolanaChainTime,
    full: boolean,
    reached: readonly WatchedAddress[],
    nowMs: number,
  ): Promise<void> {
    const holds = watcher.holds()
    const { blockTime } = chainTime
    await bus.publish(Topics.chainObservations, [
      observationMessage({
        kind: 'progress',
        network,
        height: chainTime.slot,
        blockTime,
        ...(holds.length === 0 ? {} : { holds }),
        observedAt: isoNow(clock),
      }),
    ])
    published = { chainTime, holds: holdsKey(holds) }
    if (full) lastFullMs = nowMs
    // listed up to the chain time: a held one is let go by the report that follows its read
    for (const entry of reached) pastDeadline.add(entry.paymentId)
    metrics?.scanned(network, chainTime.slot, chainTime.slot)
    for (const entry of await watchSet.prune(new Date(blockTime))) {
      pastDeadline.delete(entry.paymentId)
      await watcher.unwatch(entry.paymentId)
    }
  }

  const loop = createWorkLoop({
    iterate: async () => {
      await iterate()
      return watcher.due || watcher.depositChecksPending > 0 ? 'more' : 'idle'
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
    depositWatch,
    notReadyReason: () =>
      loop.notReadyReason() ??
      (loop.isRunning() && lastFullMs === undefined ? 'no check of the followed accounts yet' : undefined),

    scanOnce: iterate,

    async handlePaymentEvent(message) {
      await load()
      await consumer.handle(message)
    },

    async handleDepositEvent(message) {
      await load()
      await depositConsumer.handle(message)
    },

    async start() {
      if (loop.isRunning()) return
      await load()
      await consumer.start()
      await depositConsumer.start()
      loop.start()
      logger.info(
        { watched: watchSet.size, deposits: depositWatch.size, following: follower.following },
        'chain indexer started',
      )
    },

    async stop() {
      stopListening()
      stopping = true
      const stopped = Promise.all([loop.stop(), consumer.stop(), depositConsumer.stop()])
      // an iteration waiting for a node that does not answer ends now, not at the RPC timeout
      const resumeCalls = reader.interruptCalls()
      try {
        await stopped
      } finally {
        resumeCalls()
        stopping = false
      }
      await watcher.stop()
      reader.release()
      // handed to the watcher again at the next start
      unchecked.clear()
      pastDeadline.clear()
      toWatch.clear()
      newDeposits.clear()
      loaded = undefined
    },
  }
}
