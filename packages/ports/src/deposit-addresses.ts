// Deposit addresses per customer (docs/api.md, "Deposit addresses"; decisions.md section 22): how the
// gateway asks payment-command, the one writer of the event store, for a customer's address (a
// direct call in standalone, the command API in the distributed shape, failing as PaymentCommands
// does), and the read model the projection fills for the lists.

import type { Chain } from '@chainpay/domain'

/** a customer's address of one chain family, as the merchant API shows it */
export interface DepositAddressView {
  merchantId: string
  merchantUserId: string
  chain: Chain
  address: string
  derivationPath: string
  walletId: string
  createdAt: string
}

export interface EnsureDepositAddressOutcome {
  depositAddress: DepositAddressView
  /** 'created' by this call, or 'existing': created before (by this merchant's earlier call or a concurrent one) */
  outcome: 'created' | 'existing'
}

export interface DepositAddressCommands {
  /**
   * the address of (merchant, merchantUserId, the network's chain family), created on first call; the
   * merchant's body exactly as sent (`{"merchantUserId","network"}`), validated by the domain:
   * VALIDATION_ERROR, UNSUPPORTED_ASSET (a network not served)
   */
  ensureDepositAddress(input: { merchantId: string; request: unknown }): Promise<EnsureDepositAddressOutcome>
}

/** where a page of a merchant's deposit addresses starts: strictly after this one, in list order */
export interface DepositAddressListPosition {
  createdAt: string
  address: string
}

/** a merchant's deposit addresses, newest first: (createdAt, address) descending */
export interface DepositAddressListQuery {
  merchantId: string
  limit: number
  after?: DepositAddressListPosition
  merchantUserId?: string
}

export interface DepositAddressReadModel {
  /** stores the address; saving one already stored changes nothing (an address never changes) */
  save(view: DepositAddressView): Promise<void>
  /** the deposit address at `address` (of any merchant); null when none is */
  get(address: string): Promise<DepositAddressView | null>
  list(query: DepositAddressListQuery): Promise<DepositAddressView[]>
}
