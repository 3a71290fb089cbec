// What each chain's planner of refunds and payouts (tron-outgoing-planner.ts,
// solana-outgoing-planner.ts) gives outgoing-planner.ts: each item's transactions and costs.

import type { OutgoingRow, SkippedOutgoing } from './outgoing-plan.js'
import type { TreasuryFunds } from './outgoing-rules.js'
import type { PlanStep } from './sweep-plan.js'

/** an item the chain's planner can pay, with its transactions and what they cost */
export interface OutgoingCandidate {
  row: OutgoingRow
  amountUnits: bigint
  native: boolean
  /** the treasury's cost beyond the amount at the node's estimates */
  estimatedFeeUnits: bigint
  /** the most it can cost (fee limits, headroom, rent): what the treasury must hold for it */
  costUnits: bigint
  costs: string
  steps: PlanStep[]
}

export interface OutgoingPlanOutput {
  candidates: OutgoingCandidate[]
  /** items the chain's planner cannot pay whatever the treasury holds */
  skipped?: SkippedOutgoing[]
  funds: TreasuryFunds
  /** what the treasury must keep of its coin (Solana: its rent-exempt minimum) */
  reserveUnits?: bigint
  nativeCurrency: string
  nativeDecimals: number
  validUntil: Date
  validity: string
}
