// The transfers the indexer reported and still follows: those short of their payment's required
// confirmations, recounted every iteration, and those in doubt, looked for until the chain decides
// (docs/chains.md, "Forks"; docs/api.md, "Transfers the chain takes back").
//
// Recounting reads nothing in the common case: the indexer scans every block in order, each linked
// to the one before by its parent hash, so a followed transfer whose block is still the one scanned
// at its height has head - height + 1 confirmations. A fork switch below the cursor makes the
// indexer rescan the replaced heights, and those blocks (in `fetched`) tell what happened. Only a
// height neither scanned by this run nor fetched (after a restart) is read again. Where the client
// can ask the final chain about one transaction (TRON's solidity node), a transfer becomes final by
// that one call rather than by the head's finalized height.
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
  type FinalInclusion,
  Topics,
  type TrackedTransfer,
} from '@chainpay/ports'
import { type TransferReport, trackedObservation } from './observations.js'

export interface TransferTracker {
  /** transfers followed: counting, or in doubt and looked for */
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

/** the payment a transfer pays (or brings foreign funds to), with the confirmations it requires */
export type Payee = Pick<TrackedTransfer, 'paymentId' | 'requiredConfirmations' | 'foreign'>

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
  /** the hash of each recent height as this run scanned it: the canonical chain, parent-hash linked */
  const scanned = new Map<number, string>()
  /** per transfer, the head height at which the final chain was last asked about it: once a block */
  const askedAt = new Map<string, number>()

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

  /** fetches the followed heights that this run has neither scanned nor fetched (after a restart) */
  async function fetchUnknownHeights(fetched: Map<number, ChainBlock>): Promise<void> {
    const heights = new Set([...followed.values()].map((transfer) => transfer.blockHeight))
    const missing = [...heights].filter((height) => !scanned.has(height)).sort((a, b) => a - b)
    for (const [from, to] of contiguousRuns(missing)) {
      for (const block of await client.getBlocks(from, to)) {
        fetched.set(block.height, block)
        scanned.set(block.height, block.hash)
      }
    }
  }

  /** the block at a followed height when it changed or was read this iteration; 'unchanged' else */
  function blockAt(
    transfer: TrackedTransfer,
    fetched: Map<number, ChainBlock>,
  ): ChainBlock | 'unchanged' | undefined {
    const block = fetched.get(transfer.blockHeight)
    if (block !== undefined) return block
    return scanned.get(transfer.blockHeight) === transfer.blockHash ? 'unchanged' : undefined
  }

  function forgetScannedBelow(height: number): void {
    for (const scannedHeight of scanned.keys()) if (scannedHeight < height) scanned.delete(scannedHeight)
  }

  /**
   * with a client that asks the final chain: a transfer whose count reached its requirement is final
   * once the final chain has it (asked once per head), and stays one short until then
   */
  async function finality(
    transfer: TrackedTransfer,
    head: ChainHead,
    counted: number,
  ): Promise<Change | 'pending' | undefined> {
    if (client.finalInclusion === undefined || counted < transfer.requiredConfirmations) return undefined
    const key = transferKey(transfer)
    if (askedAt.get(key) === head.height) return 'pending'
    askedAt.set(key, head.height)
    const inclusion = await client.finalInclusion(transfer.txHash)
    if (inclusion === undefined) return 'pending'
    askedAt.delete(key)
    return decidedBy(transfer, inclusion)
  }

  async function recountCounting(
    transfer: TrackedTransfer,
    head: ChainHead,
    fetched: Map<number, ChainBlock>,
  ): Promise<Change | undefined> {
    const confirmations = confirmationsAt(transfer.blockHeight, head, transfer.requiredConfirmations)
    const block = blockAt(transfer, fetched)
    if (block === undefined) {
      if (confirmations < transfer.requiredConfirmations) return undefined
      logger.warn(
        { paymentId: transfer.paymentId, txHash: transfer.txHash, height: transfer.blockHeight },
        'the block of a transfer is still missing when it would be final; taking it as in doubt',
      )
      return withdraw(transfer, head)
    }
    if (block !== 'unchanged') {
      const onChain = findTransfer(block, transfer)
      if (onChain === undefined) {
        // the same block without the transfer contradicts an earlier answer: ask again next time
        return block.hash === transfer.blockHash ? undefined : withdraw(transfer, head)
      }
      if (!onChain.success)
        return { transfer, follow: false, report: { status: 'dropped', reason: 'REVERTED' } }
    }
    const final = await finality(transfer, head, confirmations)
    if (final !== undefined && final !== 'pending') return final
    const count = final === 'pending' ? transfer.requiredConfirmations - 1 : confirmations
    const grew = count > transfer.confirmations
    const moved = block !== 'unchanged' && block.hash !== transfer.blockHash
    if (!grew && !moved) return undefined
    // a block replaced by one that still holds the transfer: same transfer, new block hash
    const next = { ...transfer, confirmations: Math.max(count, transfer.confirmations) }
    return counted(next, block === 'unchanged' ? undefined : block, grew)
  }

  /**
   * In doubt: seen again when its block comes back. Dropped once the chain cannot include it any
   * more: with an expiration and a final chain to ask (TRON), after the expiration and
   * `requiredConfirmations` blocks, when the final chain does not have it; otherwise after
   * `requiredConfirmations` blocks without it.
   */
  async function recheckWithdrawn(
    transfer: TrackedTransfer,
    untilHeight: number,
    head: ChainHead,
    fetched: Map<number, ChainBlock>,
  ): Promise<Change | undefined> {
    const block = fetched.get(transfer.blockHeight)
    const onChain = block && findTransfer(block, transfer)
    if (block !== undefined && onChain?.success) {
      const confirmations = confirmationsAt(block.height, head, transfer.requiredConfirmations)
      logger.info(
        { paymentId: transfer.paymentId, txHash: transfer.txHash },
        'transfer in doubt back on chain',
      )
      return counted({ ...transfer, confirmations, withdrawnUntilHeight: null }, block, true)
    }
    if (head.height <= untilHeight) return undefined
    const dropped: Change = { transfer, follow: false, report: { status: 'dropped', reason: 'EXPIRED' } }
    if (client.finalInclusion === undefined || transfer.expiresAt === null) return dropped
    if (Date.parse(head.time) <= Date.parse(transfer.expiresAt)) return undefined
    const inclusion = await client.finalInclusion(transfer.txHash)
    // had it been included where this run did not scan (a fork deeper than the rescan): final there
    return inclusion === undefined ? dropped : decidedBy(transfer, inclusion)
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
        transfers.flatMap((transfer) => trackedObservation(transfer, { status: 'seen' }, observedAt) ?? []),
      )
      for (const transfer of transfers) scanned.set(transfer.blockHeight, transfer.blockHash)
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
      for (const block of fetched.values()) scanned.set(block.height, block.hash)
      if (followed.size === 0) {
        scanned.clear()
        return
      }
      await fetchUnknownHeights(fetched)
      const observedAt = isoNow(clock)
      const messages: BusMessage[] = []
      const changes: Change[] = []
      for (const transfer of followed.values()) {
        const change =
          transfer.withdrawnUntilHeight === null
            ? await recountCounting(transfer, head, fetched)
            : await recheckWithdrawn(transfer, transfer.withdrawnUntilHeight, head, fetched)
        if (change === undefined) continue
        changes.push(change)
        if (change.report === undefined) continue
        const message = trackedObservation(change.transfer, change.report, observedAt)
        if (message !== undefined) messages.push(message)
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
      const lowest = Math.min(...[...followed.values()].map((transfer) => transfer.blockHeight))
      forgetScannedBelow(lowest)
    },
  }
}

/** the transfer as it counts in `block` (its own when unchanged): followed until it reaches its payment's requirement */
function counted(transfer: TrackedTransfer, block: ChainBlock | undefined, reportSeen: boolean): Change {
  const next =
    block === undefined
      ? transfer
      : { ...transfer, blockHeight: block.height, blockHash: block.hash, blockTime: block.time }
  const follow = next.confirmations < next.requiredConfirmations
  return reportSeen ? { transfer: next, follow, report: { status: 'seen' } } : { transfer: next, follow }
}

/** as the final chain has it: final where it is, or dropped when it failed there */
function decidedBy(transfer: TrackedTransfer, inclusion: FinalInclusion): Change {
  if (!inclusion.success)
    return { transfer, follow: false, report: { status: 'dropped', reason: 'REVERTED' } }
  const final = {
    ...transfer,
    blockHeight: inclusion.blockHeight,
    confirmations: transfer.requiredConfirmations,
    withdrawnUntilHeight: null,
  }
  return { transfer: final, follow: false, report: { status: 'seen' } }
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
        expiresAt: transfer.expiresAt ?? null,
        foreign: payee.foreign,
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
