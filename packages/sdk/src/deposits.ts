// Customers' deposit addresses (docs/api.md, "Deposit addresses"): one address per customer and
// chain family, asked for as often as you like; and the deposits that arrive there ("Deposits").

import type { Transport } from './http.js'
import type { Page } from './types.js'

export interface DepositAddress {
  merchantUserId: string
  chain: 'TRON' | 'SOLANA'
  /** the customer's address on every network of the chain (TRON and TRON_NILE alike) */
  address: string
  createdAt: string
}

export interface CreateDepositAddressParams {
  /** your customer, 1 to 128 characters */
  merchantUserId: string
  /** any network of the chain family, e.g. TRON or SOLANA */
  network: string
}

export interface ListDepositAddressesParams {
  /** 1 to 100, default 20 */
  limit?: number
  cursor?: string
  merchantUserId?: string
}

/** a deposit address, and whether it was created by this call (201) or the customer had it (200) */
export type EnsuredDepositAddress = DepositAddress & { created: boolean }

export class DepositAddressesApi {
  constructor(private readonly send: Transport) {}

  /** POST /deposit-addresses: the customer's address, created on the first call; safe to retry */
  async create(params: CreateDepositAddressParams): Promise<EnsuredDepositAddress> {
    const answer = await this.send<DepositAddress>({
      method: 'POST',
      path: '/deposit-addresses',
      body: params,
      retry: 'always',
    })
    return { ...answer.data, created: answer.status === 201 }
  }

  /** one page, newest first */
  async list(params: ListDepositAddressesParams = {}): Promise<Page<DepositAddress>> {
    const query = {
      limit: params.limit === undefined ? undefined : String(params.limit),
      cursor: params.cursor,
      merchantUserId: params.merchantUserId,
    }
    return (
      await this.send<Page<DepositAddress>>({
        method: 'GET',
        path: '/deposit-addresses',
        query,
        retry: 'always',
      })
    ).data
  }
}

/** an arrival at a customer's deposit address that no payment counted (docs/api.md, "Deposits") */
export interface Deposit {
  depositId: string
  merchantUserId: string
  network: string
  currency: string
  address: string
  txHash: string
  transferIndex: number
  /** decimal text of the currency; fee and net under your fee policy when it was detected */
  amount: string
  fee: string
  net: string
  status: DepositStatus
  confirmations: number
  requiredConfirmations: number
  blockTime: string
  detectedAt: string
  confirmedAt: string | null
  dropReason: 'EXPIRED' | 'REVERTED' | null
}

export type DepositStatus = 'detected' | 'confirmed' | 'in_doubt' | 'dropped'

export interface ListDepositsParams {
  /** 1 to 100, default 20 */
  limit?: number
  cursor?: string
  merchantUserId?: string
  status?: DepositStatus
}

export class DepositsApi {
  constructor(private readonly send: Transport) {}

  /** GET /deposits: one page, newest first */
  async list(params: ListDepositsParams = {}): Promise<Page<Deposit>> {
    const query = {
      limit: params.limit === undefined ? undefined : String(params.limit),
      cursor: params.cursor,
      merchantUserId: params.merchantUserId,
      status: params.status,
    }
    return (await this.send<Page<Deposit>>({ method: 'GET', path: '/deposits', query, retry: 'always' })).data
  }
}
