// The one lifecycle of a transfer the chain watchers follow, for both chains and every watch mode
// (docs/chains.md, "Confirmations and finality" and "Forks: transfers in doubt"):
//
//   seen (counting) --> final
//        |    ^
//        v    | included again (same transaction, counted once)
//     in doubt --> dropped (EXPIRED: can no longer be included; REVERTED: on chain, failed)
//
// A watcher gathers evidence its own way (block scanning: the blocks and the final chain; Solana by
// address: signature statuses and subscriptions) and hands it here; what is reported, and whether
// the transfer stays followed, is decided only here. The count a report carries is what the
// merchant sees, capped at the payment's requirement; `final` is the chain's word, said once the
// count reached the requirement too. Nothing here reads a node.

import type { Logger } from '@chainpay/platform'
import type { BusMessage, ChainTransfer, TrackedTransfer } from '@chainpay/ports'
import { type TransferReport, trackedObservation } from './observations.js'

/** the payment a transfer pays (or brings foreign funds to), with the confirmations it requires */
export type TransferPayee = Pick<TrackedTransfer, 'paymentId' | 'requiredConfirmations' | 'foreign'>

/**
 * a transfer to a payee as a watcher first tracks it, in its block, nothing counted yet;
 * `expiresAt`: when the chain can no longer include it, if the watcher knows (null: it does not)
 */
export function trackedTransfer(
  network: string,
  transfer: ChainTransfer,
  payee: TransferPayee,
  block: { height: number; hash: string; time: string },
  expiresAt: string | null,
): TrackedTransfer {
  return {
    network,
    paymentId: payee.paymentId,
    txHash: transfer.txHash,
    index: transfer.index,
    address: transfer.to,
    amountUnits: transfer.amountUnits,
    blockHeight: block.height,
    blockHash: block.hash,
    blockTime: block.time,
    confirmations: 0,
    requiredConfirmations: payee.requiredConfirmations,
    withdrawnUntilHeight: null,
    expiresAt,
    foreign: payee.foreign,
    ...(transfer.owner === undefined ? {} : { owner: transfer.owner }),
  }
}

/** what a watcher learned about a transfer on the chain */
export type ChainEvidence =
  /** on the chain and succeeded; `block` when it is in another block than the tracked one */
  | {
      kind: 'included'
      block?: { height: number; hash: string; time: string; expiresAt?: string | null }
      /** blocks on top of the transfer's, its own included */
      confirmations: number
      /** the chain made it final (solidified, finalized) */
      finalOnChain: boolean
    }
  /** on the chain as a failed transaction */
  | { kind: 'failed' }
  /**
   * not on the chain any more (its block left the canonical chain, the node forgot it). `gone`:
   * the chain can no longer include it. `lookUntilHeight`: for a transfer not in doubt yet, the
   * height up to which it is looked for (a watcher that counts by blocks)
   */
  | { kind: 'missing'; gone: boolean; lookUntilHeight: number }

/** what follows from the evidence: the transfer as it stands, what to report first, whether to keep following it */
export interface LifecycleStep {
  transfer: TrackedTransfer
  report?: TransferReport
  /** false: final or dropped, not followed any more */
  follow: boolean
}

export const isInDoubt = (transfer: TrackedTransfer): boolean => transfer.withdrawnUntilHeight !== null

/** the observations the steps report, in their order; a transfer no longer on chain is logged */
export function stepObservations(steps: LifecycleStep[], observedAt: string, logger: Logger): BusMessage[] {
  const messages: BusMessage[] = []
  for (const { transfer, report } of steps) {
    if (report === undefined) continue
    const message = trackedObservation(transfer, report, observedAt)
    if (message !== undefined) messages.push(message)
    if (report.status !== 'seen') {
      logger.info(
        { paymentId: transfer.paymentId, txHash: transfer.txHash, report },
        'counted transfer no longer on chain',
      )
    }
  }
  return messages
}

/** the count a report carries: what the merchant sees, up to the payment's requirement */
function shownCount(confirmations: number, transfer: TrackedTransfer): number {
  return Math.max(0, Math.min(confirmations, transfer.requiredConfirmations))
}

/** a transfer a watcher meets for the first time: always reported, followed until final */
export function firstSighting(
  transfer: TrackedTransfer,
  evidence: Extract<ChainEvidence, { kind: 'included' }>,
): LifecycleStep {
  const confirmations = shownCount(evidence.confirmations, transfer)
  const final = evidence.finalOnChain && confirmations >= transfer.requiredConfirmations
  return {
    transfer: { ...transfer, confirmations, withdrawnUntilHeight: null },
    report: { status: 'seen', final },
    follow: !final,
  }
}

/** the next step of a followed transfer; undefined when the evidence changes nothing */
export function nextStep(transfer: TrackedTransfer, evidence: ChainEvidence): LifecycleStep | undefined {
  switch (evidence.kind) {
    case 'included':
      return included(transfer, evidence)
    case 'failed':
      return { transfer, report: { status: 'dropped', reason: 'REVERTED' }, follow: false }
    case 'missing':
      if (!isInDoubt(transfer)) {
        return {
          transfer: { ...transfer, withdrawnUntilHeight: evidence.lookUntilHeight },
          report: { status: 'in_doubt' },
          follow: true,
        }
      }
      return evidence.gone
        ? { transfer, report: { status: 'dropped', reason: 'EXPIRED' }, follow: false }
        : undefined
    default: {
      const unknown: never = evidence
      throw new Error(`transfer lifecycle: unknown evidence ${JSON.stringify(unknown)}`)
    }
  }
}

function included(
  transfer: TrackedTransfer,
  evidence: Extract<ChainEvidence, { kind: 'included' }>,
): LifecycleStep | undefined {
  const { block } = evidence
  const doubted = isInDoubt(transfer)
  const moved =
    block !== undefined && (block.height !== transfer.blockHeight || block.hash !== transfer.blockHash)
  const counted = shownCount(evidence.confirmations, transfer)
  // back from doubt it counts from its new block; otherwise a count only grows
  const confirmations = doubted ? counted : Math.max(counted, transfer.confirmations)
  const final = evidence.finalOnChain && confirmations >= transfer.requiredConfirmations
  const grew = confirmations > transfer.confirmations
  if (!doubted && !moved && !grew && !final) return undefined
  const next: TrackedTransfer = {
    ...transfer,
    ...(block === undefined
      ? {}
      : {
          blockHeight: block.height,
          blockHash: block.hash,
          blockTime: block.time,
          ...(block.expiresAt === undefined ? {} : { expiresAt: block.expiresAt }),
        }),
    confirmations,
    withdrawnUntilHeight: null,
  }
  // a block replaced by one that still holds it, with no new count, is not news to the payment
  const news = doubted || grew || final
  return { transfer: next, ...(news ? { report: { status: 'seen', final } } : {}), follow: !final }
}
