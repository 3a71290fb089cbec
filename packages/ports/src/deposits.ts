// Deposits at customers' deposit addresses (docs/api.md, "Deposits"; decisions.md section 22): the
// read model the projection fills from the deposits' events, for GET /deposits.

import type { DepositStatus, OpenDeposit, Sweep } from '@chainpay/domain'

/** a deposit as the read model keeps it: the decider's state after the stream's `revision` */
export interface DepositRecord {
  depositId: string
  revision: number
  state: OpenDeposit
}

/** where a page starts: strictly after this deposit, in list order */
export interface DepositListPosition {
  detectedAt: string
  depositId: string
}

/** a merchant's deposits, newest first: (detectedAt, depositId) descending */
export interface DepositListQuery {
  merchantId: string
  limit: number
  after?: DepositListPosition
  merchantUserId?: string
  status?: DepositStatus
}

export interface DepositReadModel {
  /** stores the deposit unless the stored one is at `revision` or later (idempotent on replay) */
  save(record: DepositRecord): Promise<void>
  get(depositId: string): Promise<DepositRecord | null>
  list(query: DepositListQuery): Promise<DepositRecord[]>
  /**
   * every merchant's confirmed deposits, in deposit id order, strictly after `afterDepositId`: the
   * operator's balances and what a sweep takes from (docs/api.md, "Balances and sweeps")
   */
  listConfirmed(query: ConfirmedDepositQuery): Promise<DepositRecord[]>
}

export interface ConfirmedDepositQuery {
  limit: number
  afterDepositId?: string
  merchantId?: string
  network?: string
}

/**
 * A sweep the operator records on a deposit (docs/api.md, "Balances and sweeps"): amounts in whole
 * units as decimal strings, exactly as the admin API took them; the domain validates them.
 */
export interface RecordDepositSweepInput {
  depositId: string
  txHash: string
  currency: string
  amount: string
  fee: string
  feeCurrency: string
  treasury: string
}

export interface RecordDepositSweepOutcome {
  /** 'replayed' when the same sweep (transaction and currency, same figures) was recorded before */
  outcome: 'recorded' | 'replayed'
  /** the sweep as recorded, the earlier record on a replay */
  sweep: Sweep
  deposit: OpenDeposit
}

/**
 * how the admin API asks payment-command, the one writer of the event store, to record a sweep of a
 * deposit: a direct call in standalone, the command API in the distributed shape; throws NOT_FOUND,
 * VALIDATION_ERROR, SWEEP_EXCEEDS_UNSWEPT or SWEEP_TX_REUSED
 */
export interface DepositSweepCommands {
  recordDepositSweep(input: RecordDepositSweepInput): Promise<RecordDepositSweepOutcome>
}
