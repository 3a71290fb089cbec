import { describe, it } from 'vitest'
import {
  decideLedger,
  evolveLedger,
  initialLedgerState,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerState,
} from './merchant-ledger.js'
import { deciderSpecification } from './testing/decider-specification.js'

const merchantId = 'merchant-1'
const paymentId = '5f1c1b7e-3a2d-4b8e-8f6a-1d2c3b4a5e6f'
const now = '2026-11-28T10:00:00.000Z'

const given = deciderSpecification<LedgerState, LedgerCommand, LedgerEvent>({
  decide: decideLedger,
  evolve: evolveLedger,
  initialState: initialLedgerState,
})

function reserve(
  kind: 'refund' | 'payout',
  id: string,
  amountUnits: string,
  overrides: { refundableUnits?: bigint; receivedNetUnits?: bigint } = {},
): LedgerCommand {
  return {
    type: 'Reserve',
    data: {
      merchantId,
      kind,
      id,
      paymentId: kind === 'refund' ? paymentId : null,
      network: 'TRON',
      currency: 'USDT',
      amountUnits,
      decimals: 6,
      refundableUnits: kind === 'refund' ? (overrides.refundableUnits ?? 10_000_000n) : null,
      receivedNetUnits: overrides.receivedNetUnits ?? 100_000_000n,
      now,
    },
  }
}

function reserved(kind: 'refund' | 'payout', id: string, amountUnits: string): LedgerEvent {
  return {
    type: 'FundsReserved',
    data: {
      merchantId,
      kind,
      id,
      paymentId: kind === 'refund' ? paymentId : null,
      network: 'TRON',
      currency: 'USDT',
      amountUnits,
      reservedAt: now,
    },
  }
}

const released = (kind: 'refund' | 'payout', id: string): LedgerEvent => ({
  type: 'FundsReleased',
  data: { merchantId, kind, id, reason: 'canceled', releasedAt: now },
})

describe('Reserve a refund', () => {
  it('reserves what fits the payment’s refundable rest', () => {
    given([reserved('refund', 'r1', '6000000')])
      .when(reserve('refund', 'r2', '4000000'))
      .then([reserved('refund', 'r2', '4000000')])
  })

  it('refuses what exceeds the rest, naming it', () => {
    given([reserved('refund', 'r1', '6000000')])
      .when(reserve('refund', 'r2', '4000001'))
      .thenThrows('VALIDATION_ERROR', "amount: exceeds the payment's refundable rest of 4 USDT")
  })

  it('counts a released refund as refundable again', () => {
    given([reserved('refund', 'r1', '6000000'), released('refund', 'r1')])
      .when(reserve('refund', 'r2', '10000000'))
      .then([reserved('refund', 'r2', '10000000')])
  })

  it('is nothing new for the same id and amount; another amount under the same key is a reuse', () => {
    given([reserved('refund', 'r1', '6000000')])
      .when(reserve('refund', 'r1', '6000000'))
      .thenNothingHappens()
    given([reserved('refund', 'r1', '6000000')])
      .when(reserve('refund', 'r1', '5000000'))
      .thenThrows('IDEMPOTENCY_KEY_REUSED')
  })
})

describe('Reserve a payout', () => {
  it('reserves what the balance holds after refunds and payouts not failed or canceled', () => {
    given([reserved('refund', 'r1', '6000000'), reserved('payout', 'p1', '4000000')])
      .when(reserve('payout', 'p2', '90000000'))
      .then([reserved('payout', 'p2', '90000000')])
  })

  it('refuses what would take the balance below zero', () => {
    given([reserved('payout', 'p1', '60000000')])
      .when(reserve('payout', 'p2', '40000001'))
      .thenThrows('INSUFFICIENT_BALANCE', /available balance of 40 USDT on TRON/)
  })

  it('refuses a refund the balance cannot carry, even within the payment’s rest', () => {
    given([reserved('payout', 'p1', '95000000')])
      .when(reserve('refund', 'r1', '6000000'))
      .thenThrows('INSUFFICIENT_BALANCE')
  })
})

describe('Release', () => {
  it('releases a reservation once', () => {
    const command: LedgerCommand = {
      type: 'Release',
      data: { merchantId, kind: 'payout', id: 'p1', reason: 'canceled', now },
    }
    given([reserved('payout', 'p1', '1')])
      .when(command)
      .then([released('payout', 'p1')])
    given([reserved('payout', 'p1', '1'), released('payout', 'p1')])
      .when(command)
      .thenNothingHappens()
    given([]).when(command).thenNothingHappens()
  })
})
