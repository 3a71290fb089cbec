// The transfers the indexer reported and still follows: those short of their payment's required
// confirmations, recounted every iteration, and those reported withdrawn, looked for a while longer
// in case the chain includes them again.
//
// A block that an answer leaves out is unknown, not gone: a node lagging behind, or one behind a
// load balancer, answers like that. Only a block returned at the transfer's height, with another
// hash and without the transfer, withdraws it (DROPPED); one that holds it failed withdraws it too
// (REVERTED). The one exception is a block still missing when the transfer would be final: that is
// how a Solana slot looks that the cluster skipped after the fork holding it was abandoned, and
// without it such a transfer would keep its payment open forever.

import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type Bus,
  type BusMessage,
  type ChainBlock,
  type ChainClient,
  type ChainHead,
  type ChainIndexerStore,
  type ChainTransfer,
  Topics,
  type TrackedTransfer,
} from '@chainpay/ports'
import { observationMessage, type TransferReport, transferObservation } from './observations.js'

export interface TransferTracker {
  /** transfers followed: counting, or withdrawn and looked for */
  readonly size: number
  /** publishes 'seen' for transfers found in blocks, then follows those short of their requirement */
  reportSeen(transfers: TrackedTransfer[]): Promise<void>
  /** the withdrawn transfer that `transfer` includes again (same txHash and index, succeeded) */
  withdrawnMatching(transfer: ChainTransfer): TrackedTransfer | undefined
  /**
   * recounts every followed transfer on the canonical chain; `fetched` holds the blocks this
   * iteration already fetched, by height, and gets the ones fetched here
   */
  recount(head: ChainHead, fetched: Map<number, ChainBlock>): Promise<void>
}

export interface TransferTrackerOptions {
  network: string
  client: ChainClient
  store: ChainIndexerStore
  bus: Bus
  clock: Clock
  logger: Logger
  /** what the store tracks */
  tracked: TrackedTransfer[]
}

/** the payment a transfer pays, with the confirmations it requires */
export type Payee = Pick<TrackedTransfer, 'paymentId' | 'requiredConfirmations'>

interface Change {
  /** the transfer as it stands now */
  transfer: TrackedTransfer
  /** false: stop following it */
  follow: boolean
  /** what to publish about it first */
  report?: TransferReport
}

export function createTransferTracker(options: TransferTrackerOptions): TransferTracker {
  const { network, client, store, bus, clock, logger } = options
  const followed = new Map(options.tracked.map((transfer) => [transferKey(transfer), transfer]))

  async function follow(transfer: TrackedTransfer): Promise<void> {
    await store.track(transfer)
    followed.set(transferKey(transfer), transfer)
  }

  async function forget(transfer: TrackedTransfer): Promise<void> {
    const key = transferKey(transfer)
    if (!followed.has(key)) return
    await store.untrack(network, transfer.txHash, transfer.index)
    followed.delete(key)
  }

  /** fetches the blocks at the followed heights that this iteration has not fetched yet */
  async function fetchFollowedHeights(fetched: Map<number, ChainBlock>): Promise<void> {
    const heights = new Set([...followed.values()].map((transfer) => transfer.blockHeight))
    const missing = [...heights].filter((height) => !fetched.has(height)).sort((a, b) => a - b)
    for (const [from, to] of contiguousRuns(missing)) {
      for (const block of await client.getBlocks(from, to)) fetched.set(block.height, block)
    }
  }

  function recountCounting(
    transfer: TrackedTransfer,
    head: ChainHead,
    block?: ChainBlock,
  ): Change | undefined {
    const confirmations = confirmationsAt(transfer.blockHeight, head, transfer.requiredConfirmations)
    if (block === undefined) {
      if (confirmations < transfer.requiredConfirmations) return undefined
      logger.warn(
        { paymentId: transfer.paymentId, txHash: transfer.txHash, height: transfer.blockHeight },
        'the block of a transfer is still missing when it would be final; taking it as skipped',
      )
      return withdraw(transfer, head)
    }
    const onChain = findTransfer(block, transfer)
    if (onChain === undefined) {
      // the same block without the transfer contradicts an earlier answer: ask again next time
      return block.hash === transfer.blockHash ? undefined : withdraw(transfer, head)
    }
    if (!onChain.success)
      return { transfer, follow: false, report: { status: 'dropped', reason: 'REVERTED' } }
    const grew = confirmations > transfer.confirmations
    if (!grew && block.hash === transfer.blockHash) return undefined
    // a block replaced by one that still holds the transfer: same transfer, new block hash
    return counted(
      { ...transfer, confirmations: Math.max(confirmations, transfer.confirmations) },
      block,
      grew,
    )
  }

  function recheckWithdrawn(
    transfer: TrackedTransfer,
    untilHeight: number,
    head: ChainHead,
    block?: ChainBlock,
  ): Change | undefined {
    // not back within as many blocks as its payment requires: the chain has moved on without it
    if (head.height > untilHeight)
      return { transfer, follow: false, report: { status: 'dropped', reason: 'EXPIRED' } }
    const onChain = block && findTransfer(block, transfer)
    if (block === undefined || !onChain?.success) return undefined
    const confirmations = confirmationsAt(block.height, head, transfer.requiredConfirmations)
    logger.info(
      { paymentId: transfer.paymentId, txHash: transfer.txHash },
      'withdrawn transfer back on chain',
    )
    return counted({ ...transfer, confirmations, withdrawnUntilHeight: null }, block, true)
  }

  return {
    get size() {
      return followed.size
    },

    async reportSeen(transfers) {
      if (transfers.length === 0) return
      const observedAt = isoNow(clock)
      await bus.publish(
        Topics.chainObservations,
        transfers.map((transfer) =>
          observationMessage(transferObservation(transfer, { status: 'seen' }, observedAt)),
        ),
      )
      for (const transfer of transfers) {
        if (transfer.confirmations < transfer.requiredConfirmations) await follow(transfer)
        else await forget(transfer)
      }
      logger.debug({ transfers: transfers.length }, 'transfers seen')
    },

    withdrawnMatching(transfer) {
      if (!transfer.success) return undefined
      const known = followed.get(transferKey(transfer))
      return known !== undefined && known.withdrawnUntilHeight !== null ? known : undefined
    },

    async recount(head, fetched) {
      if (followed.size === 0) return
      await fetchFollowedHeights(fetched)
      const observedAt = isoNow(clock)
      const messages: BusMessage[] = []
      const changes: Change[] = []
      for (const transfer of followed.values()) {
        const block = fetched.get(transfer.blockHeight)
        const change =
          transfer.withdrawnUntilHeight === null
            ? recountCounting(transfer, head, block)
            : recheckWithdrawn(transfer, transfer.withdrawnUntilHeight, head, block)
        if (change === undefined) continue
        changes.push(change)
        if (change.report === undefined) continue
        messages.push(observationMessage(transferObservation(change.transfer, change.report, observedAt)))
        if (change.report.status !== 'seen') {
          logger.info(
            { paymentId: transfer.paymentId, txHash: transfer.txHash, report: change.report },
            'counted transfer no longer on chain',
          )
        }
      }
      if (messages.length > 0) await bus.publish(Topics.chainObservations, messages)
      for (const change of changes) {
        if (change.follow) await follow(change.transfer)
        else await forget(change.transfer)
      }
    },
  }
}

/** the transfer as it counts in `block`: followed until it reaches its payment's requirement */
function counted(transfer: TrackedTransfer, block: ChainBlock, reportSeen: boolean): Change {
  const next = { ...transfer, blockHeight: block.height, blockHash: block.hash, blockTime: block.time }
  const follow = next.confirmations < next.requiredConfirmations
  return reportSeen ? { transfer: next, follow, report: { status: 'seen' } } : { transfer: next, follow }
}

/** in doubt: looked for as many blocks again as its payment requires confirmations */
function withdraw(transfer: TrackedTransfer, head: ChainHead): Change {
  return {
    transfer: { ...transfer, withdrawnUntilHeight: head.height + transfer.requiredConfirmations },
    follow: true,
    report: { status: 'in_doubt' },
  }
}

/**
 * confirmations of a transfer at `height`, capped at what its payment requires. Where the client
 * knows the chain's finalized height, a transfer above it stays one short of the requirement: a
 * count of blocks on top is only a proxy for finality (TRON producers miss slots, Solana skips
 * them), and the node's own word is the one that decides.
 */
export function confirmationsAt(height: number, head: ChainHead, required: number): number {
  const counted = Math.max(0, Math.min(head.height - height + 1, required))
  const final = head.finalizedHeight === undefined || height <= head.finalizedHeight
  return final ? counted : Math.min(counted, required - 1)
}

/** the transfers in `blocks` that pay a payment, as `payeeOf` tells; synchronous, so no change midway */
export function matchTransfers(
  network: string,
  blocks: readonly ChainBlock[],
  head: ChainHead,
  payeeOf: (transfer: ChainTransfer) => Payee | undefined,
): TrackedTransfer[] {
  const transfers: TrackedTransfer[] = []
  for (const block of blocks) {
    for (const transfer of block.transfers) {
      const payee = payeeOf(transfer)
      if (payee === undefined) continue
      transfers.push({
        network,
        paymentId: payee.paymentId,
        txHash: transfer.txHash,
        index: transfer.index,
        address: transfer.to,
        amountUnits: transfer.amountUnits,
        blockHeight: block.height,
        blockHash: block.hash,
        blockTime: block.time,
        confirmations: confirmationsAt(block.height, head, payee.requiredConfirmations),
        requiredConfirmations: payee.requiredConfirmations,
        withdrawnUntilHeight: null,
      })
    }
  }
  return transfers
}

function findTransfer(block: ChainBlock, transfer: TrackedTransfer): ChainTransfer | undefined {
  return block.transfers.find(
    (candidate) => candidate.txHash === transfer.txHash && candidate.index === transfer.index,
  )
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
