// The transfers the block-scanning indexer reported and still follows: those not final yet,
// recounted every iteration, and those in doubt, looked for until the chain decides (docs/chains.md,
// "Forks"; docs/api.md, "Transfers the chain takes back"). What the blocks and the final chain say
// of a transfer is gathered here as evidence; what follows from it (report, keep following) is the
// one transfer lifecycle's decision (transfer-lifecycle.ts), which the Solana address watcher shares.
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
// hash and without the transfer, puts it in doubt; it is dropped (EXPIRED) once the chain can no
// longer include it, and dropped REVERTED where a block holds it failed. The one exception is a
// block still missing when the transfer would be final: taken as in doubt too, since that is how a
// Solana slot looks that the cluster skipped after the fork holding it was abandoned, and without
// it such a transfer would keep its payment open forever.

import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type Bus,
  type ChainBlock,
  type ChainClient,
  type ChainHead,
  type ChainIndexerStore,
  type ChainTransfer,
  type FinalInclusion,
  Topics,
  type TrackedTransfer,
} from '@chainpay/ports'
import {
  type ChainEvidence,
  firstSighting,
  type LifecycleStep,
  nextStep,
  stepObservations,
  type TransferPayee,
  trackedTransfer,
} from './transfer-lifecycle.js'

export interface TransferTracker {
  /** transfers followed: counting, or in doubt and looked for */
  readonly size: number
  /** publishes 'seen' for transfers found in blocks, then follows those not final */
  reportSeen(transfers: TrackedTransfer[], head: ChainHead): Promise<void>
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

export function createTransferTracker(options: TransferTrackerOptions): TransferTracker {
  const { network, client, store, bus, clock, logger } = options
  const followed = new Map(options.tracked.map((transfer) => [transferKey(transfer), transfer]))
  /** the hash of each recent height as this run scanned it: the canonical chain, parent-hash linked */
  const scanned = new Map<number, string>()
  /** per transfer, the head height at which the final chain was last asked about it: once a block */
  const askedAt = new Map<string, number>()

  /**
   * A transfer whose only change is its count is kept in memory, not stored again: the store's count
   * is what was reported at the last other change, a lower bound. After a restart the indexer reports
   * the count it finds then, and payment-command records a count only when it grew (docs/capacity.md,
   * "Per payment": a write per block per transfer was a MongoDB command per confirmation).
   */
  async function follow(transfer: TrackedTransfer): Promise<void> {
    const key = transferKey(transfer)
    const known = followed.get(key)
    if (known === undefined || !onlyTheCountMoved(known, transfer)) await store.track(transfer)
    followed.set(key, transfer)
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
   * whether the final chain has the transfer where it was counted: with a client that asks it
   * (TRON's solidity node), once the count reached the requirement, once a head; otherwise the
   * head's finalized height (docs/chains.md, "Confirmations and finality"). `failed`: the final
   * chain has it as a failed transaction.
   */
  async function finalOnChain(
    transfer: TrackedTransfer,
    height: number,
    head: ChainHead,
    counted: number,
  ): Promise<boolean | 'failed' | FinalInclusion> {
    if (client.finalInclusion === undefined) {
      return head.finalizedHeight === undefined || height <= head.finalizedHeight
    }
    if (counted < transfer.requiredConfirmations) return false
    const key = transferKey(transfer)
    if (askedAt.get(key) === head.height) return false
    askedAt.set(key, head.height)
    const inclusion = await client.finalInclusion(transfer.txHash)
    if (inclusion === undefined) return false
    askedAt.delete(key)
    return inclusion.success ? inclusion : 'failed'
  }

  /** what the blocks and the final chain say of a counted transfer; undefined: nothing new */
  async function countingEvidence(
    transfer: TrackedTransfer,
    head: ChainHead,
    fetched: Map<number, ChainBlock>,
  ): Promise<ChainEvidence | undefined> {
    const confirmations = countAt(transfer.blockHeight, head)
    const block = blockAt(transfer, fetched)
    const missing: ChainEvidence = {
      kind: 'missing',
      gone: false,
      lookUntilHeight: head.height + transfer.requiredConfirmations,
    }
    if (block === undefined) {
      if (confirmations < transfer.requiredConfirmations) return undefined
      logger.warn(
        { paymentId: transfer.paymentId, txHash: transfer.txHash, height: transfer.blockHeight },
        'the block of a transfer is still missing when it would be final; taking it as in doubt',
      )
      return missing
    }
    if (block !== 'unchanged') {
      const onChain = findTransfer(block, transfer)
      // the same block without the transfer contradicts an earlier answer: ask again next time
      if (onChain === undefined) return block.hash === transfer.blockHash ? undefined : missing
      if (!onChain.success) return { kind: 'failed' }
    }
    return includedEvidence(transfer, block === 'unchanged' ? undefined : block, confirmations, head)
  }

  async function includedEvidence(
    transfer: TrackedTransfer,
    block: ChainBlock | undefined,
    confirmations: number,
    head: ChainHead,
  ): Promise<ChainEvidence> {
    const height = block?.height ?? transfer.blockHeight
    const final = await finalOnChain(transfer, height, head, confirmations)
    if (final === 'failed') return { kind: 'failed' }
    const placed = block && { height: block.height, hash: block.hash, time: block.time }
    if (typeof final === 'boolean') {
      return { kind: 'included', ...(placed ? { block: placed } : {}), confirmations, finalOnChain: final }
    }
    return finalElsewhere(transfer, final.blockHeight, placed, head)
  }

  /**
   * final where the final chain has it: its block there, read when it is not the one counted (a
   * fork deeper than the rescan moved it), so that its time and hash are that block's
   */
  async function finalElsewhere(
    transfer: TrackedTransfer,
    height: number,
    counted: { height: number; hash: string; time: string } | undefined,
    head: ChainHead,
  ): Promise<ChainEvidence> {
    const known = counted ?? {
      height: transfer.blockHeight,
      hash: transfer.blockHash,
      time: transfer.blockTime,
    }
    const [read] = known.height === height ? [] : await client.getBlocks(height, height)
    const block = read === undefined ? { ...known, height } : { height, hash: read.hash, time: read.time }
    return { kind: 'included', block, confirmations: countAt(height, head), finalOnChain: true }
  }

  /**
   * In doubt: seen again when its block comes back. Gone once the chain cannot include it any
   * more: with an expiration and a final chain to ask (TRON), after the expiration and
   * `requiredConfirmations` blocks, when the final chain does not have it; otherwise after
   * `requiredConfirmations` blocks without it.
   */
  async function doubtedEvidence(
    transfer: TrackedTransfer,
    untilHeight: number,
    head: ChainHead,
    fetched: Map<number, ChainBlock>,
  ): Promise<ChainEvidence | undefined> {
    const block = fetched.get(transfer.blockHeight)
    const onChain = block && findTransfer(block, transfer)
    if (block !== undefined && onChain?.success) {
      logger.info(
        { paymentId: transfer.paymentId, txHash: transfer.txHash },
        'transfer in doubt back on chain',
      )
      return includedEvidence(transfer, block, countAt(block.height, head), head)
    }
    if (head.height <= untilHeight) return undefined
    const gone: ChainEvidence = { kind: 'missing', gone: true, lookUntilHeight: untilHeight }
    if (client.finalInclusion === undefined || transfer.expiresAt === null) return gone
    if (Date.parse(head.time) <= Date.parse(transfer.expiresAt)) return undefined
    const inclusion = await client.finalInclusion(transfer.txHash)
    if (inclusion === undefined) return gone
    if (!inclusion.success) return { kind: 'failed' }
    // had it been included where this run did not scan (a fork deeper than the rescan): final there
    return finalElsewhere(transfer, inclusion.blockHeight, undefined, head)
  }

  /** publishes what the steps report, then keeps following or forgets each transfer */
  async function apply(steps: LifecycleStep[]): Promise<void> {
    const messages = stepObservations(steps, isoNow(clock), logger)
    if (messages.length > 0) await bus.publish(Topics.chainObservations, messages)
    for (const step of steps) {
      if (step.follow) await follow(step.transfer)
      else await forget(step.transfer)
    }
  }

  return {
    get size() {
      return followed.size
    },

    async reportSeen(transfers, head) {
      if (transfers.length === 0) return
      for (const transfer of transfers) scanned.set(transfer.blockHeight, transfer.blockHash)
      const steps = transfers.flatMap((transfer) => {
        // final at first sight only where the head says so; a client that asks the final chain
        // asks it at the next recount
        const evidence = {
          kind: 'included' as const,
          confirmations: countAt(transfer.blockHeight, head),
          finalOnChain:
            client.finalInclusion === undefined &&
            (head.finalizedHeight === undefined || transfer.blockHeight <= head.finalizedHeight),
        }
        // a transfer in doubt that a block includes again: back, same transaction, counted once
        const doubted = followed.get(transferKey(transfer))
        if (doubted?.withdrawnUntilHeight === null || doubted === undefined) {
          return [firstSighting(transfer, evidence)]
        }
        const { blockHeight: height, blockHash: hash, blockTime: time, expiresAt } = transfer
        return nextStep(doubted, { ...evidence, block: { height, hash, time, expiresAt } }) ?? []
      })
      await apply(steps)
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
      const steps: LifecycleStep[] = []
      for (const transfer of followed.values()) {
        const evidence =
          transfer.withdrawnUntilHeight === null
            ? await countingEvidence(transfer, head, fetched)
            : await doubtedEvidence(transfer, transfer.withdrawnUntilHeight, head, fetched)
        const step = evidence && nextStep(transfer, evidence)
        if (step !== undefined) steps.push(step)
      }
      await apply(steps)
      const lowest = Math.min(...[...followed.values()].map((transfer) => transfer.blockHeight))
      forgetScannedBelow(lowest)
    },
  }
}

/** the blocks on top of a transfer at `height`, its own included: what the merchant is shown */
export function countAt(height: number, head: ChainHead): number {
  return Math.max(0, head.height - height + 1)
}

/**
 * the transfers in `blocks` that pay a payment, as `payeeOf` tells, not counted yet (their first
 * sighting counts them); synchronous, so no change midway
 */
export function matchTransfers(
  network: string,
  blocks: readonly ChainBlock[],
  payeeOf: (transfer: ChainTransfer) => TransferPayee | undefined,
): TrackedTransfer[] {
  const transfers: TrackedTransfer[] = []
  for (const block of blocks) {
    for (const transfer of block.transfers) {
      const payee = payeeOf(transfer)
      if (payee === undefined) continue
      transfers.push(trackedTransfer(network, transfer, payee, block, transfer.expiresAt ?? null))
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

/** whether `next` is `known` but for its confirmations */
function onlyTheCountMoved(known: TrackedTransfer, next: TrackedTransfer): boolean {
  const withoutCount = ({ confirmations: _, ...rest }: TrackedTransfer) => JSON.stringify(rest)
  return withoutCount(known) === withoutCount(next)
}
