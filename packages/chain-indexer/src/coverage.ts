// The indexer's progress speaks for a payment only once every block since the payment's creation has
// been checked for its address. An address often enters the watch set after some of those blocks
// were scanned (its payment event came late, or the indexer caught up faster than its consumer), so
// it gets them scanned again, a backfill. While a backfill is pending the indexer publishes no
// progress, and once it is done, a 'watching' observation (after the transfers it found) tells the
// payment's consumers that progress speaks for that payment from then on. The report is recorded in
// the store; an address still unreported when the indexer starts (it stopped in between) gets its
// backfill and its report then: at least once.

import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type Bus,
  type ChainBlock,
  type ChainClient,
  type ChainCursor,
  type ChainHead,
  Topics,
  type WatchedAddress,
} from '@chainpay/ports'
import { BLOCK_TIME_SKEW_MS, CLOCK_SKEW_MS, firstHeightAtOrAfter, type ScanHistory } from './backfill.js'
import { matchTransfers, type TransferTracker } from './confirmations.js'
import { observationMessage, watchingObservation } from './observations.js'
import type { PayeeOf } from './payees.js'
import { paymentAddressOf, type WatchSet } from './watch-set.js'

/** what the indexer logs, in either Solana watch mode and on TRON, of a payment whose history the node lacks */
export const HISTORY_BELOW_MESSAGE =
  "a payment's history lies below the node's first available block: transfers before it cannot be seen; use a node with that history"

export interface Coverage {
  /**
   * an address that just entered the watch set; `through` is the highest height scanned without it,
   * undefined when this run scanned none yet (then the cursor, when the backfill runs)
   */
  request(address: WatchedAddress, through: number | undefined): void
  /** requests a backfill for every watched address whose watching was not reported */
  requestUnreported(): void
  /** true while a backfill waits to run */
  readonly pending: boolean
  /**
   * runs the pending backfills, reports the transfers they find, then 'watching' for their addresses;
   * `fetched` gets the blocks fetched
   */
  run(context: BackfillContext): Promise<void>
}

export interface BackfillContext {
  cursor: ChainCursor | null
  /**
   * without a cursor (a first run), the height this run's first scan starts at: the blocks below it
   * are scanned by no one but a backfill
   */
  firstScanHeight: number | undefined
  head: ChainHead
  tracker: TransferTracker
  fetched: Map<number, ChainBlock>
}

export interface CoverageOptions {
  network: string
  client: ChainClient
  watchSet: WatchSet
  payeeOf: PayeeOf
  /** what this run scanned when, for the start of a backfill */
  history: ScanHistory
  bus: Bus
  clock: Clock
  logger: Logger
  batchSize: number
}

interface BackfillRequest {
  address: WatchedAddress
  through: number | undefined
}

export function createCoverage(options: CoverageOptions): Coverage {
  const { network, client, watchSet, payeeOf, history, bus, clock, logger, batchSize } = options
  /** by address: an address waits for one backfill at a time */
  const pending = new Map<string, BackfillRequest>()

  function request(address: WatchedAddress, through: number | undefined): void {
    if (!pending.has(address.address)) pending.set(address.address, { address, through })
  }

  /** the first height an address of a payment created at `createdAtMs` may have been paid in */
  async function backfillStart(address: WatchedAddress, through: number): Promise<number> {
    const createdAtMs = Date.parse(address.paymentCreatedAt)
    const sinceMs = createdAtMs - CLOCK_SKEW_MS
    const oldest = history.oldestMatchedAtMs()
    if (oldest !== undefined && oldest <= sinceMs) {
      return history.lowestHeightMatchedSince(sinceMs) ?? Number.POSITIVE_INFINITY
    }
    // scanned by an earlier run too: find the blocks by their own time, among those the node has
    const floor = (await client.firstAvailableHeight?.()) ?? 0
    const fromMs = createdAtMs - BLOCK_TIME_SKEW_MS
    const start = await firstHeightAtOrAfter(client, fromMs, floor, through)
    if (start === floor && floor > 1) await reportHistoryBelow(address, floor, fromMs)
    return start
  }

  /**
   * A payment whose blocks begin below the node's first block (a node started from a snapshot):
   * they cannot be read here, and walking down to them would stall every payment of the network.
   * Said once, loudly; the backfill covers what the node has (docs/chains.md, "Backfill").
   */
  async function reportHistoryBelow(address: WatchedAddress, floor: number, fromMs: number): Promise<void> {
    const [first] = await client.getBlocks(floor, floor)
    if (first === undefined || Date.parse(first.time) <= fromMs) return
    logger.error(
      {
        paymentId: address.paymentId,
        address: address.address,
        paymentCreatedAt: address.paymentCreatedAt,
        firstAvailableHeight: floor,
        firstAvailableTime: first.time,
      },
      HISTORY_BELOW_MESSAGE,
    )
  }

  async function backfill(requests: BackfillRequest[], context: BackfillContext): Promise<void> {
    let from = Number.POSITIVE_INFINITY
    let through = Number.NEGATIVE_INFINITY
    const addresses = new Set<string>()
    for (const { address, through: requested } of requests) {
      const last = requested ?? context.cursor?.height ?? belowFirstScan(context)
      // nothing scanned yet and the first scan starts at the chain's first block: it sees them all
      if (last === undefined) continue
      const first = await backfillStart(address, last)
      if (first > last) continue
      from = Math.min(from, first)
      through = Math.max(through, last)
      addresses.add(paymentAddressOf(address))
      addresses.add(address.address)
    }
    if (addresses.size === 0) return
    logger.info({ from, through, addresses: addresses.size }, 'rescanning blocks for newly watched addresses')
    for (let batchStart = from; batchStart <= through; batchStart += batchSize) {
      const batchEnd = Math.min(through, batchStart + batchSize - 1)
      // the blocks this run just matched are kept: the usual backfill reads nothing
      const kept = Array.from({ length: batchEnd - batchStart + 1 }, (_, at) =>
        history.recentBlock(batchStart + at),
      )
      const blocks = kept.every((block) => block !== undefined)
        ? (kept as ChainBlock[])
        : await client.getBlocks(batchStart, batchEnd)
      for (const block of blocks) context.fetched.set(block.height, block)
      const found = matchTransfers(network, blocks, (transfer) =>
        addresses.has(transfer.to) || (transfer.owner !== undefined && addresses.has(transfer.owner))
          ? payeeOf(transfer)
          : undefined,
      )
      await context.tracker.reportSeen(found, context.head)
    }
  }

  /** 'watching' for the addresses still watched for the same payment and not reported yet */
  async function reportWatching(requests: BackfillRequest[]): Promise<void> {
    const unreported = requests.flatMap(({ address }) => {
      const current = watchSet.get(paymentAddressOf(address))
      return current?.paymentId === address.paymentId && current.watchingReportedAt === null ? [current] : []
    })
    if (unreported.length === 0) return
    const observedAt = isoNow(clock)
    await bus.publish(
      Topics.chainObservations,
      unreported.map((address) => observationMessage(watchingObservation(address, observedAt))),
    )
    for (const address of unreported) await watchSet.markWatchingReported(address, observedAt)
    logger.debug({ addresses: unreported.length }, 'watching reported')
  }

  /** on a first run, the blocks the first scan skips, up to the one below its start */
  function belowFirstScan(context: BackfillContext): number | undefined {
    const start = context.firstScanHeight
    return start === undefined || start <= 1 ? undefined : start - 1
  }

  return {
    request,

    requestUnreported() {
      for (const address of watchSet.unreported()) request(address, undefined)
    },

    get pending() {
      return pending.size > 0
    },

    async run(context) {
      const requests = [...pending.values()]
      pending.clear()
      if (requests.length === 0) return
      try {
        await backfill(requests, context)
        await reportWatching(requests)
      } catch (error) {
        for (const failed of requests) request(failed.address, failed.through)
        throw error
      }
    },
  }
}
