import { describe, it } from 'vitest'
import type { OutgoingState, PayoutCommand, PayoutEvent } from './outgoing-types.js'
import { decidePayout, evolvePayout } from './payout.js'
import { initialOutgoingState } from './refund.js'
import { deciderSpecification } from './testing/decider-specification.js'

const payoutId = '7a6e3f0c-1b2d-4c5e-9f80-a1b2c3d4e5f6'
const merchantId = 'merchant-1'
const payee = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const now = '2026-11-28T10:00:00.000Z'
const later = '2026-11-28T11:00:00.000Z'

const given = deciderSpecification<OutgoingState, PayoutCommand, PayoutEvent>({
  decide: (command, state) => decidePayout(command, state, 'SOLANA'),
  evolve: evolvePayout,
  initialState: initialOutgoingState,
})

const create = (address: string | null = payee): PayoutCommand => ({
  type: 'CreatePayout',
  data: {
    id: payoutId,
    merchantId,
    network: 'SOLANA',
    currency: 'USDC',
    decimals: 6,
    amount: '12',
    address,
    metadata: { invoice: 'inv-7' },
    walletId: 'operator',
    idempotencyKey: 'payout-1',
    requestFingerprint: 'c'.repeat(64),
    now,
  },
})

const created: PayoutEvent = {
  type: 'PayoutCreated',
  data: {
    payoutId,
    merchantId,
    network: 'SOLANA',
    currency: 'USDC',
    decimals: 6,
    amount: '12',
    amountUnits: '12000000',
    address: payee,
    walletId: 'operator',
    metadata: { invoice: 'inv-7' },
    idempotencyKey: 'payout-1',
    requestFingerprint: 'c'.repeat(64),
    createdAt: now,
  },
}

describe('CreatePayout', () => {
  it('creates a ready payout with its metadata', () => {
    given([]).when(create()).then([created])
  })

  it('refuses a payout without a well-formed address', () => {
    given([])
      .when(create(null))
      .thenThrows('VALIDATION_ERROR', /address/)
    given([])
      .when(create('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'))
      .thenThrows('VALIDATION_ERROR', /no Solana address/)
  })
})

describe('the payout’s lifecycle', () => {
  const planned: PayoutEvent = {
    type: 'PayoutPlanned',
    data: { payoutId, planId: 'plan-1', plannedAt: later },
  }
  it('is canceled while ready, and not once in a plan', () => {
    given([created])
      .when({ type: 'Cancel', data: { merchantId, now: later } })
      .then([{ type: 'PayoutCanceled', data: { payoutId, canceledAt: later } }])
    given([created, planned])
      .when({ type: 'Cancel', data: { merchantId, now: later } })
      .thenThrows('PAYOUT_NOT_ALLOWED')
  })

  it('goes ready -> sending -> sent -> completed', () => {
    const sent: PayoutEvent = {
      type: 'PayoutSent',
      data: { payoutId, planId: 'plan-1', txHash: 'sig-1', sentAt: later },
    }
    const networkFee = { currency: 'SOL', decimals: 9, amountUnits: '5000' }
    given([created])
      .when({ type: 'Plan', data: { planId: 'plan-1', now: later } })
      .then([planned])
    given([created, planned])
      .when({ type: 'MarkSent', data: { planId: 'plan-1', txHash: 'sig-1', now: later } })
      .then([sent])
    given([created, planned, sent])
      .when({ type: 'Complete', data: { txHash: 'sig-1', networkFee, now: later } })
      .then([
        { type: 'PayoutCompleted', data: { payoutId, txHash: 'sig-1', networkFee, completedAt: later } },
      ])
  })

  it('does not know a payout that was never created', () => {
    given([])
      .when({ type: 'Cancel', data: { merchantId, now: later } })
      .thenThrows('PAYOUT_NOT_FOUND')
  })
})
