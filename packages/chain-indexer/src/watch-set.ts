// The payments one network's indexer watches, in memory for a map lookup per transfer (so the work
// per block does not grow with the number of open payments), backed by the ChainIndexerStore so that a
// restart resumes with the same set. An entry is found by its payment's address (on TRON the
// receiving address, on Solana the owner, whichever of its token accounts a transfer reaches:
// decisions 16 and 19, ChainTransfer.owner) and by the receiving account the payment names (an SPL
// payment's own token account), whoever the chain says owns it.

import type { ChainIndexerStore, ChainTransfer, WatchedAddress } from '@chainpay/ports'

export interface WatchSet {
  readonly network: string
  readonly size: number
  /** adds the store's addresses to memory; call once before matching */
  load(): Promise<void>
  /**
   * watches an address: the store first, then memory; true when memory did not hold it yet for that
   * payment. A watch of the same payment again keeps the time its watching was reported, and when
   * it closed.
   */
  watch(address: WatchedAddress): Promise<boolean>
  /** the entry of the payment whose address (Solana: the owner) or own token account this is */
  get(address: string): WatchedAddress | undefined
  /**
   * the entry a transfer reaches: the receiving account a payment names, or on Solana whichever
   * account the payment's address owns (ChainTransfer.owner)
   */
  entryOf(transfer: ChainTransfer): WatchedAddress | undefined
  /** the entry of a payment by its id */
  byPayment(paymentId: string): WatchedAddress | undefined
  /** every entry */
  entries(): IterableIterator<WatchedAddress>
  /** the watched entry a transfer pays: to a watched address, succeeded, in the payment's asset */
  match(transfer: ChainTransfer): WatchedAddress | undefined
  /** the entries whose watching has not been reported yet */
  unreported(): WatchedAddress[]
  /** records that watching was reported for the entry, if it is still watched for that payment */
  markWatchingReported(entry: WatchedAddress, reportedAt: string): Promise<void>
  /**
   * records that the payment became final (decisions 19): its address is checked in batches from
   * then on; the entry as it is now, undefined when the payment is not watched or closed already
   */
  close(paymentId: string, closedAt: string): Promise<WatchedAddress | undefined>
  /**
   * drops the addresses whose watchUntil is before `now` (chain time), from memory and the store, and
   * returns them. Addresses whose watching is not reported yet stay: their backfill has yet to run.
   */
  prune(now: Date): Promise<WatchedAddress[]>
}

/** addresses unwatched per store call of a prune */
const PRUNE_BATCH = 500

/** the address of the payment an entry watches: the owner of a Solana token account, else the address */
export const paymentAddressOf = (entry: WatchedAddress): string => entry.owner ?? entry.address

export function createWatchSet(options: { network: string; store: ChainIndexerStore }): WatchSet {
  const entryOf = (transfer: ChainTransfer): WatchedAddress | undefined =>
    byAccount(transfer.to) ?? (transfer.owner === undefined ? undefined : watched.get(transfer.owner))
  const { network, store } = options
  /** by the payment's address */
  const watched = new Map<string, WatchedAddress>()
  /** the payment's address, by payment id */
  const addressOf = new Map<string, string>()
  /** the payment's address, by the token account an SPL payment names */
  const ownerOfAccount = new Map<string, string>()

  const remember = (entry: WatchedAddress) => {
    watched.set(paymentAddressOf(entry), entry)
    addressOf.set(entry.paymentId, paymentAddressOf(entry))
    if (entry.owner !== undefined) ownerOfAccount.set(entry.address, entry.owner)
  }
  /**
   * one write at a time, each built from the entry as the previous one left it: a close and a report
   * of watching for the same payment must not each write the entry without the other's field
   */
  let writing: Promise<unknown> = Promise.resolve()
  const serialized = <T>(write: () => Promise<T>): Promise<T> => {
    const result = writing.then(write)
    writing = result.catch(() => undefined)
    return result
  }

  /** the entry that names `account` as its receiving account (an SPL payment's: its token account) */
  const byAccount = (account: string): WatchedAddress | undefined => {
    const entry = watched.get(ownerOfAccount.get(account) ?? account)
    return entry?.address === account ? entry : undefined
  }

  async function watchNow(address: WatchedAddress): Promise<boolean> {
    const known = watched.get(paymentAddressOf(address))
    const again = known?.paymentId === address.paymentId
    const entry: WatchedAddress = {
      ...address,
      watchingReportedAt:
        again && address.watchingReportedAt === null ? known.watchingReportedAt : address.watchingReportedAt,
      closedAt:
        again && (address.closedAt ?? null) === null ? (known.closedAt ?? null) : (address.closedAt ?? null),
    }
    await store.watch(entry)
    remember(entry)
    return !again
  }

  return {
    network,

    get size() {
      return watched.size
    },

    async load() {
      // Merged rather than replaced: an address watched while the list was read must not be lost.
      for (const address of await store.listWatched(network)) {
        if (!watched.has(paymentAddressOf(address))) remember(address)
      }
    },

    async watch(address) {
      if (address.network !== network) {
        throw new Error(`watch set of ${network}: cannot watch an address of ${address.network}`)
      }
      return serialized(() => watchNow(address))
    },

    get(address) {
      return watched.get(address) ?? byAccount(address)
    },

    byPayment(paymentId) {
      const address = addressOf.get(paymentId)
      const entry = address === undefined ? undefined : watched.get(address)
      return entry?.paymentId === paymentId ? entry : undefined
    },

    entries() {
      return watched.values()
    },

    entryOf,

    match(transfer) {
      // TRX a contract sent is foreign funds, never the payment's own transfer (docs/api.md)
      if (!transfer.success || transfer.internal === true) return undefined
      const entry = entryOf(transfer)
      if (entry === undefined) return undefined
      const contract = transfer.asset.kind === 'native' ? null : transfer.asset.contract
      return contract === entry.assetContract ? entry : undefined
    },

    unreported() {
      return [...watched.values()].filter((entry) => entry.watchingReportedAt === null)
    },

    markWatchingReported(entry, reportedAt) {
      return serialized(async () => {
        const current = watched.get(paymentAddressOf(entry))
        if (current?.paymentId !== entry.paymentId || current.watchingReportedAt !== null) return
        const reported = { ...current, watchingReportedAt: reportedAt }
        await store.watch(reported)
        remember(reported)
      })
    },

    close(paymentId, closedAt) {
      return serialized(async () => {
        const current = this.byPayment(paymentId)
        if (current === undefined || (current.closedAt ?? null) !== null) return undefined
        const closed = { ...current, closedAt }
        await store.watch(closed)
        remember(closed)
        return closed
      })
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
          const key = paymentAddressOf(entry)
          const current = watched.get(key)
          if (current?.paymentId === entry.paymentId && current.watchUntil === entry.watchUntil) {
            watched.delete(key)
            addressOf.delete(entry.paymentId)
            if (entry.owner !== undefined) ownerOfAccount.delete(entry.address)
          }
          pruned.push(entry)
        }
        if (expired.length < PRUNE_BATCH) return pruned
      }
    },
  }
}
