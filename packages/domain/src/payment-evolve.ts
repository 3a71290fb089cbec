// evolvePayment, the fold of a payment's events into its state (re-exported by payment.ts), and the
// derived transfer figures that decide and the payment view share.

import type {
  CountedTransfer,
  OpenPayment,
  PaymentCreatedData,
  PaymentEvent,
  PaymentState,
  Sweep,
  TransferRef,
} from './payment-types.js'

/** Never throws: an event that does not fit the state leaves the state as it is. */
export function evolvePayment(state: PaymentState, event: PaymentEvent): PaymentState {
  if (event.type === 'PaymentCreated') return state.status === 'none' ? openPayment(event.data) : state
  if (state.status === 'none') return state
  switch (event.type) {
    case 'TransferDetected': {
      const { txHash, transferIndex, amountUnits, blockHeight, blockTime, confirmations } = event.data
      const known = state.transfers.find((transfer) => sameTransfer(transfer, event.data))
      if (known && !known.withdrawn) return state
      // A withdrawn transfer included again: its new block replaces the old entry, and it moves to
      // the end so that the list stays in detection order.
      const others = state.transfers.filter((transfer) => transfer !== known)
      const transfer = {
        txHash,
        transferIndex,
        amountUnits,
        blockHeight,
        blockTime,
        confirmations,
        final: isFinalTransfer(event.data, state.created),
        withdrawn: false,
      }
      return withTransfers(state, [...others, transfer])
    }
    case 'TransferConfirmationsUpdated':
      return updateTransfer(state, event.data, {
        confirmations: event.data.confirmations,
        final: isFinalTransfer(event.data, state.created),
      })
    case 'TransferWithdrawn':
      return updateTransfer(state, event.data, { withdrawn: true })
    case 'TransferDropped':
      // as if it had never come
      return withTransfers(
        state,
        state.transfers.filter((transfer) => !sameTransfer(transfer, event.data)),
      )
    case 'PaymentConfirmed':
      return { ...state, status: 'confirmed', confirmedAt: event.data.confirmedAt }
    case 'PaymentUnderpaid':
      return { ...state, status: 'underpaid', confirmedAt: event.data.confirmedAt }
    case 'PaymentOverpaid':
      return { ...state, status: 'overpaid', confirmedAt: event.data.confirmedAt }
    case 'PaymentExpired':
      return { ...state, status: 'expired', closedAt: event.data.expiredAt }
    case 'PaymentUnderpaidFinalized':
      // the status stays underpaid; closed, it takes no further transfer
      return { ...state, closedAt: event.data.finalizedAt }
    case 'PaymentCanceled':
      return { ...state, status: 'canceled', closedAt: event.data.canceledAt }
    case 'PaymentFailed':
      return { ...state, status: 'failed', closedAt: event.data.failedAt, failureReason: event.data.reason }
    case 'LateFundsReceived': {
      const { txHash, transferIndex, amountUnits, blockTime } = event.data
      if (state.lateTransfers.some((transfer) => sameTransfer(transfer, event.data))) return state
      return {
        ...state,
        lateTransfers: [...state.lateTransfers, { txHash, transferIndex, amountUnits, blockTime }],
      }
    }
    case 'ForeignFundsReceived': {
      const { txHash, transferIndex, currency, decimals, amountUnits, blockTime } = event.data
      if (state.foreignFunds.some((funds) => sameTransfer(funds, event.data))) return state
      return {
        ...state,
        foreignFunds: [
          ...state.foreignFunds,
          { txHash, transferIndex, currency, decimals, amountUnits, blockTime },
        ],
      }
    }
    case 'PaymentFundsSwept': {
      // the payment's own network and address are not repeated in its state
      const { paymentId: _paymentId, network: _network, address: _address, ...sweep } = event.data
      if (state.sweeps.some((known) => sameSweep(known, sweep))) return state
      return { ...state, sweeps: [...state.sweeps, sweep] }
    }
    default:
      // an event type this version does not know (written by a newer one)
      return state
  }
}

/**
 * Whether a recorded transfer is final: the chain watcher's word since schema version 2. Before it,
 * the watcher held a transfer's count one short of the payment's requirement until the chain made
 * it final, so the count at the requirement is what final meant (docs/chains.md, "Confirmations
 * and finality").
 */
export function isFinalTransfer(
  recorded: { confirmations: number; final?: boolean | null },
  created: Pick<PaymentCreatedData, 'requiredConfirmations'>,
): boolean {
  return recorded.final ?? recorded.confirmations >= created.requiredConfirmations
}

/** a sweep is one transaction moving one currency (docs/api.md, "Balances and sweeps") */
export function sameSweep(
  a: Pick<Sweep, 'txHash' | 'currency'>,
  b: Pick<Sweep, 'txHash' | 'currency'>,
): boolean {
  return a.txHash === b.txHash && a.currency === b.currency
}

export function sameTransfer(a: TransferRef, b: TransferRef): boolean {
  return a.txHash === b.txHash && a.transferIndex === b.transferIndex
}

/** the counted transfers that still count: not in doubt */
export function activeTransfers(transfers: readonly CountedTransfer[]): CountedTransfer[] {
  return transfers.filter((transfer) => !transfer.withdrawn)
}

export function totalUnits(transfers: readonly CountedTransfer[]): bigint {
  return transfers.reduce((total, transfer) => total + BigInt(transfer.amountUnits), 0n)
}

/** the transfer in the highest block; among equals, the one detected last */
export function latestTransfer(transfers: readonly CountedTransfer[]): CountedTransfer | undefined {
  return transfers.reduce<CountedTransfer | undefined>(
    (latest, transfer) =>
      latest === undefined || transfer.blockHeight >= latest.blockHeight ? transfer : latest,
    undefined,
  )
}

function openPayment(created: PaymentCreatedData): OpenPayment {
  return {
    status: 'pending',
    created,
    transfers: [],
    lateTransfers: [],
    foreignFunds: [],
    sweeps: [],
    txHash: null,
    receivedUnits: null,
    confirmedAt: null,
    closedAt: null,
    failureReason: null,
  }
}

function updateTransfer(
  state: OpenPayment,
  ref: TransferRef,
  change: Partial<Pick<CountedTransfer, 'confirmations' | 'final' | 'withdrawn'>>,
): OpenPayment {
  if (!state.transfers.some((transfer) => sameTransfer(transfer, ref))) return state
  return withTransfers(
    state,
    state.transfers.map((transfer) => (sameTransfer(transfer, ref) ? { ...transfer, ...change } : transfer)),
  )
}

function withTransfers(state: OpenPayment, transfers: CountedTransfer[]): OpenPayment {
  const active = activeTransfers(transfers)
  return {
    ...state,
    transfers,
    // null once nothing is counted any more: a dropped transfer is as if it had never come
    receivedUnits: transfers.length === 0 ? null : totalUnits(active).toString(),
    txHash: (latestTransfer(active) ?? latestTransfer(transfers))?.txHash ?? null,
  }
}
