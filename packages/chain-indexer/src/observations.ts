// The chain observations the indexer publishes, as bus messages: transfers, foreign funds and watching
// reports keyed by payment id (so that one payment's observations stay in order), progress keyed by network.

import type { ChainObservationMessage, TransferObservation, WatchingObservation } from '@chainpay/contracts'
import type { DropReason } from '@chainpay/domain'
import type { BusMessage, TrackedTransfer, WatchedAddress } from '@chainpay/ports'
import { depositOwnerOf } from './deposit-payees.js'

export const ObservationHeaders = { kind: 'observation-kind' } as const

export function observationMessage(observation: ChainObservationMessage): BusMessage {
  return {
    key:
      observation.kind === 'progress'
        ? observation.network
        : observation.kind === 'deposit'
          ? observation.address
          : observation.paymentId,
    value: JSON.stringify(observation),
    headers: { [ObservationHeaders.kind]: observation.kind },
  }
}

/**
 * what the indexer says about a tracked transfer (docs/api.md, "Transfers the chain takes back";
 * docs/chains.md, "Confirmations and finality"): seen, final or not yet; in doubt; dropped
 */
export type TransferReport =
  | { status: 'seen'; final: boolean }
  | { status: 'in_doubt' }
  | { status: 'dropped'; reason: DropReason }

const isFinal = (report: TransferReport) => report.status === 'seen' && report.final

/** 'seen' with the given confirmations, 'in_doubt', or 'dropped' for the reason, of a tracked transfer */
export function transferObservation(
  transfer: TrackedTransfer,
  change: TransferReport,
  observedAt: string,
): TransferObservation {
  return {
    kind: 'transfer',
    network: transfer.network,
    paymentId: transfer.paymentId,
    txHash: transfer.txHash,
    transferIndex: transfer.index,
    address: transfer.address,
    amountUnits: transfer.amountUnits,
    blockHeight: transfer.blockHeight,
    blockTime: transfer.blockTime,
    confirmations: transfer.confirmations,
    final: isFinal(change),
    ...(transfer.owner === undefined ? {} : { owner: transfer.owner }),
    status: change.status,
    dropReason: change.status === 'dropped' ? change.reason : null,
    observedAt,
  }
}

/**
 * The bus message about a tracked transfer: a deposit observation for a deposit's (every status:
 * the deposit follows the chain as a payment does), a transfer observation, or for foreign funds a
 * foreign_funds one while seen (they are recorded only once final, so their loss needs no report).
 */
export function trackedObservation(
  transfer: TrackedTransfer,
  report: TransferReport,
  observedAt: string,
): BusMessage | undefined {
  const depositor = depositOwnerOf(transfer.paymentId)
  if (depositor !== undefined && transfer.foreign !== null) {
    return observationMessage({
      kind: 'deposit',
      network: transfer.network,
      ...depositor,
      address: transfer.owner ?? transfer.address,
      txHash: transfer.txHash,
      transferIndex: transfer.index,
      currency: transfer.foreign.currency,
      decimals: transfer.foreign.decimals,
      amountUnits: transfer.amountUnits,
      blockHeight: transfer.blockHeight,
      blockTime: transfer.blockTime,
      confirmations: transfer.confirmations,
      requiredConfirmations: transfer.requiredConfirmations,
      final: isFinal(report),
      status: report.status,
      dropReason: report.status === 'dropped' ? report.reason : null,
      observedAt,
    })
  }
  if (transfer.foreign === null) return observationMessage(transferObservation(transfer, report, observedAt))
  if (report.status !== 'seen') return undefined
  return observationMessage({
    kind: 'foreign_funds',
    network: transfer.network,
    paymentId: transfer.paymentId,
    txHash: transfer.txHash,
    transferIndex: transfer.index,
    address: transfer.address,
    currency: transfer.foreign.currency,
    decimals: transfer.foreign.decimals,
    amountUnits: transfer.amountUnits,
    blockHeight: transfer.blockHeight,
    blockTime: transfer.blockTime,
    confirmations: transfer.confirmations,
    final: isFinal(report),
    ...(transfer.owner === undefined ? {} : { owner: transfer.owner }),
    observedAt,
  })
}

/** the indexer watches the address and has checked every block since its payment's creation */
export function watchingObservation(address: WatchedAddress, observedAt: string): WatchingObservation {
  return {
    kind: 'watching',
    network: address.network,
    paymentId: address.paymentId,
    address: address.address,
    observedAt,
  }
}
