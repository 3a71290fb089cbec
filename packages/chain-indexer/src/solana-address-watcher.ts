// The accounts the Solana address watcher follows (docs/chains.md, "Solana by address: the
// watcher"): for each payment, its address (the owner) and every token account the owner holds of
// a registry mint, the associated ones from the start (decisions 16 and 19). Its cost is bounded by
// open work (decisions 19):
// - while the payment is open, its accounts are followed one by one over the node's websocket:
//   logsSubscribe on the owner (SOL, and the token account a payer creates for it) and on an SPL
//   payment's own token account, and programSubscribe of the token program filtered on the owner
//   (any of its token accounts, also one opened later); a notification marks its account;
// - at any time, and for a final payment until its late funds window ends, its accounts are
//   checked in batches (getMultipleAccounts, 100 accounts a call): an account whose lamports or
//   token amount changed since it was last checked is marked; the others cost nothing more;
// - a marked account is listed from the last signature seen (getSignaturesForAddress), each new
//   transaction read once (getTransaction), and what it pays handed to the transfer follower.
// A transaction the node cannot return yet is asked again later, with backoff, while the rest goes
// on; the payments it may concern are held before its block time in the chain time the indexer
// reports (holds), and no other payment waits for it.
// Customers' deposit addresses (decisions 22; docs/chains.md, "Customers' deposit addresses") are
// followed for as long as they exist, never one by one (10,000 of them would not fit on a provider's
// websocket): the owner and its associated token account of each registry mint are checked in
// batches, as a final payment's are, on the indexer's deposit interval; a change is listed and read
// the same way, and what it pays goes to the follower as a deposit (deposit-addresses.ts).

import { BLOCKHASH_EXPIRY_MS } from '@chainpay/chain-solana'
import type { ChainTimeHold } from '@chainpay/contracts'
import type { AssetRegistry } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import type {
  AccountState,
  AddressActivity,
  ChainIndexerStore,
  ChainTransfer,
  FollowedAccount,
  SolanaAddressReader,
  TrackedTransfer,
  WatchedAddress,
} from '@chainpay/ports'
import { associatedTokenAccount } from '@chainpay/wallet'
import { CLOSE_WAIT_MS, type SolanaTransferFollower, settledWithin } from './solana-transfer-follower.js'
import { type TransferPayee, trackedTransfer } from './transfer-lifecycle.js'
import { paymentAddressOf } from './watch-set.js'

export interface SolanaAddressWatcher {
  /**
   * reads the accounts the store keeps: how far each was listed and what it held; forgets those of
   * owners no payment in `watched` has and that are no deposit address in `depositAddresses`
   */
  load(watched: readonly WatchedAddress[], depositAddresses?: ReadonlySet<string>): Promise<void>
  /**
   * follows a payment's accounts: one by one (subscriptions) while it is open, in batches once it
   * is closed; a payment followed already is left as it is
   */
  watch(entry: WatchedAddress): Promise<void>
  /** the payment became final: its subscriptions end, its accounts are checked in batches */
  close(paymentId: string): Promise<void>
  /** the payment's late funds window ended: its accounts are forgotten */
  unwatch(paymentId: string): Promise<void>
  /**
   * checks the accounts of the payments named (all, or the open ones) in batches and marks those
   * that changed since they were last checked; returns the slot the node answered at. With
   * minContextSlot, a node behind it fails rather than answer from the past.
   */
  check(scope: 'all' | 'open' | readonly string[], minContextSlot?: number): Promise<number>
  /**
   * asks the node for the token accounts of each open payment's owner (one getTokenAccountsByOwner
   * each): one opened while notifications were lost is followed from now on and listed
   */
  discoverOpen(): Promise<void>
  /** true when a tick has something to do now */
  readonly due: boolean
  /** marked accounts not listed yet: a chain time must wait for them */
  readonly listingPending: boolean
  /**
   * the payments with a transaction listed on their accounts and not read yet, each with the block
   * time of its earliest: the chain time reported for them stays before it, or one could expire
   * before its transfer is read; every other payment goes on (docs/chains.md, "Solana by address")
   */
  holds(): ChainTimeHold[]
  /** lists what is new on the marked accounts, reads it, and hands what it pays to the follower */
  tick(): Promise<void>
  /** payments followed one by one (open), and in batches (closed) */
  readonly counts: { open: number; closed: number; accounts: number }
  /** whether any payment is followed one by one: what a closed websocket leaves unheard */
  readonly followsOpen: boolean
  /**
   * follows a customer's deposit address for as long as it exists: its owner and associated token
   * accounts, queued for their first check. `from`, for an address new to the indexer whose
   * accounts the store knows nothing of: what their history holds before it is not read (a time:
   * the address's creation, the backfill of what came before its watch; 'now': nothing, an address
   * read long after its creation); what is after it, and no payment's watch claims, is a deposit
   * (docs/chains.md, "Customers' deposit addresses"). Without it everything unread is read.
   */
  watchDeposit(address: string, options?: { from?: string | 'now' }): void
  /** queues every deposit address's accounts for a check: a round */
  startDepositRound(): void
  /**
   * checks the next queued deposit accounts, at most DEPOSIT_ACCOUNTS_PER_CHECK, in batches
   * (getMultipleAccounts, 100 accounts a call), and marks those that changed since they were last
   * checked: a round of 10,000 addresses is spread over iterations, so that open payments' work
   * goes on between them
   */
  checkDeposits(): Promise<void>
  /** deposit accounts queued for a check */
  readonly depositChecksPending: number
  /** the deposit addresses followed, and their accounts */
  readonly depositCounts: { addresses: number; accounts: number }
  /** ends every subscription (the process stops); what was saved stays for the next start */
  stop(): Promise<void>
}

export interface SolanaAddressWatcherOptions {
  network: string
  reader: SolanaAddressReader
  registry: AssetRegistry
  store: ChainIndexerStore
  follower: SolanaTransferFollower
  /**
   * the payment a transfer pays, or brings foreign funds to (payees.ts), or the customer whose
   * deposit it is (deposit-addresses.ts)
   */
  payeeOf: (transfer: ChainTransfer) => TransferPayee | undefined
  /**
   * the same for a transfer a new deposit address's backfill found: what a payment's watch claims
   * is not read again for it; default payeeOf
   */
  backfillPayeeOf?: (transfer: ChainTransfer) => TransferPayee | undefined
  clock: Clock
  logger: Logger
  /** called when a notification marked something: the caller's loop runs a tick soon */
  onDue?: () => void
}

interface FollowedPayment {
  entry: WatchedAddress
  owner: string
  accounts: Set<string>
  /** the subscriptions' ends while the payment is open; null once it is closed */
  unsubscribes: Array<() => Promise<void>> | null
}

interface Unread {
  slot: number
  blockTime: string | null
  /** the accounts whose listing named it: their progress is saved once it is read */
  accounts: Set<string>
  attempts: number
  nextAttemptMs: number
  /** listed only by a new deposit address's backfill: read with backfillPayeeOf */
  backfill: boolean
}

/**
 * what a listing reads of what it lists: all; nothing (only the newest signature is kept); or what
 * came at or after a time (ISO 8601)
 */
type ReadFrom = 'all' | 'none' | string

interface Marking {
  minContextSlot: number | undefined
  seq: number
  readFrom: ReadFrom
  /**
   * set when a check saw the account's balance change: its state before (null: never checked). A
   * listing that names nothing then is asked again (a node that answers the balance before it lists
   * the transaction), and after the last try the state goes back, so that the next check sees the
   * change again: a change nobody could list is never taken for seen.
   */
  changedFrom: string | null | undefined
  /** marked by a notification or a discovery too: the balance may have moved since the check */
  notified: boolean
  /** listings of this mark that named nothing */
  emptyListings: number
  /** not listed again before this time (ms) */
  notBeforeMs: number
}

/** a changed balance whose listing named nothing is listed again after 1, 2, 4 and 8 s, then left to the next check */
const EMPTY_LISTING_ATTEMPTS = 5
/**
 * the state of an account listed since its balance was last read (a notification's listing): the
 * next check's change is explained already, whatever its listing names
 */
const LISTED_SINCE_CHECK = 'listed'

/** of two marks' reads, the one that reads more */
function widerReadFrom(a: ReadFrom, b: ReadFrom): ReadFrom {
  if (a === 'all' || b === 'all') return 'all'
  if (a === 'none') return b
  if (b === 'none') return a
  return a < b ? a : b
}

/** a transaction the node does not return yet is asked again after 1, 2, 4... s, at most this */
const MAX_READ_BACKOFF_MS = 30_000
/**
 * after this many tries the node is asked whether it knows the transaction at all: one it does not
 * know though it is past its slot was on an abandoned fork, and is let go
 */
const READS_BEFORE_STATUS = 6

/**
 * how many deposit accounts one iteration checks at most (10 calls): a round of 10,000 addresses
 * (30,000 accounts) takes 30 iterations, and open payments' notifications are acted on between them
 */
export const DEPOSIT_ACCOUNTS_PER_CHECK = 1_000

/** what a check compares: lamports and a token account's amount; an account that does not exist is 'none' */
export function accountFingerprint(state: AccountState | null): string {
  if (state === null) return 'none'
  return state.token === null ? `${state.lamports}` : `${state.lamports}:${state.token.amount}`
}

export function createSolanaAddressWatcher(options: SolanaAddressWatcherOptions): SolanaAddressWatcher {
  const { network, reader, store, follower, payeeOf, clock, logger } = options
  const backfillPayeeOf = options.backfillPayeeOf ?? payeeOf
  const mints = options.registry.assets.flatMap((asset) =>
    asset.network === network && asset.contract !== null ? [asset.contract] : [],
  )
  const payments = new Map<string, FollowedPayment>()
  /** every followed account as the store keeps it */
  const accounts = new Map<string, FollowedAccount>()
  /** the followed accounts of each owner */
  const ownedBy = new Map<string, Set<string>>()
  /**
   * accounts to list: the slot the node must have reached (a check's, a notification's), so that a
   * node behind the one that saw the change cannot list less; and a number that tells a mark made
   * while the account was being listed
   */
  const marked = new Map<string, Marking>()
  /** accounts whose change (`from>to`) no listing explained, put back once for the next check */
  const unexplained = new Map<string, string>()
  let marks = 0
  /** payments followed one by one */
  let openCount = 0
  const unread = new Map<string, Unread>()
  /** progress of a listing, saved once what it named was read */
  const unsaved = new Map<string, FollowedAccount>()

  const nowMs = () => clock.now().getTime()
  const wake = () => options.onDue?.()

  /**
   * the deposit addresses followed, by owner: their accounts (the owner's, its associated token
   * accounts), derived when first checked (null until then: 10,000 derivations take seconds)
   */
  const deposits = new Map<string, string[] | null>()
  /** deposit addresses queued for a check, in order */
  const depositOwnerQueue = new Set<string>()
  /** deposit accounts queued for a check, in order */
  const depositQueue = new Set<string>()
  /** new deposit addresses whose accounts are not derived yet, and what of their history is read */
  const baselineOwners = new Map<string, string | 'now'>()
  /** accounts of new deposit addresses the store knew nothing of: what of their history is read */
  const baselines = new Map<string, string | 'now'>()

  /** a deposit address's accounts, derived (and kept in memory with their owner) the first time */
  function depositAccounts(owner: string): string[] {
    const known = deposits.get(owner)
    if (known != null) return known
    const derived = [owner, ...depositAccountsOf(owner)]
    const from = baselineOwners.get(owner)
    baselineOwners.delete(owner)
    for (const account of derived) {
      if (accounts.has(account)) continue
      if (from !== undefined) baselines.set(account, from)
      // whose it is, kept in memory; stored with its progress once it changed
      keep(emptyAccount(account, owner))
    }
    deposits.set(owner, derived)
    return derived
  }

  /**
   * `readFrom`: what the listing reads, all it lists unless a new deposit address's first check
   * found it holding something already (readFromOf); of two marks, what reads more
   */
  /** what a check's change is from, unless a listing since the last check explains it already */
  const unexplainedFrom = (state: string | null): string | null | undefined =>
    state === LISTED_SINCE_CHECK ? undefined : state

  function mark(
    account: string,
    minContextSlot: number | undefined,
    readFrom: ReadFrom = 'all',
    changedFrom?: string | null,
  ): void {
    const known = marked.get(account)
    const slots = [known?.minContextSlot, minContextSlot].filter((slot) => slot !== undefined)
    marked.set(account, {
      minContextSlot: slots.length === 0 ? undefined : Math.max(...slots),
      seq: ++marks,
      readFrom: known === undefined ? readFrom : widerReadFrom(known.readFrom, readFrom),
      // the state before the earliest change not listed yet
      changedFrom: known?.changedFrom !== undefined ? known.changedFrom : changedFrom,
      notified: (known?.notified ?? false) || changedFrom === undefined,
      emptyListings: 0,
      notBeforeMs: 0,
    })
  }

  function keep(followed: FollowedAccount): void {
    accounts.set(followed.account, followed)
    if (followed.owner === null) return
    const owned = ownedBy.get(followed.owner) ?? new Set<string>()
    owned.add(followed.account)
    ownedBy.set(followed.owner, owned)
  }

  /** an account of `owner` from now on, stored with it so that a restart knows whose it is */
  async function adopt(owner: string, account: string): Promise<void> {
    const known = accounts.get(account)
    if (known?.owner === owner && (known.lastSignature !== null || known.state !== null)) return
    const followed: FollowedAccount = {
      account,
      owner,
      lastSignature: known?.lastSignature ?? null,
      state: known?.state ?? null,
    }
    await store.saveFollowedAccount(network, followed)
    keep(followed)
  }

  /**
   * the owner and its associated token accounts of every registry mint, derived once (then stored),
   * with any other token account of the owner heard of since
   */
  async function accountsOf(owner: string, entry: WatchedAddress): Promise<Set<string>> {
    const stored = ownedBy.get(owner)
    if (stored?.has(owner)) return new Set(stored)
    const owned = new Set([owner, ...associatedAccountsOf(owner, entry)])
    // an SPL payment's own token account, as payment-command derived it
    if (entry.owner !== undefined) owned.add(entry.address)
    for (const account of stored ?? []) owned.add(account)
    // the owner last: a store that fails part way leaves the owner not adopted, so that the next try
    // derives and adopts them all again rather than taking what was saved for the whole set
    for (const account of owned) if (account !== owner) await adopt(owner, account)
    await adopt(owner, owner)
    return owned
  }

  /**
   * the owner's associated token accounts of every registry mint; none for an address off the
   * curve, which no wallet's key is (no payment's address is one): said, and the rest followed
   */
  function associatedAccountsOf(owner: string, entry: WatchedAddress): string[] {
    try {
      return mints.map((mint) => associatedTokenAccount(owner, mint))
    } catch (error) {
      logger.warn(
        { err: error, paymentId: entry.paymentId, address: owner },
        "a payment's address has no associated token accounts (not an ed25519 key): following it alone",
      )
      return []
    }
  }

  /**
   * a token account of a followed owner not known before: followed from now on, its owner kept in
   * memory at once so that whatever is saved of it names it; true if it was new
   */
  async function discover(followed: FollowedPayment, account: string): Promise<boolean> {
    if (followed.accounts.has(account)) return false
    followed.accounts.add(account)
    keep({ ...(accounts.get(account) ?? emptyAccount(account)), owner: followed.owner })
    await adopt(followed.owner, account)
    return true
  }

  function subscribe(followed: FollowedPayment): Array<() => Promise<void>> {
    const { owner, entry } = followed
    // listed at least as of the slot the node notified at: a node behind it would list less
    const onActivity = (account: string) =>
      reader.onActivity(account, (_signature, slot) => {
        mark(account, slot)
        wake()
      })
    return [
      onActivity(owner),
      // an SPL payment's own token account, where payers send: heard of whoever the chain says owns it
      ...(entry.owner === undefined ? [] : [onActivity(entry.address)]),
      // any token account of the owner, the associated ones and one opened later
      reader.onTokenAccountChange(owner, (account, _mint, slot) => {
        void discover(followed, account).catch((error: unknown) =>
          logger.warn(
            { err: error, account },
            'could not store a token account heard of; it is stored with its owner once listed',
          ),
        )
        mark(account, slot)
        wake()
      }),
    ]
  }

  async function endAll(unsubscribes: Array<() => Promise<void>>, paymentId: string): Promise<void> {
    for (const end of unsubscribes) {
      await end().catch((error: unknown) => logger.warn({ err: error, paymentId }, 'unsubscribe failed'))
    }
  }

  /** the accounts of the payments in scope */
  function accountsIn(scope: 'all' | 'open' | readonly string[]): string[] {
    const chosen =
      scope === 'all'
        ? [...payments.values()]
        : scope === 'open'
          ? [...payments.values()].filter((followed) => followed.unsubscribes !== null)
          : scope.flatMap((paymentId) => payments.get(paymentId) ?? [])
    return [...new Set(chosen.flatMap((followed) => [...followed.accounts]))]
  }

  /** lists the marked accounts into `unread` */
  async function listMarked(): Promise<void> {
    const now = nowMs()
    for (const [account, marking] of [...marked]) {
      if (marking.notBeforeMs > now) continue
      const { minContextSlot } = marking
      const known = progressOf(account)
      const activity = await reader.activitySince(
        account,
        known.lastSignature,
        minContextSlot === undefined ? {} : { minContextSlot },
      )
      const { readFrom } = marking
      for (const item of activity) {
        if (readFrom === 'all') remember(item, account, false)
        // a new deposit address's backfill: what came since its creation (a time unknown: read)
        else if (readFrom !== 'none' && (item.blockTime === null || item.blockTime >= readFrom))
          remember(item, account, true)
      }
      logger.debug({ account, listed: activity.length, minContextSlot, readFrom }, 'account listed')
      const newest = activity.at(-1)
      if (newest !== undefined) {
        // a check's balance is what this listing explains; after a notification, the balance is unknown
        const state = marking.changedFrom === undefined || marking.notified ? LISTED_SINCE_CHECK : known.state
        unsaved.set(account, { ...known, lastSignature: newest.signature, state })
      }
      // marked again meanwhile (a notification, a check): listed again next tick
      if (marked.get(account)?.seq !== marking.seq) continue
      if (newest !== undefined || marking.changedFrom === undefined || readFrom === 'none') {
        marked.delete(account)
        continue
      }
      // a balance that changed with no transaction to name it yet: listed again shortly
      const emptyListings = marking.emptyListings + 1
      if (emptyListings < EMPTY_LISTING_ATTEMPTS) {
        marked.set(account, { ...marking, emptyListings, notBeforeMs: now + 1000 * 2 ** (emptyListings - 1) })
        continue
      }
      marked.delete(account)
      // Once per change: the same change unexplained again is taken for seen. A listing can name a
      // transaction that came after the balance its check read (then stored with it), and the next
      // check's balance, which that transaction explains, would be retried every round for good.
      const seenState = progressOf(account).state
      const change = `${marking.changedFrom ?? 'none'}>${seenState ?? 'none'}`
      if (unexplained.get(account) === change) {
        unexplained.delete(account)
        continue
      }
      unexplained.set(account, change)
      logger.warn(
        { account, listings: emptyListings, minContextSlot },
        "an account's balance changed but the node lists no transaction for it; the next check looks again",
      )
      unsaved.set(account, { ...progressOf(account), state: marking.changedFrom })
    }
  }

  /** what is known of an account: its progress not saved yet, else what the store keeps */
  const progressOf = (account: string): FollowedAccount =>
    unsaved.get(account) ?? accounts.get(account) ?? emptyAccount(account)

  function remember(item: AddressActivity, account: string, backfill: boolean): void {
    if (item.failed || follower.follows(item.signature)) return
    const known = unread.get(item.signature)
    if (known !== undefined) {
      known.accounts.add(account)
      known.backfill &&= backfill
      return
    }
    unread.set(item.signature, {
      slot: item.slot,
      blockTime: item.blockTime,
      accounts: new Set([account]),
      attempts: 0,
      nextAttemptMs: 0,
      backfill,
    })
  }

  /** reads the listed transactions that are due; one the node does not return yet waits, the others go on */
  async function readUnread(): Promise<void> {
    const now = nowMs()
    for (const [signature, item] of [...unread]) {
      if (item.nextAttemptMs > now) continue
      const transaction = await reader.transaction(signature)
      if (transaction === null) {
        item.attempts += 1
        item.nextAttemptMs = now + Math.min(MAX_READ_BACKOFF_MS, 1000 * 2 ** (item.attempts - 1))
        if (item.attempts >= READS_BEFORE_STATUS && (await forgotten(signature, item)))
          unread.delete(signature)
        continue
      }
      const payeeOfItem = item.backfill ? backfillPayeeOf : payeeOf
      const transfers = transaction.transfers.flatMap((transfer): TrackedTransfer[] => {
        const payee = payeeOfItem(transfer)
        if (payee === undefined) return []
        // getTransaction does not name the block's hash; forks are followed by status, not hash
        const block = { height: transaction.slot, hash: '', time: transaction.blockTime }
        // its blockhash names a block at or before this one: no fork includes it after this
        const expiresAt = new Date(Date.parse(transaction.blockTime) + BLOCKHASH_EXPIRY_MS).toISOString()
        return [trackedTransfer(network, transfer, payee, block, expiresAt)]
      })
      // tracked before it leaves `unread`: a store that fails has it read again, not forgotten
      logger.debug({ txHash: signature, transfers: transfers.length }, 'transaction read')
      await follower.seen(transaction, transfers)
      unread.delete(signature)
    }
  }

  /** whether the node, past the transaction's slot, does not know it at all (an abandoned fork's) */
  async function forgotten(signature: string, item: Unread): Promise<boolean> {
    const { contextSlot, states } = await reader.statuses([signature])
    if (states.get(signature) !== null || contextSlot <= item.slot) return false
    logger.info(
      { txHash: signature, slot: item.slot },
      'a listed transaction is no longer known to the node (an abandoned fork); let go',
    )
    return true
  }

  /** the accounts whose progress can be saved now: all they listed was read, none is marked again */
  function saveable(): string[] {
    const waiting = new Set([...unread.values()].flatMap((item) => [...item.accounts]))
    return [...unsaved.keys()].filter((account) => !waiting.has(account) && !marked.has(account))
  }

  /** saves each account's listing and check once everything its listing named was read */
  async function saveProgress(): Promise<void> {
    for (const account of saveable()) {
      const progress = unsaved.get(account) as FollowedAccount
      // the owner it was followed with, whatever the progress was built from
      const saved = { ...progress, owner: progress.owner ?? accounts.get(account)?.owner ?? null }
      await store.saveFollowedAccount(network, saved)
      keep(saved)
      unsaved.delete(account)
    }
  }

  /** the owner's associated token account of each registry mint; none for a key off the curve */
  function depositAccountsOf(owner: string): string[] {
    try {
      return mints.map((mint) => associatedTokenAccount(owner, mint))
    } catch (error) {
      logger.warn(
        { err: error, address: owner },
        'a deposit address has no associated token accounts (not an ed25519 key): following it alone',
      )
      return []
    }
  }

  const emptyAccount = (account: string, owner: string | null = null): FollowedAccount => ({
    account,
    owner,
    lastSignature: null,
    state: null,
  })

  return {
    get counts() {
      return { open: openCount, closed: payments.size - openCount, accounts: accountsIn('all').length }
    },

    get followsOpen() {
      return openCount > 0
    },

    get due() {
      const now = nowMs()
      // what waits for a read in backoff is not due: the loop rests meanwhile
      return (
        [...marked.values()].some((marking) => marking.notBeforeMs <= now) ||
        [...unread.values()].some((item) => item.nextAttemptMs <= now) ||
        saveable().length > 0 ||
        follower.due
      )
    },

    get listingPending() {
      return marked.size > 0
    },

    holds() {
      // asked at every iteration: nothing unread (nearly always) holds nothing, whatever is followed
      if (unread.size === 0) return []
      const paymentOf = new Map(
        [...payments.values()].map((followed) => [followed.owner, followed.entry.paymentId]),
      )
      const before = new Map<string, string>()
      for (const { blockTime, accounts: listedOn } of unread.values()) {
        // a listing that gave no time holds the payment where it is
        const time = blockTime ?? new Date(0).toISOString()
        for (const account of listedOn) {
          const owner = accounts.get(account)?.owner
          const paymentId = owner === null || owner === undefined ? undefined : paymentOf.get(owner)
          if (paymentId === undefined) continue
          const held = before.get(paymentId)
          if (held === undefined || time < held) before.set(paymentId, time)
        }
      }
      return [...before].map(([paymentId, time]) => ({ paymentId, before: time }))
    },

    async load(watched, depositAddresses = new Set()) {
      const owners = new Set([...watched.map(paymentAddressOf), ...depositAddresses])
      for (const account of await store.listFollowedAccounts(network)) {
        // left behind by a payment forgotten while its accounts were being forgotten (a crash)
        if (account.owner !== null && !owners.has(account.owner)) {
          await store.forgetFollowedAccount(network, account.account)
        } else keep(account)
      }
    },

    async watch(entry) {
      if (payments.has(entry.paymentId)) return
      const owner = paymentAddressOf(entry)
      // a deposit address's accounts are stored only once changed: derived here, all of them known
      if (deposits.has(owner)) depositAccounts(owner)
      const followed: FollowedPayment = {
        entry,
        owner,
        accounts: await accountsOf(owner, entry),
        unsubscribes: null,
      }
      if ((entry.closedAt ?? null) === null) {
        followed.unsubscribes = subscribe(followed)
        openCount++
      }
      payments.set(entry.paymentId, followed)
    },

    async close(paymentId) {
      const followed = payments.get(paymentId)
      if (followed?.unsubscribes == null) return
      const ends = followed.unsubscribes
      followed.unsubscribes = null
      openCount--
      await endAll(ends, paymentId)
    },

    async unwatch(paymentId) {
      const followed = payments.get(paymentId)
      if (followed === undefined) return
      payments.delete(paymentId)
      if (followed.unsubscribes !== null) {
        openCount--
        await endAll(followed.unsubscribes, paymentId)
      }
      // a customer's deposit address stays followed, with how far each account was listed: what the
      // payment was paid is not listed again, and so never taken for a deposit
      if (deposits.has(followed.owner)) {
        const owned = depositAccounts(followed.owner)
        deposits.set(followed.owner, [...new Set([...owned, ...followed.accounts])])
        return
      }
      for (const account of followed.accounts) {
        marked.delete(account)
        unexplained.delete(account)
        unsaved.delete(account)
        accounts.delete(account)
        await store.forgetFollowedAccount(network, account)
      }
      ownedBy.delete(followed.owner)
    },

    watchDeposit(owner, { from } = {}) {
      if (deposits.has(owner)) return
      deposits.set(owner, null)
      if (from !== undefined) baselineOwners.set(owner, from)
      depositOwnerQueue.add(owner)
    },

    startDepositRound() {
      for (const owner of deposits.keys()) depositOwnerQueue.add(owner)
    },

    get depositChecksPending() {
      return depositOwnerQueue.size + depositQueue.size
    },

    get depositCounts() {
      return {
        addresses: deposits.size,
        accounts: [...deposits.values()].reduce((sum, owned) => sum + (owned?.length ?? 0), 0),
      }
    },

    async checkDeposits() {
      for (const owner of depositOwnerQueue) {
        if (depositQueue.size >= DEPOSIT_ACCOUNTS_PER_CHECK) break
        for (const account of depositAccounts(owner)) depositQueue.add(account)
        depositOwnerQueue.delete(owner)
      }
      const checked = [...depositQueue].slice(0, DEPOSIT_ACCOUNTS_PER_CHECK)
      if (checked.length === 0) return
      const { contextSlot, states } = await reader.accounts(checked)
      for (const account of checked) {
        const state = accountFingerprint(states.get(account) ?? null)
        const known = progressOf(account)
        const from = baselines.get(account)
        baselines.delete(account)
        if (state === (known.state ?? 'none')) continue
        unsaved.set(account, { ...known, state })
        // a new deposit address that holds something already: only what came since its creation
        mark(
          account,
          contextSlot,
          from === undefined ? 'all' : from === 'now' ? 'none' : from,
          unexplainedFrom(known.state),
        )
      }
      for (const account of checked) depositQueue.delete(account)
    },

    async discoverOpen() {
      for (const followed of [...payments.values()]) {
        if (followed.unsubscribes === null) continue
        for (const account of await reader.tokenAccountsOf(followed.owner)) {
          if (await discover(followed, account)) mark(account, undefined)
        }
      }
    },

    async check(scope, minContextSlot) {
      const checked = accountsIn(scope)
      const { contextSlot, states } = await reader.accounts(
        checked,
        minContextSlot === undefined ? {} : { minContextSlot },
      )
      for (const account of checked) {
        const state = accountFingerprint(states.get(account) ?? null)
        const known = progressOf(account)
        // never checked: as it was before anything happened to it
        if (state === (known.state ?? 'none')) continue
        unsaved.set(account, { ...known, state })
        mark(account, contextSlot, 'all', unexplainedFrom(known.state))
      }
      return contextSlot
    },

    async tick() {
      await listMarked()
      await readUnread()
      await saveProgress()
      await follower.tick()
    },

    async stop() {
      const ends = [...payments.values()].flatMap((followed) => followed.unsubscribes ?? [])
      for (const followed of payments.values()) followed.unsubscribes = null
      await settledWithin(ends, CLOSE_WAIT_MS)
      await follower.close()
      payments.clear()
      deposits.clear()
      depositOwnerQueue.clear()
      depositQueue.clear()
      baselineOwners.clear()
      baselines.clear()
    },
  }
}
