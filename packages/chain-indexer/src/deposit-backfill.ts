// A customer's deposit address enters the deposit watch when the indexer reads its
// DepositAddressCreated, which can come after blocks that pay it were scanned: the relay or the bus
// lags, the indexer's deposit consumer is behind, or a customer pays in the moment between the
// address's creation and its watch. So before the address is watched, its blocks since its creation
// (a little before: clock skew) up to what was scanned without it are scanned again for it, as a
// payment's watch is backfilled (coverage.ts, backfill.ts; docs/chains.md, "Customers' deposit
// addresses"). Only what nobody reported is reported: a transfer there that a payment's watch claims
// (the address's PER_USER payment, its foreign funds, its late funds) was that payment's, by the
// scan or by the payment's own backfill.

import type { AssetRegistry } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { ChainBlock, ChainClient, ChainHead, WatchedDepositAddress } from '@chainpay/ports'
import { BLOCK_TIME_SKEW_MS, CLOCK_SKEW_MS, firstHeightAtOrAfter, type ScanHistory } from './backfill.js'
import { matchTransfers, type TransferTracker } from './confirmations.js'
import { createDepositPayeeOf, DEPOSIT_BACKFILL_MAX_AGE_MS } from './deposit-addresses.js'
import type { PayeeOf } from './payees.js'

export interface DepositBackfillOptions {
  network: string
  client: ChainClient
  registry: AssetRegistry
  treasuries?: ReadonlySet<string>
  /** the payees of the payments' watch set */
  payeeOf: PayeeOf
  /** what this run scanned when, for the start of a backfill */
  history: ScanHistory
  batchSize: number
  logger: Logger
}

export interface DepositBackfillRun {
  /** the address, not watched yet, and when it was created (DepositAddressCreated's createdAt) */
  entry: WatchedDepositAddress
  createdAt: string
  /** the highest height scanned without it; undefined: none, nothing to rescan */
  through: number | undefined
  head: ChainHead
  tracker: TransferTracker
}

/** rescans an address's blocks for the deposits nobody reported; how many it reported */
export type DepositBackfill = (run: DepositBackfillRun) => Promise<number>

export function createDepositBackfill(options: DepositBackfillOptions): DepositBackfill {
  const { network, client, history, payeeOf, batchSize, logger } = options

  /** the first height an address created at `createdAtMs` may have been paid in */
  async function startHeight(createdAtMs: number, through: number): Promise<number> {
    const sinceMs = createdAtMs - CLOCK_SKEW_MS
    const oldest = history.oldestMatchedAtMs()
    if (oldest !== undefined && oldest <= sinceMs) {
      return history.lowestHeightMatchedSince(sinceMs) ?? Number.POSITIVE_INFINITY
    }
    // scanned by an earlier run too: find the blocks by their own time, among those the node has
    const floor = (await client.firstAvailableHeight?.()) ?? 0
    return firstHeightAtOrAfter(client, createdAtMs - BLOCK_TIME_SKEW_MS, floor, through)
  }

  return async ({ entry, createdAt, through, head, tracker }) => {
    if (through === undefined) return 0
    // an address read more than a day after its creation (a consumer reset or far behind, the first
    // start of this version): followed from now, as on Solana by address, rather than a rescan of
    // every block since that would hold the scan and every payment's confirmations meanwhile
    if (Date.parse(head.time) - Date.parse(createdAt) > DEPOSIT_BACKFILL_MAX_AGE_MS) {
      logger.warn(
        { address: entry.address, createdAt, maxAgeMs: DEPOSIT_BACKFILL_MAX_AGE_MS },
        'a deposit address read more than a day after its creation is watched from now: its earlier blocks are not rescanned',
      )
      return 0
    }
    const from = await startHeight(Date.parse(createdAt), through)
    if (from > through) return 0
    const depositOf = createDepositPayeeOf(
      {
        network,
        registry: options.registry,
        ...(options.treasuries ? { treasuries: options.treasuries } : {}),
      },
      { get: (address) => (address === entry.address ? entry : undefined) },
      () => undefined,
    )
    let reported = 0
    for (let batchStart = from; batchStart <= through; batchStart += batchSize) {
      const batchEnd = Math.min(through, batchStart + batchSize - 1)
      // the blocks this run just scanned are kept: the usual backfill reads nothing
      const kept = Array.from({ length: batchEnd - batchStart + 1 }, (_, at) =>
        history.recentBlock(batchStart + at),
      )
      const blocks = kept.every((block) => block !== undefined)
        ? (kept as ChainBlock[])
        : await client.getBlocks(batchStart, batchEnd)
      const found = blocks.flatMap((block) =>
        matchTransfers(network, [block], (transfer) => {
          if ((transfer.owner ?? transfer.to) !== entry.address) return undefined
          // a payment's watch that may have been the payee when the block was scanned or backfilled
          const payment = payeeOf(transfer)
          const paymentsTime = payment && Date.parse(payment.paymentCreatedAt) - BLOCK_TIME_SKEW_MS
          if (paymentsTime !== undefined && Date.parse(block.time) >= paymentsTime) return undefined
          return depositOf(transfer)
        }),
      )
      await tracker.reportSeen(found, head)
      reported += found.length
    }
    logger.info(
      { address: entry.address, from, through, deposits: reported },
      'rescanned blocks for a new deposit address',
    )
    return reported
  }
}
