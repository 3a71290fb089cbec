// The refund aggregate (docs/api.md, "Refunds and payouts"): a refund of a payment, in its asset, to
// the address the merchant gives or the customer gives on the claim page. Its events live in its own
// stream, refund-{refundId}. Pure: time and ids come in. What it may take from the payment's rest and
// the merchant's balance is the ledger's to decide (merchant-ledger.ts), before the refund exists.

import type { Chain } from './assets.js'
import { DomainError } from './errors.js'
import { toUnits } from './money.js'
import { decideLifecycle, evolveLifecycle, type LifecycleStep, lifecycleSteps } from './outgoing-lifecycle.js'
import type {
  Outgoing,
  OutgoingState,
  RefundCommand,
  RefundEvent,
  RefundEventType,
} from './outgoing-types.js'
import { recipientAddressProblem } from './recipient-address.js'

export const RefundEventTypes: readonly RefundEventType[] = [
  'RefundCreated',
  ...lifecycleSteps.map((step) => `Refund${step}` as RefundEventType),
]

export const initialOutgoingState: OutgoingState = { status: 'none' }

export function toRefundStreamId(refundId: string): string {
  return `refund-${refundId}`
}

export function decideRefund(command: RefundCommand, state: OutgoingState, chain: Chain): RefundEvent[] {
  if (command.type === 'CreateRefund') {
    const { data } = command
    if (state.status !== 'none') {
      if (state.merchantId === data.merchantId && state.requestFingerprint === data.requestFingerprint)
        return []
      throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'idempotencyKey: already used with a different request')
    }
    if (data.address !== null) {
      const problem = recipientAddressProblem(chain, data.address)
      if (problem !== null) throw new DomainError('VALIDATION_ERROR', `address: ${problem}`)
    }
    return [
      {
        type: 'RefundCreated',
        data: {
          refundId: data.id,
          paymentId: data.paymentId,
          merchantId: data.merchantId,
          network: data.network,
          currency: data.currency,
          decimals: data.decimals,
          amount: data.amount,
          amountUnits: toUnits(data.amount, data.decimals).toString(),
          address: data.address,
          walletId: data.walletId,
          reason: data.reason,
          idempotencyKey: data.idempotencyKey,
          requestFingerprint: data.requestFingerprint,
          createdAt: data.now,
        },
      },
    ]
  }
  if (state.status === 'none') throw new DomainError('REFUND_NOT_FOUND', 'refund not found')
  if (command.type === 'GiveAddress') {
    const { address, now } = command.data
    const problem = recipientAddressProblem(chain, address)
    if (problem !== null) throw new DomainError('VALIDATION_ERROR', `address: ${problem}`)
    if (state.address === address) return []
    if (state.status !== 'awaiting_address') {
      const why = state.address === null ? 'it no longer awaits an address' : 'its address was already given'
      throw new DomainError('REFUND_NOT_ALLOWED', `refund ${state.id} is ${state.status}: ${why}`)
    }
    return [{ type: 'RefundAddressGiven', data: { refundId: state.id, address, givenAt: now } }]
  }
  return decideLifecycle(command, state).map((step) => toRefundEvent(state.id, step))
}

function toRefundEvent(refundId: string, { step, data }: LifecycleStep): RefundEvent {
  return { type: `Refund${step}`, data: { refundId, ...data } } as RefundEvent
}

export function evolveRefund(state: OutgoingState, event: RefundEvent): OutgoingState {
  if (event.type === 'RefundCreated') {
    const { data } = event
    return {
      kind: 'refund',
      id: data.refundId,
      merchantId: data.merchantId,
      paymentId: data.paymentId,
      network: data.network,
      currency: data.currency,
      decimals: data.decimals,
      amount: data.amount,
      amountUnits: data.amountUnits,
      address: data.address,
      claimable: data.address === null,
      reason: data.reason,
      metadata: null,
      walletId: data.walletId,
      idempotencyKey: data.idempotencyKey,
      requestFingerprint: data.requestFingerprint,
      status: data.address === null ? 'awaiting_address' : 'ready',
      planId: null,
      txHash: null,
      networkFee: null,
      failureReason: null,
      createdAt: data.createdAt,
      updatedAt: data.createdAt,
    }
  }
  if (state.status === 'none') throw new Error(`refund event ${event.type} before RefundCreated`)
  const { refundId: _, ...data } = event.data
  return evolveLifecycle(
    state as Outgoing,
    {
      step: event.type.slice('Refund'.length),
      data,
    } as LifecycleStep,
  )
}
