// What refunds and payouts share after creation (docs/api.md, "Refunds and payouts"): the address a
// customer gives, cancel, and the offline procedure's steps (plan, release, sent, completed, failed).
// refund.ts and payout.ts name these steps as their own events (RefundPlanned, PayoutPlanned...).

import { DomainError, type ErrorCode } from './errors.js'
import type {
  AddressGivenData,
  CanceledData,
  CompletedData,
  FailedData,
  Outgoing,
  OutgoingLifecycleCommand,
  PlannedData,
  ReleasedData,
  SentData,
} from './outgoing-types.js'

export type LifecycleStep =
  | { step: 'AddressGiven'; data: AddressGivenData }
  | { step: 'Planned'; data: PlannedData }
  | { step: 'Released'; data: ReleasedData }
  | { step: 'Sent'; data: SentData }
  | { step: 'Completed'; data: CompletedData }
  | { step: 'Failed'; data: FailedData }
  | { step: 'Canceled'; data: CanceledData }

export const lifecycleSteps = [
  'AddressGiven',
  'Planned',
  'Released',
  'Sent',
  'Completed',
  'Failed',
  'Canceled',
] as const satisfies readonly LifecycleStep['step'][]

function notAllowed(item: Outgoing, message: string): DomainError {
  const code: ErrorCode = item.kind === 'refund' ? 'REFUND_NOT_ALLOWED' : 'PAYOUT_NOT_ALLOWED'
  return new DomainError(code, `${item.kind} ${item.id} is ${item.status}: ${message}`)
}

export function notFound(kind: Outgoing['kind'], id: string): DomainError {
  return new DomainError(
    kind === 'refund' ? 'REFUND_NOT_FOUND' : 'PAYOUT_NOT_FOUND',
    `${kind} ${id} not found`,
  )
}

/** the steps a lifecycle command takes on an existing refund or payout; [] when it was already taken */
export function decideLifecycle(command: OutgoingLifecycleCommand, item: Outgoing): LifecycleStep[] {
  switch (command.type) {
    case 'Cancel': {
      // another merchant's is as unknown as one that does not exist (docs/api.md, "Errors")
      if (command.data.merchantId !== item.merchantId) throw notFound(item.kind, item.id)
      if (item.status === 'canceled') return []
      if (item.status === 'awaiting_address' || item.status === 'ready')
        return [{ step: 'Canceled', data: { canceledAt: command.data.now } }]
      throw notAllowed(
        item,
        'only one awaiting its address or ready (not yet in a signed plan) can be canceled',
      )
    }
    case 'Plan': {
      const { planId, now } = command.data
      if (item.status === 'sending' && item.planId === planId) return []
      if (item.status === 'ready') return [{ step: 'Planned', data: { planId, plannedAt: now } }]
      if (item.status === 'sending') throw notAllowed(item, `it is in plan ${item.planId}`)
      throw notAllowed(item, 'only a ready one can be put in a plan')
    }
    case 'Release': {
      const { planId, now } = command.data
      if (item.status === 'ready') return []
      if (item.status === 'sending' && item.planId === planId)
        return [{ step: 'Released', data: { planId, releasedAt: now } }]
      if (item.status === 'sending') throw notAllowed(item, `it is in plan ${item.planId}, not ${planId}`)
      throw notAllowed(item, 'only one in a plan that was never broadcast can be released')
    }
    case 'MarkSent': {
      const { planId, txHash, now } = command.data
      if ((item.status === 'sent' || item.status === 'completed') && item.txHash === txHash) return []
      if (item.status === 'sending' && item.planId === planId)
        return [{ step: 'Sent', data: { planId, txHash, sentAt: now } }]
      if (item.status === 'sending') throw notAllowed(item, `it is in plan ${item.planId}, not ${planId}`)
      if (item.status === 'sent') throw notAllowed(item, `it was sent in transaction ${item.txHash}`)
      throw notAllowed(item, 'only one in a plan can be recorded as sent')
    }
    case 'Complete': {
      const { txHash, networkFee, now } = command.data
      if (item.status === 'completed' && item.txHash === txHash) return []
      if (item.status === 'sent' && item.txHash === txHash)
        return [{ step: 'Completed', data: { txHash, networkFee, completedAt: now } }]
      if (item.status === 'sent')
        throw notAllowed(item, `it was sent in transaction ${item.txHash}, not ${txHash}`)
      throw notAllowed(item, 'only a sent one can be completed')
    }
    case 'Fail': {
      const { txHash, reason, now } = command.data
      if (item.status === 'failed') return []
      if (item.status !== 'sent') throw notAllowed(item, 'only a sent one can fail on chain')
      if (txHash !== null && txHash !== item.txHash)
        throw notAllowed(item, `it was sent in transaction ${item.txHash}, not ${txHash}`)
      return [{ step: 'Failed', data: { txHash: item.txHash, reason, failedAt: now } }]
    }
    default: {
      const unknown: never = command
      throw new DomainError('INTERNAL_ERROR', `unknown command ${(unknown as { type: string }).type}`)
    }
  }
}

export function evolveLifecycle(item: Outgoing, { step, data }: LifecycleStep): Outgoing {
  switch (step) {
    case 'AddressGiven':
      return { ...item, address: data.address, status: 'ready', updatedAt: data.givenAt }
    case 'Planned':
      return { ...item, status: 'sending', planId: data.planId, updatedAt: data.plannedAt }
    case 'Released':
      return { ...item, status: 'ready', planId: null, updatedAt: data.releasedAt }
    case 'Sent':
      return { ...item, status: 'sent', txHash: data.txHash, updatedAt: data.sentAt }
    case 'Completed':
      return { ...item, status: 'completed', networkFee: data.networkFee, updatedAt: data.completedAt }
    case 'Failed':
      return { ...item, status: 'failed', failureReason: data.reason, updatedAt: data.failedAt }
    case 'Canceled':
      return { ...item, status: 'canceled', updatedAt: data.canceledAt }
    default: {
      const unknown: never = step
      throw new Error(`unknown step ${String(unknown)}`)
    }
  }
}

/** whether its amount still counts against the balance (and, for a refund, the payment's rest) */
export function holdsFunds(item: Pick<Outgoing, 'status'>): boolean {
  return item.status !== 'failed' && item.status !== 'canceled'
}
