// An address can start being watched after blocks that pay it were already scanned: the payment
// event arrives late when the relay or the bus lags, or when the indexer catches up after a restart
// faster than its payment event consumer. Such an address gets its recent blocks scanned again, from
// about its payment's creation time up to what had been scanned when it was added.

import type { ChainBlock, ChainClient } from '@chainpay/ports'

/** allowed difference between the clock that stamped a payment's createdAt and the indexer's clock */
export const CLOCK_SKEW_MS = 5_000

/** allowed difference between block timestamps and wall clocks, for blocks scanned by earlier runs */
export const BLOCK_TIME_SKEW_MS = 60_000

const DEFAULT_HISTORY_LIMIT = 10_000
/** recent blocks kept whole: a payment's backfill usually covers the last block or two (docs/chains.md, "Call budget") */
const RECENT_BLOCKS = 32

interface ScannedBlock {
  height: number
  matchedAtMs: number
}

/** When (by the indexer's clock) this run matched which block heights, the latest `limit` of them. */
export interface ScanHistory {
  record(blocks: readonly ChainBlock[], matchedAtMs: number): void
  /** the matched time of the oldest record, undefined when empty */
  oldestMatchedAtMs(): number | undefined
  /** the lowest height matched at or after `sinceMs`; undefined when none was */
  lowestHeightMatchedSince(sinceMs: number): number | undefined
  /** the block last matched at `height`, if it is among the most recent ones */
  recentBlock(height: number): ChainBlock | undefined
}

export function createScanHistory(limit: number = DEFAULT_HISTORY_LIMIT): ScanHistory {
  let records: ScannedBlock[] = []
  const recent = new Map<number, ChainBlock>()
  return {
    record(blocks, matchedAtMs) {
      for (const block of blocks) {
        records.push({ height: block.height, matchedAtMs })
        recent.set(block.height, block)
      }
      if (records.length > limit) records = records.slice(records.length - limit)
      const newest = Math.max(...recent.keys())
      for (const height of recent.keys()) if (height <= newest - RECENT_BLOCKS) recent.delete(height)
    },

    recentBlock(height) {
      return recent.get(height)
    },

    oldestMatchedAtMs() {
      return records[0]?.matchedAtMs
    },

    lowestHeightMatchedSince(sinceMs) {
      // Records are appended as time goes on; after a rewind a later record can have a lower height.
      let lowest: number | undefined
      for (let index = records.length - 1; index >= 0; index--) {
        const record = records[index] as ScannedBlock
        if (record.matchedAtMs < sinceMs) break
        if (lowest === undefined || record.height < lowest) lowest = record.height
      }
      return lowest
    },
  }
}

/**
 * The lowest height in [low, high] whose block time is at or after `timeMs`, by binary search. A
 * height without a block counts as after, so the search can only start a rescan earlier, never later.
 */
export async function firstHeightAtOrAfter(
  client: ChainClient,
  timeMs: number,
  low: number,
  high: number,
): Promise<number> {
  let from = low
  let to = high
  while (from < to) {
    const middle = Math.floor((from + to) / 2)
    const [block] = await client.getBlocks(middle, middle)
    if (block === undefined || Date.parse(block.time) >= timeMs) to = middle
    else from = middle + 1
  }
  return from
}
