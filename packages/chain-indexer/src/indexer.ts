// One network's chain watcher. Each iteration backfills newly watched addresses (coverage.ts), scans
// the blocks after its cursor for transfers to watched addresses, recounts the confirmations of the
// transfers it still follows (confirmations.ts), publishes what it saw and its progress, and only then
// moves its cursor: a crash in between publishes again (at least once), and the observations are
// idempotent downstream.

import type { AssetRegistry } from '@chainpay/domain'
import { findNetwork } from '@chainpay/domain'
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
  type ChainBlock,
  type ChainClient,
  type ChainCursor,
  type ChainHead,
  type ChainIndexerStore,
  type ConsumedMessage,
  Topics,
} from '@chainpay/ports'
import { createScanHistory } from './backfill.js'
import { createTransferTracker, matchTransfers, type TransferTracker } from './confirmations.js'
import { createCoverage } from './coverage.js'
import type { DepositWatch } from './deposit-addresses.js'
import {
  createDepositAddressConsumer,
  createDepositPayeeOf,
  createDepositWatch,
} from './deposit-addresses.js'
import { createDepositBackfill } from './deposit-backfill.js'
import { observationMessage } from './observations.js'
import { createPayeeOf } from './payees.js'
import { createPaymentEventConsumer } from './payment-event-consumer.js'
import { createWatchSet, type WatchSet } from './watch-set.js'

export interface ChainIndexerOptions {
  network: string
  client: ChainClient
  store: ChainIndexerStore
  bus: Bus
  registry: AssetRegistry
  clock: Clock
  logger: Logger
  /** pause between iterations once caught up with the head; default 500 ms */
  pollIntervalMs?: number
  /** most blocks fetched per iteration; default 100 */
  maxBlocksPerBatch?: number
  /** how long after expiry an address stays watched; default 7 days */
  lateFundsWindowMs?: number
  /** where the very first run starts (later runs resume from the cursor); default the head */
  startHeight?: 'head' | number
  /**
   * consumer group for payment events; default `chain-indexer.<network>`: each network's indexer
   * reads every payment event, so that indexers of several networks never share a group's offsets
   */
  paymentEventsGroupId?: string
  /** consumer group for deposit address events; default `chain-indexer-deposits.<network>` */
  depositEventsGroupId?: string
  /** told how far behind the chain head it is after each scan; e.g. service-kit's `createServiceMetrics(...).chain` */
  metrics?: ChainIndexerMetrics
  /** the operator's treasuries: what they send is nobody's funds (TREASURY_ADDRESSES, docs/treasury.md) */
  treasuries?: ReadonlySet<string>
}

export interface ChainIndexerMetrics {
  /** after a scan of `network`: the chain's head and the height the indexer's cursor stands at */
  scanned(network: string, headHeight: number, cursorHeight: number): void
}

export interface ChainIndexer extends Service, ReadinessReporter {
  readonly network: string
  readonly watchSet: WatchSet
  /** the customers' deposit addresses watched (decisions.md section 22) */
  readonly depositWatch: DepositWatch
  /** one iteration (what the running loop repeats); throws what went wrong */
  scanOnce(): Promise<void>
  /** handles one payment event message as the running indexer's subscription does */
  handlePaymentEvent(message: ConsumedMessage): Promise<void>
  /** handles one deposit address event message as the running indexer's subscription does */
  handleDepositEvent(message: ConsumedMessage): Promise<void>
}

const MAX_BACKOFF_MS = 10_000
const PRUNE_INTERVAL_MS = 60_000

interface ScanState {
  cursor: ChainCursor | null
  tracker: TransferTracker
}

export function createChainIndexer(options: ChainIndexerOptions): ChainIndexer {
  const { network, client, store, bus, clock } = options
  const logger = moduleLogger(options.logger, 'chain-indexer').child({ network })
  const definition = findNetwork(options.registry, network)
  if (definition === undefined)
    throw new Error(`chain indexer: network ${network} is not in the asset registry`)
  if (client.network !== network) {
    throw new Error(`chain indexer for ${network}: the chain client is for ${client.network}`)
  }
  /** the network's requirement now: how far back a reorganization below the cursor rescans */
  const required = definition.requiredConfirmations
  const batchSize = positiveInteger('maxBlocksPerBatch', options.maxBlocksPerBatch ?? 100)
  const pollIntervalMs = positiveInteger('pollIntervalMs', options.pollIntervalMs ?? 500)
  const startHeight = options.startHeight ?? 'head'

  const watchSet = createWatchSet({ network, store })
  const payeeOf = createPayeeOf(
    {
      network,
      registry: options.registry,
      ...(options.treasuries ? { treasuries: options.treasuries } : {}),
    },
    watchSet,
  )
  const depositWatch = createDepositWatch({ network, store })
  const payeeOrDeposit = createDepositPayeeOf(
    {
      network,
      registry: options.registry,
      ...(options.treasuries ? { treasuries: options.treasuries } : {}),
    },
    depositWatch,
    payeeOf,
  )
  const depositConsumer = createDepositAddressConsumer({
    bus,
    registry: options.registry,
    watches: [depositWatch],
    logger,
    groupId: options.depositEventsGroupId ?? `chain-indexer-deposits.${network}`,
    // a new address's blocks scanned again before it is watched, between two iterations; the
    // consumer's offset moves once it is stored, so a crash in between backfills it again
    watchNew: (watch, entry, createdAt) =>
      exclusive(async () => {
        const current = await loadState()
        const head = lastHead ?? (await client.getHead())
        const firstScan = startHeight === 'head' ? head.height : startHeight
        const through = highestMatched ?? current.cursor?.height ?? firstScan - 1
        await depositBackfill({
          entry,
          createdAt,
          through: through >= 1 ? through : undefined,
          head,
          tracker: current.tracker,
        })
        return watch.watch(entry)
      }),
  })
  const history = createScanHistory()
  const depositBackfill = createDepositBackfill({
    network,
    client,
    registry: options.registry,
    ...(options.treasuries ? { treasuries: options.treasuries } : {}),
    payeeOf,
    history,
    batchSize,
    logger,
  })
  const coverage = createCoverage({
    network,
    client,
    watchSet,
    payeeOf,
    history,
    bus,
    clock,
    logger,
    batchSize,
  })
  let highestMatched: number | undefined
  const consumer = createPaymentEventConsumer({
    bus,
    registry: options.registry,
    watchSets: [watchSet],
    logger,
    lateFundsWindowMs: options.lateFundsWindowMs,
    groupId: options.paymentEventsGroupId ?? `chain-indexer.${network}`,
    onWatched(address) {
      // right after the address entered the watch set: every block matched from now on includes it
      coverage.request(address, highestMatched)
    },
  })

  let watchSetLoad: Promise<void> | undefined
  let state: ScanState | undefined
  let lastPruneMs: number | undefined
  /** the block time of the cursor once this run saved one: the chain time that ends late funds windows */
  let cursorTime: string | undefined
  /** the last block scanned, while its progress is held back for a pending backfill */
  let unpublishedProgress: ChainBlock | undefined
  /** the head the last iteration read */
  let lastHead: ChainHead | undefined
  /** the iterations and the deposit addresses' backfills, one at a time */
  let exclusiveTail: Promise<unknown> = Promise.resolve()
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = exclusiveTail.then(work)
    exclusiveTail = result.catch(() => undefined)
    return result
  }

  const loadWatchSet = () => {
    watchSetLoad ??= Promise.all([watchSet.load(), depositWatch.load()])
      .then(() => undefined)
      .catch((error: unknown) => {
        watchSetLoad = undefined
        throw error
      })
    return watchSetLoad
  }

  async function loadState(): Promise<ScanState> {
    await loadWatchSet()
    if (state) return state
    const [cursor, tracked] = await Promise.all([store.loadCursor(network), store.listTracked(network)])
    const tracker = createTransferTracker({ network, client, store, bus, clock, logger, tracked })
    // an address whose watching was never reported may have missed its backfill: the process stopped
    coverage.requestUnreported()
    state = { cursor, tracker }
    return state
  }

  /** scans the blocks after the cursor; the last block scanned, undefined when there was none */
  async function scanNewBlocks(
    current: ScanState,
    head: ChainHead,
    fetched: Map<number, ChainBlock>,
  ): Promise<ChainBlock | undefined> {
    let from = current.cursor ? current.cursor.height + 1 : startHeight === 'head' ? head.height : startHeight
    // a fork switch to a fork of the same length: the head is at the cursor's height with another hash
    const replacedHead = current.cursor?.height === head.height && current.cursor.hash !== head.hash
    if (from > head.height && !replacedHead) return undefined
    let blocks = replacedHead ? [] : await client.getBlocks(from, Math.min(head.height, from + batchSize - 1))
    const first = blocks[0]
    const unlinked = first?.height === from && first.parentHash !== current.cursor?.hash
    if (current.cursor && (replacedHead || unlinked)) {
      // The chain reorganized under the cursor: step back far enough to be on final blocks again.
      const rewound = Math.max(0, current.cursor.height - required)
      const [anchor] = await client.getBlocks(rewound, rewound)
      logger.warn(
        { cursor: current.cursor, rewoundTo: rewound },
        'chain reorganized below the cursor; rescanning from an earlier block',
      )
      current.cursor = anchor ? { height: anchor.height, hash: anchor.hash } : null
      from = rewound + 1
      blocks = await client.getBlocks(from, Math.min(head.height, from + batchSize - 1))
    }
    const last = blocks.at(-1)
    if (last === undefined) return undefined
    for (const block of blocks) fetched.set(block.height, block)
    // a transfer in doubt included again is reported even if its address is no longer watched
    const matched = matchTransfers(
      network,
      blocks,
      (transfer) => current.tracker.withdrawnMatching(transfer) ?? payeeOrDeposit(transfer),
    )
    history.record(blocks, clock.now().getTime())
    highestMatched = Math.max(highestMatched ?? last.height, last.height)
    await current.tracker.reportSeen(matched, head)
    current.cursor = { height: last.height, hash: last.hash }
    return last
  }

  async function pruneWhenDue(): Promise<void> {
    // Chain time, not the clock: while a backlog is scanned, its blocks are older than the clock.
    if (cursorTime === undefined) return
    const nowMs = clock.now().getTime()
    if (lastPruneMs !== undefined && nowMs - lastPruneMs < PRUNE_INTERVAL_MS) return
    const pruned = await watchSet.prune(new Date(cursorTime))
    lastPruneMs = nowMs
    if (pruned.length > 0)
      logger.info({ pruned: pruned.length }, 'stopped watching addresses past their window')
  }

  /** one iteration; true when blocks up to the head remain to be scanned */
  async function iterate(): Promise<boolean> {
    try {
      const current = await loadState()
      const head = await client.getHead()
      lastHead = head
      const fetched = new Map<number, ChainBlock>()
      const firstScanHeight = startHeight === 'head' ? head.height : startHeight
      const backfillContext = () => ({
        cursor: current.cursor,
        firstScanHeight: current.cursor ? undefined : firstScanHeight,
        head,
        tracker: current.tracker,
        fetched,
      })
      await coverage.run(backfillContext())
      const last = await scanNewBlocks(current, head, fetched)
      await current.tracker.recount(head, fetched)
      // addresses watched while this iteration ran, so that the progress below speaks for them too
      await coverage.run(backfillContext())
      if (last !== undefined) unpublishedProgress = last
      // a backfill requested meanwhile may yet find transfers in the blocks that progress would cover
      if (unpublishedProgress !== undefined && !coverage.pending) {
        await publishProgress(unpublishedProgress)
        unpublishedProgress = undefined
      }
      if (last !== undefined) {
        await store.saveCursor(network, { height: last.height, hash: last.hash })
        cursorTime = last.time
      }
      if (current.cursor) options.metrics?.scanned(network, head.height, current.cursor.height)
      await pruneWhenDue()
      return last !== undefined && last.height < head.height
    } catch (error) {
      // what is in memory may be ahead of the store: read it again next time
      state = undefined
      throw error
    }
  }

  async function publishProgress(last: ChainBlock): Promise<void> {
    const progress = observationMessage({
      kind: 'progress',
      network,
      height: last.height,
      blockTime: last.time,
      observedAt: isoNow(clock),
    })
    await bus.publish(Topics.chainObservations, [progress])
  }

  const loop = createWorkLoop({
    iterate: async () => ((await exclusive(iterate)) ? 'more' : 'idle'),
    pollIntervalMs,
    maxBackoffMs: MAX_BACKOFF_MS,
    onFailure(error, retry) {
      logger.error({ err: error, ...retry }, 'chain scan failed; retrying')
    },
  })

  return {
    name: `chain indexer ${network}`,
    network,
    watchSet,
    depositWatch,
    notReadyReason: () => loop.notReadyReason(),

    async scanOnce() {
      await exclusive(iterate)
    },

    async handlePaymentEvent(message) {
      await loadWatchSet()
      await consumer.handle(message)
    },

    async handleDepositEvent(message) {
      await loadWatchSet()
      await depositConsumer.handle(message)
    },

    async start() {
      if (loop.isRunning()) return
      const current = await loadState()
      await consumer.start()
      await depositConsumer.start()
      loop.start()
      logger.info(
        { cursor: current.cursor, watched: watchSet.size, tracked: current.tracker.size },
        'chain indexer started',
      )
    },

    async stop() {
      await Promise.all([loop.stop(), consumer.stop(), depositConsumer.stop()])
    },
  }
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`chain indexer: ${name} must be a positive integer, got ${value}`)
  }
  return value
}
