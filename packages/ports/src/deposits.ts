// Deposits at customers' deposit addresses (docs/api.md, "Deposits"; decisions.md section 22): the
// read model the projection fills from the deposits' events, for GET /deposits.

import type { DepositStatus, OpenDeposit } from '@chainpay/domain'

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
}
