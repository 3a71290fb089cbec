// The chain observations the indexer publishes, as bus messages: transfers keyed by payment id (so
// that one payment's observations stay in order), progress keyed by network.

import type { ChainProgressObservation, TransferObservation } from '@chainpay/contracts'
import type { BusMessage, TrackedTransfer } from '@chainpay/ports'

export const ObservationHeaders = { kind: 'observation-kind' } as const

export function observationMessage(observation: TransferObservation | ChainProgressObservation): BusMessage {
  return {
    key: observation.kind === 'transfer' ? observation.paymentId : observation.network,
    value: JSON.stringify(observation),
    headers: { [ObservationHeaders.kind]: observation.kind },
  }
}

/** 'seen' with the given confirmations, or 'withdrawn' for the reason, of a tracked transfer */
export function transferObservation(
  transfer: TrackedTransfer,
  change: { status: 'seen' } | { status: 'withdrawn'; reason: 'DROPPED' | 'REVERTED' },
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
    status: change.status,
    withdrawReason: change.status === 'withdrawn' ? change.reason : null,
    observedAt,
  }
}
