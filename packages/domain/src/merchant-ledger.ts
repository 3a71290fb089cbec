// A merchant's ledger (docs/api.md, "Balances"): the one place where refunds and payouts take money
// from the merchant's balance and a refund from its payment's rest. Its stream, ledger-{merchantId},
// is appended with the expected revision, so concurrent creates, on any number of payment-command
// replicas, are decided one after the other: a create that lost the race is decided again on the
// ledger that now holds the winner, and only what still fits is reserved. Pure: the payment's final
// funds and the merchant's received net come in with the command.

import { DomainError } from './errors.js'
import { formatUnits } from './money.js'
import type { OutgoingKind } from './outgoing-types.js'

export interface FundsReservedData {
  merchantId: string
  kind: OutgoingKind
  id: string
  /** refunds: the payment refunded */
  paymentId: string | null
  network: string
  currency: string
  amountUnits: string
  reservedAt: string
}

export interface FundsReleasedData {
  merchantId: string
  kind: OutgoingKind
  id: string
  /** the refund or payout was canceled, or failed on chain */
  reason: 'canceled' | 'failed'
  releasedAt: string
}

export type LedgerEvent =
  | { type: 'FundsReserved'; data: FundsReservedData }
  | { type: 'FundsReleased'; data: FundsReleasedData }

export type LedgerEventType = LedgerEvent['type']
export const LedgerEventTypes: readonly LedgerEventType[] = ['FundsReserved', 'FundsReleased']

export interface LedgerEntry extends Omit<FundsReservedData, 'merchantId'> {
  released: boolean
}

export interface LedgerState {
  /** every reservation, in the order made */
  entries: LedgerEntry[]
}

export const initialLedgerState: LedgerState = { entries: [] }

export function toLedgerStreamId(merchantId: string): string {
  return `ledger-${merchantId}`
}

export type LedgerCommand =
  | {
      type: 'Reserve'
      data: Omit<FundsReservedData, 'reservedAt'> & {
        decimals: number
        /** refunds: everything the payment received that is final (paymentFinalFunds's gross) */
        refundableUnits: bigint | null
        /** the merchant's received net of the asset, from the read side: never more than the truth */
        receivedNetUnits: bigint
        now: string
      }
    }
  | { type: 'Release'; data: Omit<FundsReleasedData, 'releasedAt'> & { now: string } }

const sameEntry = (entry: LedgerEntry, kind: OutgoingKind, id: string) =>
  entry.kind === kind && entry.id === id

export function decideLedger(command: LedgerCommand, state: LedgerState): LedgerEvent[] {
  switch (command.type) {
    case 'Reserve': {
      const { decimals, refundableUnits, receivedNetUnits, now, ...reservation } = command.data
      const existing = state.entries.find((entry) => sameEntry(entry, reservation.kind, reservation.id))
      if (existing !== undefined) {
        // the same idempotency key again: its amount was reserved once, for that request only
        if (existing.amountUnits === reservation.amountUnits) return []
        throw new DomainError(
          'IDEMPOTENCY_KEY_REUSED',
          'idempotencyKey: already used with a different request',
        )
      }
      const amount = BigInt(reservation.amountUnits)
      const show = (units: bigint) => `${formatUnits(units, decimals)} ${reservation.currency}`
      if (reservation.kind === 'refund') {
        const rest =
          (refundableUnits ?? 0n) -
          heldUnits(state, (entry) => entry.kind === 'refund' && entry.paymentId === reservation.paymentId)
        if (amount > rest) {
          throw new DomainError(
            'VALIDATION_ERROR',
            `amount: exceeds the payment's refundable rest of ${show(rest < 0n ? 0n : rest)}`,
          )
        }
      }
      const available =
        receivedNetUnits -
        heldUnits(
          state,
          (entry) => entry.network === reservation.network && entry.currency === reservation.currency,
        )
      if (amount > available) {
        throw new DomainError(
          'INSUFFICIENT_BALANCE',
          `amount: exceeds the available balance of ${show(available < 0n ? 0n : available)} on ${reservation.network}`,
        )
      }
      return [{ type: 'FundsReserved', data: { ...reservation, reservedAt: now } }]
    }
    case 'Release': {
      const { now, ...release } = command.data
      const entry = state.entries.find((candidate) => sameEntry(candidate, release.kind, release.id))
      if (entry === undefined || entry.released) return []
      return [{ type: 'FundsReleased', data: { ...release, releasedAt: now } }]
    }
    default: {
      const unknown: never = command
      throw new DomainError('INTERNAL_ERROR', `unknown ledger command ${(unknown as { type: string }).type}`)
    }
  }
}

export function evolveLedger(state: LedgerState, event: LedgerEvent): LedgerState {
  switch (event.type) {
    case 'FundsReserved': {
      const { merchantId: _, ...entry } = event.data
      return { entries: [...state.entries, { ...entry, released: false }] }
    }
    case 'FundsReleased':
      return {
        entries: state.entries.map((entry) =>
          sameEntry(entry, event.data.kind, event.data.id) ? { ...entry, released: true } : entry,
        ),
      }
    default: {
      const unknown: never = event
      throw new Error(`unknown ledger event ${(unknown as { type: string }).type}`)
    }
  }
}

/** the sum of the reservations still held (not released) that `which` picks */
export function heldUnits(state: LedgerState, which: (entry: LedgerEntry) => boolean): bigint {
  return state.entries
    .filter((entry) => !entry.released && which(entry))
    .reduce((sum, entry) => sum + BigInt(entry.amountUnits), 0n)
}
