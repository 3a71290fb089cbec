// The contract between broadcast (broadcaster.ts) and each chain's side of it (tron-chain-link.ts,
// solana-chain-link.ts), in a file of its own so that neither imports the other.

import type { AdminApi } from './admin-api.js'
import type { SignedStep, SignedSweep } from './sweep-plan.js'

export interface BroadcastState {
  /** step id -> in a block, succeeded */
  confirmed: Record<string, true>
  /** step id -> final, and its sweeps recorded with POST /admin/sweeps */
  recorded: Record<string, true>
}

export interface BroadcastOptions {
  rpcUrl: string
  /** TRON: the node serving /walletsolidity, which says what is final (default: rpcUrl) */
  solidityUrl?: string
  apiKey?: string
  statePath: string
  admin: AdminApi
  pollMs: number
  /** polls of one step before giving up (the run can be started again) */
  maxPolls: number
  log(line: string): void
}

/** what a chain says of a step's transaction */
export type StepStatus =
  | { state: 'included'; feeUnits: bigint }
  /** in a block, failed: charged, nothing moved */
  | { state: 'failed'; reason: string }
  /** not on chain: it may be sent */
  | { state: 'unknown' }
  | { state: 'expired' }

/** a node's refusal of a transaction: nothing was charged */
export class NodeRefusal extends Error {}

/** what a run knows when it asks the chain about a step */
export interface BroadcastRun {
  signed: SignedSweep
  state: BroadcastState
  /** steps that landed in this run, with the fee each paid */
  landed: Map<string, bigint>
}

/** a chain's side of broadcast (tron-chain-link.ts, solana-chain-link.ts) */
export interface ChainLink {
  status(step: SignedStep): Promise<StepStatus>
  /** sends the signed transaction; throws NodeRefusal when the node refuses it */
  send(step: SignedStep): Promise<void>
  /**
   * reads the chain again for what the step depends on: undefined when the plan still holds, else
   * what changed and what to do
   */
  recheck(step: SignedStep, run: BroadcastRun): Promise<string | undefined>
  /** whether the step's transaction is final (TRON: the solidity node has it; Solana: finalized) */
  finality(step: SignedStep): Promise<'final' | 'failed' | 'pending'>
  /** what the run actually spent, as lines to print */
  spent(run: BroadcastRun): Promise<string[]>
  /**
   * what the treasury's coin fell by in the step's final transaction: its fees, what it burned and
   * the coin it sent (a refund's network fee is this less the coin paid to the recipient)
   */
  treasuryOutflow(step: SignedStep): Promise<bigint>
}
