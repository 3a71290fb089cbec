// Refunds and payouts in a plan (docs/treasury.md, "Refunds and payouts in a plan"): the rows the admin API
// lists as ready (GET /admin/v1/outgoing), what a plan pays each of them, and what it leaves out and
// why. Money leaves the treasury only for an item marked `sending` in the plan (POST .../plan).

import type { OutgoingRow as AdminOutgoingRow } from '@chainpay/contracts'

export type OutgoingKind = AdminOutgoingRow['kind']

/**
 * what a plan reads of a row of GET /admin/v1/outgoing (docs/api.md, "Refunds and payouts for the
 * offline procedure"), the row as @chainpay/contracts defines it
 */
export type OutgoingRow = Pick<
  AdminOutgoingRow,
  | 'kind'
  | 'id'
  | 'merchantId'
  | 'walletId'
  | 'network'
  | 'currency'
  | 'amount'
  | 'address'
  | 'status'
  | 'planId'
  | 'txHash'
>

/** which item a step pays, and its part in it: activating the recipient, or paying it */
export interface OutgoingStepRef {
  kind: OutgoingKind
  id: string
  role: 'activate' | 'pay'
}

/** a refund or payout the plan pays, from the treasury to its recipient */
export interface PlannedOutgoing {
  kind: OutgoingKind
  id: string
  merchantId: string
  currency: string
  /** what the recipient receives, exactly: decimal string in whole units */
  amount: string
  address: string
  /** the step whose transaction pays it: its id is the item's txHash */
  stepId: string
  /** every step of the item, in order (a TRON activation, then the payment) */
  stepIds: string[]
  /** what the plan expects the treasury to pay for it beyond the amount (fees, activation, rent) */
  estimatedFee: string
  feeCurrency: string
  /** what it costs: one sentence, as `plan` prints it */
  costs: string
}

/** a ready item the plan leaves out: the admin API refused to mark it, or the treasury cannot pay it */
export interface SkippedOutgoing {
  kind: OutgoingKind
  id: string
  address: string | null
  currency: string
  amount: string
  /** TREASURY_SHORT, NOT_MARKED, NO_ADDRESS, BELOW_RENT_MINIMUM, UNKNOWN_ASSET */
  reason: string
  /** what was short or what the API answered, and what to do */
  detail: string
}

export const outgoingKey = (item: { kind: OutgoingKind; id: string }): string => `${item.kind}:${item.id}`
