// What the chain indexer keeps so that it resumes where it stopped: its cursor per network, the
// addresses it watches, and the transfers whose confirmations it is still counting.

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
  /** after this instant the address is no longer watched (late funds window) */
  watchUntil: string
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
}

export interface ChainIndexerStore {
  loadCursor(network: string): Promise<ChainCursor | null>
  saveCursor(network: string, cursor: ChainCursor): Promise<void>
  /** idempotent on (network, address) */
  watch(address: WatchedAddress): Promise<void>
  unwatch(network: string, address: string): Promise<void>
  listWatched(network: string): Promise<WatchedAddress[]>
  /** idempotent on (network, txHash, index) */
  track(transfer: TrackedTransfer): Promise<void>
  untrack(network: string, txHash: string, index: number): Promise<void>
  listTracked(network: string): Promise<TrackedTransfer[]>
}
