// The payout aggregate (docs/api.md, "Refunds and payouts"): money from a merchant's balance to any
// address. Its events live in its own stream, payout-{payoutId}. Pure: time and ids come in. Whether
// the balance covers it is the ledger's to decide (merchant-ledger.ts), before the payout exists.

import type { Chain } from './assets.js'
import { DomainError } from './errors.js'
import { toUnits } from './money.js'
import { decideLifecycle, evolveLifecycle, type LifecycleStep, lifecycleSteps } from './outgoing-lifecycle.js'
import type {
  Outgoing,
  OutgoingState,
  PayoutCommand,
  PayoutEvent,
  PayoutEventType,
} from './outgoing-types.js'
import { recipientAddressProblem } from './recipient-address.js'

export const PayoutEventTypes: readonly PayoutEventType[] = [
  'PayoutCreated',
  ...lifecycleSteps
    .filter((step) => step !== 'AddressGiven')
    .map((step) => `Payout${step}` as PayoutEventType),
]

export function toPayoutStreamId(payoutId: string): string {
  return `payout-${payoutId}`
}

export function decidePayout(command: PayoutCommand, state: OutgoingState, chain: Chain): PayoutEvent[] {
  if (command.type === 'CreatePayout') {
    const { data } = command
    if (state.status !== 'none') {
      if (state.merchantId === data.merchantId && state.requestFingerprint === data.requestFingerprint)
        return []
      throw new DomainError('IDEMPOTENCY_KEY_REUSED', 'idempotencyKey: already used with a different request')
    }
    const problem = recipientAddressProblem(chain, data.address)
    if (problem !== null) throw new DomainError('VALIDATION_ERROR', `address: ${problem}`)
    return [
      {
        type: 'PayoutCreated',
        data: {
          payoutId: data.id,
          merchantId: data.merchantId,
          network: data.network,
          currency: data.currency,
          decimals: data.decimals,
          amount: data.amount,
          amountUnits: toUnits(data.amount, data.decimals).toString(),
          address: data.address,
          walletId: data.walletId,
          metadata: data.metadata,
          idempotencyKey: data.idempotencyKey,
          requestFingerprint: data.requestFingerprint,
          createdAt: data.now,
        },
      },
    ]
  }
  if (state.status === 'none') throw new DomainError('PAYOUT_NOT_FOUND', 'payout not found')
  return decideLifecycle(command, state).map(
    ({ step, data }) => ({ type: `Payout${step}`, data: { payoutId: state.id, ...data } }) as PayoutEvent,
  )
}

export function evolvePayout(state: OutgoingState, event: PayoutEvent): OutgoingState {
  if (event.type === 'PayoutCreated') {
    const { data } = event
    return {
      kind: 'payout',
      id: data.payoutId,
      merchantId: data.merchantId,
      paymentId: null,
      network: data.network,
      currency: data.currency,
      decimals: data.decimals,
      amount: data.amount,
      amountUnits: data.amountUnits,
      address: data.address,
      claimable: false,
      reason: null,
      metadata: data.metadata,
      walletId: data.walletId,
      idempotencyKey: data.idempotencyKey,
      requestFingerprint: data.requestFingerprint,
      status: 'ready',
      planId: null,
      txHash: null,
      networkFee: null,
      failureReason: null,
      createdAt: data.createdAt,
      updatedAt: data.createdAt,
    }
  }
  if (state.status === 'none') throw new Error(`payout event ${event.type} before PayoutCreated`)
  const { payoutId: _, ...data } = event.data
  return evolveLifecycle(
    state as Outgoing,
    {
      step: event.type.slice('Payout'.length),
      data,
    } as LifecycleStep,
  )
}
