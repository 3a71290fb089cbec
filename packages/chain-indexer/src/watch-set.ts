// The addresses one network's indexer watches, in memory for a map lookup per transfer (so the work
// per block does not grow with the number of open payments), backed by the ChainIndexerStore so that a
// restart resumes with the same set.

import type { ChainIndexerStore, ChainTransfer, WatchedAddress } from '@chainpay/ports'

export interface WatchSet {
  readonly network: string
  readonly size: number
  /** adds the store's addresses to memory; call once before matching */
  load(): Promise<void>
  /**
   * watches an address: the store first, then memory; true when memory did not hold it yet for that
   * payment. A watch of the same payment again keeps the time its watching was reported.
   */
  watch(address: WatchedAddress): Promise<boolean>
  get(address: string): WatchedAddress | undefined
  /** the watched entry a transfer pays: to a watched address, succeeded, in the payment's asset */
  match(transfer: ChainTransfer): WatchedAddress | undefined
  /** the entries whose watching has not been reported yet */
  unreported(): WatchedAddress[]
  /** records that watching was reported for the entry, if it is still watched for that payment */
  markWatchingReported(entry: WatchedAddress, reportedAt: string): Promise<void>
  /**
   * drops the addresses whose watchUntil is before `now` (chain time), from memory and the store, and
   * returns them. Addresses whose watching is not reported yet stay: their backfill has yet to run.
   */
  prune(now: Date): Promise<WatchedAddress[]>
}

/** addresses unwatched per store call of a prune */
const PRUNE_BATCH = 500

export function createWatchSet(options: { network: string; store: ChainIndexerStore }): WatchSet {
  const { network, store } = options
  const watched = new Map<string, WatchedAddress>()

  return {
    network,

    get size() {
      return watched.size
    },

    async load() {
      // Merged rather than replaced: an address watched while the list was read must not be lost.
      for (const address of await store.listWatched(network)) {
        if (!watched.has(address.address)) watched.set(address.address, address)
      }
    },

    async watch(address) {
      if (address.network !== network) {
        throw new Error(`watch set of ${network}: cannot watch an address of ${address.network}`)
      }
      const known = watched.get(address.address)
      const entry =
        known?.paymentId === address.paymentId && address.watchingReportedAt === null
          ? { ...address, watchingReportedAt: known.watchingReportedAt }
          : address
      await store.watch(entry)
      watched.set(entry.address, entry)
      return known?.paymentId !== address.paymentId
    },

    get(address) {
      return watched.get(address)
    },

    match(transfer) {
      // TRX a contract sent is foreign funds, never the payment's own transfer (docs/api.md)
      if (!transfer.success || transfer.internal === true) return undefined
      const entry = watched.get(transfer.to)
      if (entry === undefined) return undefined
      const contract = transfer.asset.kind === 'native' ? null : transfer.asset.contract
      return contract === entry.assetContract ? entry : undefined
    },

    unreported() {
      return [...watched.values()].filter((entry) => entry.watchingReportedAt === null)
    },

    async markWatchingReported(entry, reportedAt) {
      const current = watched.get(entry.address)
      if (current?.paymentId !== entry.paymentId || current.watchingReportedAt !== null) return
      const reported = { ...current, watchingReportedAt: reportedAt }
      await store.watch(reported)
      watched.set(reported.address, reported)
    },

    async prune(now) {
      // The store finds what expired by a range of its watchUntil index, batch after batch, so a
      // prune costs what expired rather than a walk of every watched address.
      const before = now.toISOString()
      const pruned: WatchedAddress[] = []
      for (;;) {
        const expired = await store.unwatchExpired(network, before, PRUNE_BATCH)
        for (const entry of expired) {
          // memory follows the store (watch writes the store first): an entry watched again for a
          // new window meanwhile is kept
          const current = watched.get(entry.address)
          if (current?.paymentId === entry.paymentId && current.watchUntil === entry.watchUntil) {
            watched.delete(entry.address)
          }
          pruned.push(entry)
        }
        if (expired.length < PRUNE_BATCH) return pruned
      }
    },
  }
}
