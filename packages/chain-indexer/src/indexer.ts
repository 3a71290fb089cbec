// One network's chain watcher. Each iteration scans the blocks after its cursor for transfers to
// watched addresses, recounts the confirmations of the transfers it still tracks, publishes what it
// saw, and only then moves its cursor: a crash in between publishes again (at least once), and the
// observations are idempotent downstream.

import type { AssetRegistry } from '@chainpay/domain'
import { findNetwork } from '@chainpay/domain'
import {
  type Clock,
  createWorkLoop,
  isoNow,
  type Logger,
  moduleLogger,
  type Service,
} from '@chainpay/platform'
import {
  type Bus,
  type BusMessage,
  type ChainBlock,
  type ChainClient,
  type ChainCursor,
  type ChainHead,
  type ChainIndexerStore,
  type ConsumedMessage,
  Topics,
  type TrackedTransfer,
  type WatchedAddress,
} from '@chainpay/ports'
import { BLOCK_TIME_SKEW_MS, CLOCK_SKEW_MS, createScanHistory, firstHeightAtOrAfter } from './backfill.js'
import { observationMessage, transferObservation } from './observations.js'
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
}

export interface ChainIndexer extends Service {
  readonly network: string
  readonly watchSet: WatchSet
  /** one iteration (what the running loop repeats); throws what went wrong */
  scanOnce(): Promise<void>
  /** handles one payment event message as the running indexer's subscription does */
  handlePaymentEvent(message: ConsumedMessage): Promise<void>
}

const MAX_BACKOFF_MS = 10_000
const PRUNE_INTERVAL_MS = 60_000

interface ScanState {
  cursor: ChainCursor | null
  /** transfers still short of the required confirmations, by transferKey */
  tracked: Map<string, TrackedTransfer>
}

interface BackfillRequest {
  address: WatchedAddress
  createdAtMs: number
  /** highest height scanned when the address was added; null: the stored cursor */
  through: number | null
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
  const required = definition.requiredConfirmations
  const batchSize = positiveInteger('maxBlocksPerBatch', options.maxBlocksPerBatch ?? 100)
  const pollIntervalMs = positiveInteger('pollIntervalMs', options.pollIntervalMs ?? 500)
  const startHeight = options.startHeight ?? 'head'

  const watchSet = createWatchSet({ network, store })
  const history = createScanHistory()
  const backfills: BackfillRequest[] = []
  let highestMatched: number | undefined
  const consumer = createPaymentEventConsumer({
    bus,
    registry: options.registry,
    watchSets: [watchSet],
    logger,
    lateFundsWindowMs: options.lateFundsWindowMs,
    groupId: options.paymentEventsGroupId ?? `chain-indexer.${network}`,
    onWatched(address, createdAt) {
      // recorded synchronously, before any later block is matched, so that `through` is exact
      backfills.push({ address, createdAtMs: Date.parse(createdAt), through: highestMatched ?? null })
    },
  })

  let watchSetLoad: Promise<void> | undefined
  let state: ScanState | undefined
  let lastPruneMs: number | undefined

  const loadWatchSet = () => {
    watchSetLoad ??= watchSet.load().catch((error: unknown) => {
      watchSetLoad = undefined
      throw error
    })
    return watchSetLoad
  }

  async function loadState(): Promise<ScanState> {
    await loadWatchSet()
    if (state) return state
    const [cursor, tracked] = await Promise.all([store.loadCursor(network), store.listTracked(network)])
    state = { cursor, tracked: new Map(tracked.map((transfer) => [transferKey(transfer), transfer])) }
    return state
  }

  const confirmationsAt = (height: number, head: ChainHead) =>
    Math.max(0, Math.min(head.height - height + 1, required))

  /** the watched transfers in `blocks` that `accept` lets through; synchronous, so no watch changes midway */
  function match(
    blocks: ChainBlock[],
    head: ChainHead,
    accept: (address: WatchedAddress) => boolean,
  ): TrackedTransfer[] {
    const transfers: TrackedTransfer[] = []
    for (const block of blocks) {
      for (const transfer of block.transfers) {
        const watched = watchSet.match(transfer)
        if (watched === undefined || !accept(watched)) continue
        transfers.push({
          network,
          paymentId: watched.paymentId,
          txHash: transfer.txHash,
          index: transfer.index,
          address: transfer.to,
          amountUnits: transfer.amountUnits,
          blockHeight: block.height,
          blockHash: block.hash,
          blockTime: block.time,
          confirmations: confirmationsAt(block.height, head),
        })
      }
    }
    return transfers
  }

  /** publishes 'seen' for each matched transfer, then tracks those still short of the requirement */
  async function report(current: ScanState, transfers: TrackedTransfer[]): Promise<void> {
    if (transfers.length === 0) return
    const observedAt = isoNow(clock)
    const messages = transfers.map((transfer) =>
      observationMessage(transferObservation(transfer, { status: 'seen' }, observedAt)),
    )
    await bus.publish(Topics.chainObservations, messages)
    for (const transfer of transfers) {
      if (transfer.confirmations < required) await track(current, transfer)
      else await untrack(current, transfer)
    }
    logger.debug({ transfers: transfers.length }, 'transfers seen')
  }

  async function track(current: ScanState, transfer: TrackedTransfer): Promise<void> {
    await store.track(transfer)
    current.tracked.set(transferKey(transfer), transfer)
  }

  async function untrack(current: ScanState, transfer: TrackedTransfer): Promise<void> {
    const key = transferKey(transfer)
    if (!current.tracked.has(key)) return
    await store.untrack(network, transfer.txHash, transfer.index)
    current.tracked.delete(key)
  }

  async function runBackfills(current: ScanState, head: ChainHead, fetched: Map<number, ChainBlock>) {
    const requests = backfills.splice(0)
    if (requests.length === 0) return
    try {
      let from = Number.POSITIVE_INFINITY
      let through = Number.NEGATIVE_INFINITY
      const addresses = new Set<string>()
      for (const request of requests) {
        const last = request.through ?? current.cursor?.height
        if (last === undefined) continue
        const first = await backfillStart(request.createdAtMs, last)
        if (first > last) continue
        from = Math.min(from, first)
        through = Math.max(through, last)
        addresses.add(request.address.address)
      }
      if (addresses.size === 0) return
      logger.info(
        { from, through, addresses: addresses.size },
        'rescanning blocks for newly watched addresses',
      )
      for (let batchStart = from; batchStart <= through; batchStart += batchSize) {
        const blocks = await client.getBlocks(batchStart, Math.min(through, batchStart + batchSize - 1))
        for (const block of blocks) fetched.set(block.height, block)
        await report(
          current,
          match(blocks, head, (watched) => addresses.has(watched.address)),
        )
      }
    } catch (error) {
      backfills.unshift(...requests)
      throw error
    }
  }

  /** the first height an address created at `createdAtMs` may have been paid in, among those scanned */
  async function backfillStart(createdAtMs: number, through: number): Promise<number> {
    const sinceMs = createdAtMs - CLOCK_SKEW_MS
    const oldest = history.oldestMatchedAtMs()
    if (oldest !== undefined && oldest <= sinceMs) {
      return history.lowestHeightMatchedSince(sinceMs) ?? Number.POSITIVE_INFINITY
    }
    // scanned by an earlier run too: find the blocks by their own time
    return firstHeightAtOrAfter(client, createdAtMs - BLOCK_TIME_SKEW_MS, 0, through)
  }

  /** scans the blocks after the cursor; the last block scanned, undefined when there was none */
  async function scanNewBlocks(
    current: ScanState,
    head: ChainHead,
    fetched: Map<number, ChainBlock>,
  ): Promise<ChainBlock | undefined> {
    let from = current.cursor ? current.cursor.height + 1 : startHeight === 'head' ? head.height : startHeight
    if (from > head.height) return undefined
    let blocks = await client.getBlocks(from, Math.min(head.height, from + batchSize - 1))
    const first = blocks[0]
    if (current.cursor && first?.height === from && first.parentHash !== current.cursor.hash) {
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
    const matched = match(blocks, head, () => true)
    history.record(blocks, clock.now().getTime())
    highestMatched = Math.max(highestMatched ?? last.height, last.height)
    await report(current, matched)
    current.cursor = { height: last.height, hash: last.hash }
    return last
  }

  /** recounts the tracked transfers on the canonical chain: more confirmations, dropped or reverted */
  async function confirmTracked(current: ScanState, head: ChainHead, fetched: Map<number, ChainBlock>) {
    if (current.tracked.size === 0) return
    const heights = [...new Set([...current.tracked.values()].map((transfer) => transfer.blockHeight))]
    const missing = heights.filter((height) => !fetched.has(height)).sort((a, b) => a - b)
    for (const [from, to] of contiguousRuns(missing)) {
      for (const block of await client.getBlocks(from, to)) fetched.set(block.height, block)
    }
    const observedAt = isoNow(clock)
    const messages: BusMessage[] = []
    const changes: Array<() => Promise<void>> = []
    for (const transfer of current.tracked.values()) {
      const block = fetched.get(transfer.blockHeight)
      const onChain = block?.transfers.find(
        (candidate) => candidate.txHash === transfer.txHash && candidate.index === transfer.index,
      )
      if (block === undefined || onChain === undefined || !onChain.success) {
        const reason = onChain === undefined ? 'DROPPED' : 'REVERTED'
        messages.push(
          observationMessage(transferObservation(transfer, { status: 'withdrawn', reason }, observedAt)),
        )
        changes.push(() => untrack(current, transfer))
        logger.info({ paymentId: transfer.paymentId, txHash: transfer.txHash, reason }, 'transfer withdrawn')
        continue
      }
      const confirmations = confirmationsAt(block.height, head)
      const grew = confirmations > transfer.confirmations
      if (!grew && block.hash === transfer.blockHash) continue
      // a block replaced by one that still holds the transfer: same transfer, new block hash
      const next: TrackedTransfer = {
        ...transfer,
        blockHash: block.hash,
        blockTime: block.time,
        confirmations: Math.max(confirmations, transfer.confirmations),
      }
      if (grew) messages.push(observationMessage(transferObservation(next, { status: 'seen' }, observedAt)))
      changes.push(() => (next.confirmations >= required ? untrack(current, next) : track(current, next)))
    }
    if (messages.length > 0) await bus.publish(Topics.chainObservations, messages)
    for (const change of changes) await change()
  }

  async function pruneWhenDue(): Promise<void> {
    const now = clock.now()
    if (lastPruneMs !== undefined && now.getTime() - lastPruneMs < PRUNE_INTERVAL_MS) return
    const pruned = await watchSet.prune(now)
    lastPruneMs = now.getTime()
    if (pruned.length > 0)
      logger.info({ pruned: pruned.length }, 'stopped watching addresses past their window')
  }

  /** one iteration; true when blocks up to the head remain to be scanned */
  async function iterate(): Promise<boolean> {
    try {
      const current = await loadState()
      const head = await client.getHead()
      const fetched = new Map<number, ChainBlock>()
      await runBackfills(current, head, fetched)
      const last = await scanNewBlocks(current, head, fetched)
      await confirmTracked(current, head, fetched)
      if (last !== undefined) {
        const progress = observationMessage({
          kind: 'progress',
          network,
          height: last.height,
          blockTime: last.time,
          observedAt: isoNow(clock),
        })
        await bus.publish(Topics.chainObservations, [progress])
        await store.saveCursor(network, { height: last.height, hash: last.hash })
      }
      await pruneWhenDue()
      return last !== undefined && last.height < head.height
    } catch (error) {
      // what is in memory may be ahead of the store: read it again next time
      state = undefined
      throw error
    }
  }

  const loop = createWorkLoop({
    iterate: async () => ((await iterate()) ? 'more' : 'idle'),
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

    async scanOnce() {
      await iterate()
    },

    async handlePaymentEvent(message) {
      await loadWatchSet()
      await consumer.handle(message)
    },

    async start() {
      if (loop.isRunning()) return
      const current = await loadState()
      await consumer.start()
      loop.start()
      logger.info(
        { cursor: current.cursor, watched: watchSet.size, tracked: current.tracked.size, required },
        'chain indexer started',
      )
    },

    async stop() {
      await Promise.all([loop.stop(), consumer.stop()])
    },
  }
}

function transferKey(transfer: Pick<TrackedTransfer, 'txHash' | 'index'>): string {
  return `${transfer.txHash}:${transfer.index}`
}

/** [from, to] pairs covering ascending heights, one pair per run of consecutive heights */
function contiguousRuns(heights: number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = []
  for (const height of heights) {
    const run = runs.at(-1)
    if (run !== undefined && height === run[1] + 1) run[1] = height
    else runs.push([height, height])
  }
  return runs
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`chain indexer: ${name} must be a positive integer, got ${value}`)
  }
  return value
}
