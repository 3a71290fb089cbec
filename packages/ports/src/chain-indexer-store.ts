// What the chain indexer keeps so that it resumes where it stopped: its cursor per network, the
// addresses it watches, and the transfers whose confirmations it is still counting (or that it
// still looks for, after they left the chain).

export interface ChainCursor {
  height: number
  hash: string
}

export interface WatchedAddress {
  network: string
  address: string
  paymentId: string
  /** the payment's asset: TRC20 contract or SPL mint; null for the native coin */
  assetContract: string | null
  /** after this instant of chain time (block time) the address is no longer watched: late funds window */
  watchUntil: string
  /** the payment's creation: blocks from then on may pay it */
  paymentCreatedAt: string
  /** the confirmations the payment requires, fixed at its creation */
  requiredConfirmations: number
  /**
   * when the indexer reported 'watching' for the payment: it had checked every block since the
   * payment's creation for the address. Null until then; reported again after a restart while null.
   */
  watchingReportedAt: string | null
  /**
   * SPL on Solana: the owner of the token account `address` (the payment's address), which the
   * address watcher follows with all its token accounts (docs/chains.md, "Solana by address");
   * absent otherwise
   */
  owner?: string
  /**
   * when the payment became final (confirmed, overpaid, expired, canceled, failed, underpaid made
   * final): from then on its address is no longer followed one by one, only checked in batches for
   * late funds until watchUntil (decisions 19). Null (or absent, before this field) while open.
   */
  closedAt?: string | null
}

export interface TrackedTransfer {
  network: string
  paymentId: string
  txHash: string
  index: number
  address: string
  amountUnits: string
  blockHeight: number
  blockHash: string
  blockTime: string
  /** confirmations last reported */
  confirmations: number
  /** the payment's requirement: the transfer is tracked until its confirmations reach it */
  requiredConfirmations: number
  /**
   * Null while the transfer counts. Once it was reported withdrawn: the head height up to which the
   * indexer still looks for it to come back (included again), and reports it seen if it does.
   */
  withdrawnUntilHeight: number | null
  /**
   * when the chain can no longer include the transaction (TRON raw_data.expiration), null where the
   * chain gives none: how long a transfer in doubt may still come back (docs/chains.md, "Forks")
   */
  expiresAt: string | null
  /** funds that are not the payment's asset, in that asset (docs/api.md, "Foreign funds"); else null */
  foreign: ForeignAsset | null
  /** Solana: the owner of the receiving account (ChainTransfer.owner); absent elsewhere */
  owner?: string
}

export interface ForeignAsset {
  currency: string
  decimals: number
}

export interface ChainIndexerStore {
  loadCursor(network: string): Promise<ChainCursor | null>
  saveCursor(network: string, cursor: ChainCursor): Promise<void>
  /** idempotent on (network, address): the latest watch replaces the stored one, every field */
  watch(address: WatchedAddress): Promise<void>
  unwatch(network: string, address: string): Promise<void>
  /**
   * Deletes and returns at most `limit` addresses of `network` whose watchUntil is before `before`
   * and whose watching was reported (an unreported one still has its backfill to run), earliest
   * watchUntil first, through an index on watchUntil: the cost is what expired, not what is watched.
   */
  unwatchExpired(network: string, before: string, limit: number): Promise<WatchedAddress[]>
  listWatched(network: string): Promise<WatchedAddress[]>
  /** idempotent on (network, txHash, index): the latest report replaces the stored one */
  track(transfer: TrackedTransfer): Promise<void>
  untrack(network: string, txHash: string, index: number): Promise<void>
  listTracked(network: string): Promise<TrackedTransfer[]>
  /**
   * an account the Solana address watcher follows (docs/chains.md, "Solana by address"): how far it
   * was listed and what it held when last checked, so that a restart resumes there. Idempotent on
   * (network, account): the latest save wins.
   */
  saveFollowedAccount(network: string, account: FollowedAccount): Promise<void>
  forgetFollowedAccount(network: string, account: string): Promise<void>
  listFollowedAccounts(network: string): Promise<FollowedAccount[]>
  /**
   * a customer's deposit address, watched for as long as it exists (decisions.md section 22).
   * Idempotent on (network, address): watching it again changes nothing.
   */
  watchDepositAddress(address: WatchedDepositAddress): Promise<void>
  listDepositAddresses(network: string): Promise<WatchedDepositAddress[]>
}

/** a customer's deposit address on one network, with whose it is */
export interface WatchedDepositAddress {
  network: string
  address: string
  merchantId: string
  merchantUserId: string
}

/** an account of a payment's address that the Solana address watcher follows */
export interface FollowedAccount {
  account: string
  /** the payment's address that owns it (the address itself for its own account); null if not known */
  owner: string | null
  /** the newest signature listed on it; null: never listed */
  lastSignature: string | null
  /** what it held when last checked (lamports, token amount), as the watcher writes it; null: never checked */
  state: string | null
}
