import { describe, expect, it } from 'vitest'
import type { OutgoingState, RefundCommand, RefundEvent } from './outgoing-types.js'
import { recipientAddressProblem } from './recipient-address.js'
import { decideRefund, evolveRefund, initialOutgoingState } from './refund.js'
import { deciderSpecification } from './testing/decider-specification.js'

const refundId = '0b9d5c8e-6f0e-4a51-9b1a-2c7d2d9b1e01'
const paymentId = '5f1c1b7e-3a2d-4b8e-8f6a-1d2c3b4a5e6f'
const merchantId = 'merchant-1'
const customer = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8'
const other = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'
const now = '2026-11-28T10:00:00.000Z'
const later = '2026-11-28T11:00:00.000Z'

const given = deciderSpecification<OutgoingState, RefundCommand, RefundEvent>({
  decide: (command, state) => decideRefund(command, state, 'TRON'),
  evolve: evolveRefund,
  initialState: initialOutgoingState,
})

function createRefund(
  overrides: Partial<Extract<RefundCommand, { type: 'CreateRefund' }>['data']> = {},
): RefundCommand {
  return {
    type: 'CreateRefund',
    data: {
      id: refundId,
      paymentId,
      merchantId,
      network: 'TRON',
      currency: 'USDT',
      decimals: 6,
      amount: '2.5',
      address: customer,
      reason: 'overpaid',
      walletId: 'operator',
      idempotencyKey: 'refund-1',
      requestFingerprint: 'a'.repeat(64),
      now,
      ...overrides,
    },
  }
}

function refundCreated(
  overrides: Partial<Extract<RefundEvent, { type: 'RefundCreated' }>['data']> = {},
): RefundEvent {
  return {
    type: 'RefundCreated',
    data: {
      refundId,
      paymentId,
      merchantId,
      network: 'TRON',
      currency: 'USDT',
      decimals: 6,
      amount: '2.5',
      amountUnits: '2500000',
      address: customer,
      walletId: 'operator',
      reason: 'overpaid',
      idempotencyKey: 'refund-1',
      requestFingerprint: 'a'.repeat(64),
      createdAt: now,
      ...overrides,
    },
  }
}

const planned: RefundEvent = { type: 'RefundPlanned', data: { refundId, planId: 'plan-1', plannedAt: later } }
const sent: RefundEvent = {
  type: 'RefundSent',
  data: { refundId, planId: 'plan-1', txHash: 'tx-1', sentAt: later },
}
const networkFee = { currency: 'TRX', decimals: 6, amountUnits: '345000' }

describe('CreateRefund', () => {
  it('creates a ready refund to the address the merchant gave', () => {
    given([]).when(createRefund()).then([refundCreated()])
  })

  it('creates one awaiting its address when the merchant gave none (the claim page)', () => {
    given([])
      .when(createRefund({ address: null }))
      .then([refundCreated({ address: null })])
    const state = evolveRefund(initialOutgoingState, refundCreated({ address: null }))
    expect(state).toMatchObject({ status: 'awaiting_address', claimable: true })
  })

  it('replays the same request as nothing new, and refuses the key with another', () => {
    given([refundCreated()]).when(createRefund()).thenNothingHappens()
    given([refundCreated()])
      .when(createRefund({ requestFingerprint: 'b'.repeat(64) }))
      .thenThrows('IDEMPOTENCY_KEY_REUSED')
  })

  it('refuses an address that is not one of the network', () => {
    given([])
      .when(createRefund({ address: 'not-an-address' }))
      .thenThrows('VALIDATION_ERROR', /address/)
  })
})

describe('GiveAddress', () => {
  const awaiting = [refundCreated({ address: null })]
  it('takes the customer’s address once: ready', () => {
    given(awaiting)
      .when({ type: 'GiveAddress', data: { address: customer, now: later } })
      .then([{ type: 'RefundAddressGiven', data: { refundId, address: customer, givenAt: later } }])
  })

  it('is a replay with the same address and refused with another', () => {
    const given1 = [
      ...awaiting,
      { type: 'RefundAddressGiven', data: { refundId, address: customer, givenAt: later } } as RefundEvent,
    ]
    given(given1)
      .when({ type: 'GiveAddress', data: { address: customer, now: later } })
      .thenNothingHappens()
    given(given1)
      .when({ type: 'GiveAddress', data: { address: other, now: later } })
      .thenThrows('REFUND_NOT_ALLOWED')
  })

  it('refuses a malformed address before anything else', () => {
    given(awaiting)
      .when({ type: 'GiveAddress', data: { address: 'T123', now: later } })
      .thenThrows('VALIDATION_ERROR', /no TRON address/)
  })
})

describe('Cancel', () => {
  it('cancels a ready refund, and again is nothing new', () => {
    const canceled: RefundEvent = { type: 'RefundCanceled', data: { refundId, canceledAt: later } }
    given([refundCreated()])
      .when({ type: 'Cancel', data: { merchantId, now: later } })
      .then([canceled])
    given([refundCreated(), canceled])
      .when({ type: 'Cancel', data: { merchantId, now: later } })
      .thenNothingHappens()
  })

  it('refuses once the refund is in a plan', () => {
    given([refundCreated(), planned])
      .when({ type: 'Cancel', data: { merchantId, now: later } })
      .thenThrows('REFUND_NOT_ALLOWED', /sending/)
  })

  it('does not know another merchant’s refund', () => {
    given([refundCreated()])
      .when({ type: 'Cancel', data: { merchantId: 'merchant-2', now: later } })
      .thenThrows('REFUND_NOT_FOUND')
  })
})

describe('the offline procedure', () => {
  it('plans a ready refund once; the same plan again is nothing new, another plan is refused', () => {
    given([refundCreated()])
      .when({ type: 'Plan', data: { planId: 'plan-1', now: later } })
      .then([planned])
    given([refundCreated(), planned])
      .when({ type: 'Plan', data: { planId: 'plan-1', now: later } })
      .thenNothingHappens()
    given([refundCreated(), planned])
      .when({ type: 'Plan', data: { planId: 'plan-2', now: later } })
      .thenThrows('REFUND_NOT_ALLOWED', /plan-1/)
  })

  it('never plans one awaiting its address or canceled', () => {
    given([refundCreated({ address: null })])
      .when({ type: 'Plan', data: { planId: 'plan-1', now: later } })
      .thenThrows('REFUND_NOT_ALLOWED')
  })

  it('releases a plan never broadcast: ready again', () => {
    given([refundCreated(), planned])
      .when({ type: 'Release', data: { planId: 'plan-1', now: later } })
      .then([{ type: 'RefundReleased', data: { refundId, planId: 'plan-1', releasedAt: later } }])
    given([refundCreated(), planned, sent])
      .when({ type: 'Release', data: { planId: 'plan-1', now: later } })
      .thenThrows('REFUND_NOT_ALLOWED')
  })

  it('records sent once with its transaction', () => {
    given([refundCreated(), planned])
      .when({ type: 'MarkSent', data: { planId: 'plan-1', txHash: 'tx-1', now: later } })
      .then([sent])
    given([refundCreated(), planned, sent])
      .when({ type: 'MarkSent', data: { planId: 'plan-1', txHash: 'tx-1', now: later } })
      .thenNothingHappens()
    given([refundCreated(), planned, sent])
      .when({ type: 'MarkSent', data: { planId: 'plan-1', txHash: 'tx-2', now: later } })
      .thenThrows('REFUND_NOT_ALLOWED')
    given([refundCreated()])
      .when({ type: 'MarkSent', data: { planId: 'plan-1', txHash: 'tx-1', now: later } })
      .thenThrows('REFUND_NOT_ALLOWED')
  })

  it('completes a sent refund with the fee the treasury paid, once', () => {
    const completed: RefundEvent = {
      type: 'RefundCompleted',
      data: { refundId, txHash: 'tx-1', networkFee, completedAt: later },
    }
    given([refundCreated(), planned, sent])
      .when({ type: 'Complete', data: { txHash: 'tx-1', networkFee, now: later } })
      .then([completed])
    given([refundCreated(), planned, sent, completed])
      .when({ type: 'Complete', data: { txHash: 'tx-1', networkFee, now: later } })
      .thenNothingHappens()
  })

  it('fails a sent refund whose transaction the chain refused, once', () => {
    const failed: RefundEvent = {
      type: 'RefundFailed',
      data: { refundId, txHash: 'tx-1', reason: 'REVERT', failedAt: later },
    }
    given([refundCreated(), planned, sent])
      .when({ type: 'Fail', data: { txHash: null, reason: 'REVERT', now: later } })
      .then([failed])
    given([refundCreated(), planned, sent, failed])
      .when({ type: 'Fail', data: { txHash: 'tx-1', reason: 'REVERT', now: later } })
      .thenNothingHappens()
    given([refundCreated(), planned])
      .when({ type: 'Fail', data: { txHash: null, reason: 'REVERT', now: later } })
      .thenThrows('REFUND_NOT_ALLOWED')
  })
})

describe('recipient addresses', () => {
  it('takes TRON base58check and Solana 32-byte keys, and nothing else', () => {
    expect(recipientAddressProblem('TRON', customer)).toBeNull()
    expect(recipientAddressProblem('TRON', `${customer.slice(0, -1)}9`)).toMatch(/no TRON address/)
    expect(recipientAddressProblem('SOLANA', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBeNull()
    expect(recipientAddressProblem('SOLANA', customer)).toMatch(/no Solana address/)
  })
})
