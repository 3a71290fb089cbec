// The Solana watcher of SOLANA_WATCH_MODE=address (docs/chains.md, "Solana by address"): instead of
// scanning blocks it follows the accounts of open payments. On watch it learns the owner's token
// accounts (every token account of the owner counts, not only the associated one: decisions 16) and
// subscribes over the node's websocket: logsSubscribe on a SOL payment's owner (an SPL payment's own
// token account), programSubscribe on
// the owner's token accounts of each registry mint (which also names a token account opened later).
// A notification marks its account; a tick lists what is new on marked accounts since the last
// signature seen (getSignaturesForAddress), reads each new transaction once (getTransaction), and
// counts it confirmed (1); a signatureSubscribe at finalized brings it to the requirement.
// Notifications are lost while the websocket is down (the node replays nothing): reconcile() marks
// every account, and recounts what is followed with getSignatureStatuses, on every (re)connect,
// at each payment's deadline and on a slow safety period (solana-address-indexer.ts). It publishes
// the observations the block scanner publishes (observations.ts), so nothing downstream changes.
// A fork sends no notification: a transfer not final when it should be has its status asked, and
// one the node no longer knows is in doubt until it comes back, fails or expires (decide()).

import {
  type AddressTransaction,
  BLOCKHASH_EXPIRY_MS,
  type SignatureState,
  type SolanaAddressReader,
} from '@chainpay/chain-solana'
import type { AssetRegistry } from '@chainpay/domain'
import { type Clock, isoNow, type Logger } from '@chainpay/platform'
import {
  type Bus,
  type BusMessage,
  type ChainIndexerStore,
  type ForeignAsset,
  Topics,
  type TrackedTransfer,
} from '@chainpay/ports'
import { type TransferReport, trackedObservation } from './observations.js'

/** an open payment as the address watcher follows it */
export interface AddressPayment {
  paymentId: string
  /** the payment's address: the owner of its token accounts for SPL */
  owner: string
  /** SPL: the payment's own token account, followed even before it is opened; null for SOL or none named */
  tokenAccount: string | null
  /** the SPL mint; null for SOL */
  assetContract: string | null
  requiredConfirmations: number
}

export interface SolanaAddressWatcher {
  /** reads what the store kept: the last signature seen per account, the transfers not final yet */
  load(): Promise<void>
  /** follows the payment's accounts from now on: its owner and the owner's token accounts */
  watch(payment: AddressPayment): Promise<void>
  /** stops following the payment's accounts and ends their subscriptions; what it saw stays followed */
  unwatch(paymentId: string): Promise<void>
  /** marks every followed account, and the transfers not final yet, for the next tick */
  reconcile(paymentIds?: readonly string[]): void
  /** true when a tick has something to do */
  readonly due: boolean
  /** lists what is new on the marked accounts, reads it, and counts what was marked */
  tick(): Promise<void>
  /** transfers followed until final */
  readonly following: number
  /** ends every subscription (the process stops); what was saved stays for the next start */
  close(): Promise<void>
}

export interface SolanaAddressWatcherOptions {
  network: string
  reader: SolanaAddressReader
  registry: AssetRegistry
  bus: Bus
  clock: Clock
  /** where the last signature per account and the transfers not final yet are kept across restarts */
  store: ChainIndexerStore
  logger: Logger
  /** called when a notification marked something: the caller's loop runs a tick soon */
  onDue?: () => void
}

interface Followed {
  payment: AddressPayment
  accounts: Set<string>
  unsubscribes: Array<() => Promise<void>>
}

/** how long close() waits for the node to confirm the unsubscriptions */
const CLOSE_WAIT_MS = 2_000
/**
 * a transfer normally finalizes some 13 s after it is confirmed, and its finality subscription says
 * so without a call; one not final after this has its status asked (a fork may have taken it back)
 */
export const FINALITY_OVERDUE_MS = 60_000
/** how often the status of a transfer in doubt is asked, until it is back, failed or expired */
export const IN_DOUBT_RECHECK_MS = 5_000

export function createSolanaAddressWatcher(options: SolanaAddressWatcherOptions): SolanaAddressWatcher {
  const { network, reader, bus, clock, store, logger } = options
  const assets = options.registry.assets.filter((asset) => asset.network === network)
  const mints = assets.flatMap((asset) => (asset.contract === null ? [] : [asset.contract]))
  const payments = new Map<string, Followed>()
  /** the last signature seen per account, as the store keeps it */
  const lastSeen = new Map<string, string>()
  /** how far accounts were listed, not saved yet: a restart lists again what was not read */
  const unsaved = new Map<string, string>()
  /** accounts a notification or a reconciliation marked: listed next tick */
  const marked = new Set<string>()
  /** signatures listed and not read yet: also those the node did not serve yet, read again next tick */
  const unread = new Set<string>()
  /** transfers seen and not final yet, by signature */
  const pending = new Map<string, TrackedTransfer[]>()
  /** pending signatures whose status a tick reads (getSignatureStatuses) */
  const recountDue = new Set<string>()
  /** pending signatures the node said final through their subscription, with whether they failed */
  const finalized = new Map<string, boolean>()
  const finalityWatches = new Map<string, () => Promise<void>>()
  /** signatures whose finality subscription notified (and so ended) */
  const notified = new Set<string>()
  /** when (by the clock) the status of a pending signature is asked, unless it is final by then */
  const checkAt = new Map<string, number>()
  /**
   * observations not published yet, in order: a tick that fails (the store or the bus away) leaves
   * them for the next one, which publishes them before anything newer
   */
  const outbox: BusMessage[] = []
  /** transfers that ended (final or dropped), untracked once their last observation is published */
  const ended: TrackedTransfer[] = []

  const wake = () => options.onDue?.()

  function foreignAsset(contract: string | null): ForeignAsset | undefined {
    const asset = assets.find((candidate) => candidate.contract === contract)
    return asset && { currency: asset.currency, decimals: asset.decimals }
  }

  /** the transfers of `transaction` that concern a followed payment */
  function matched(transaction: AddressTransaction): TrackedTransfer[] {
    const found: TrackedTransfer[] = []
    for (const transfer of transaction.transfers) {
      if (!transfer.success) continue
      for (const { payment, accounts } of payments.values()) {
        if (transfer.owner !== payment.owner && !accounts.has(transfer.to)) continue
        const contract = transfer.asset.kind === 'native' ? null : transfer.asset.contract
        const foreign = contract === payment.assetContract ? null : foreignAsset(contract)
        if (foreign === undefined) continue
        found.push({
          network,
          paymentId: payment.paymentId,
          txHash: transaction.txHash,
          index: transfer.index,
          address: transfer.to,
          amountUnits: transfer.amountUnits,
          blockHeight: transaction.slot,
          // getTransaction does not name the block's hash; forks are followed by status, not hash
          blockHash: '',
          blockTime: transaction.blockTime,
          confirmations: 0,
          requiredConfirmations: payment.requiredConfirmations,
          withdrawnUntilHeight: null,
          // its blockhash names a block at or before this one: no fork includes it after this
          expiresAt: new Date(Date.parse(transaction.blockTime) + BLOCKHASH_EXPIRY_MS).toISOString(),
          foreign,
        })
      }
    }
    return found
  }

  /** the accounts of every followed payment */
  const followedAccounts = () => new Set([...payments.values()].flatMap((followed) => [...followed.accounts]))

  function follow(followed: Followed, account: string): void {
    followed.accounts.add(account)
    marked.add(account)
  }

  function watchFinality(signature: string): void {
    if (finalityWatches.has(signature)) return
    finalityWatches.set(
      signature,
      reader.onFinalized(signature, (failed) => {
        notified.add(signature)
        finalized.set(signature, failed)
        wake()
      }),
    )
  }

  /** lists what is new on the marked accounts into `unread`, and saves how far each was listed */
  async function listMarked(): Promise<void> {
    for (const account of [...marked]) {
      const last = lastSeen.get(account) ?? null
      const activity = await reader.activitySince(account, last)
      for (const item of activity) if (!item.failed) unread.add(item.signature)
      const newest = activity.at(-1)
      if (newest !== undefined) {
        lastSeen.set(account, newest.signature)
        unsaved.set(account, newest.signature)
      }
      marked.delete(account)
    }
  }

  /** saves how far each account was listed, once everything listed was read (and tracked) */
  async function saveListed(): Promise<void> {
    if (unread.size > 0) return
    for (const [account, signature] of unsaved) {
      await store.saveAccountSignature(network, account, signature)
      unsaved.delete(account)
    }
  }

  /**
   * reads the listed signatures and tracks what they pay; a signature leaves `unread` only once its
   * transfers are tracked, so that a store that fails has it read again next tick, not forgotten
   */
  async function readUnread(): Promise<void> {
    const observedAt = isoNow(clock)
    for (const signature of [...unread]) {
      if (pending.has(signature)) {
        unread.delete(signature)
        continue
      }
      const transaction = await reader.transaction(signature)
      if (transaction === null) continue
      // one read serves every followed payment the transaction pays; read at confirmed: one
      // confirmation, final once the node finalizes it
      const transfers = matched(transaction)
      for (const transfer of transfers) {
        transfer.confirmations = 1
        await store.track(transfer)
      }
      unread.delete(signature)
      if (transfers.length === 0) continue
      for (const transfer of transfers) {
        if (transfer.foreign !== null) continue
        const message = trackedObservation(transfer, { status: 'seen' }, observedAt)
        if (message !== undefined) outbox.push(message)
      }
      pending.set(signature, transfers)
      checkAt.set(signature, clock.now().getTime() + FINALITY_OVERDUE_MS)
      watchFinality(signature)
    }
  }

  function overdue(): boolean {
    const nowMs = clock.now().getTime()
    for (const at of checkAt.values()) if (at <= nowMs) return true
    return false
  }

  const inDoubt = (signature: string) =>
    (pending.get(signature) ?? []).some((transfer) => transfer.withdrawnUntilHeight !== null)

  /** `report` of every transfer of the signature, each changed by `change` and kept as changed */
  async function reportAll(
    signature: string,
    report: TransferReport,
    change: (transfer: TrackedTransfer) => TrackedTransfer,
  ): Promise<void> {
    const observedAt = isoNow(clock)
    const changed = (pending.get(signature) ?? []).map(change)
    // all kept before anything is reported: a store that fails has the whole report made again
    for (const transfer of changed) await store.track(transfer)
    for (const transfer of changed) {
      const message = trackedObservation(transfer, report, observedAt)
      if (message !== undefined) outbox.push(message)
    }
    pending.set(signature, changed)
  }

  /**
   * A counted transfer whose status the node no longer has (a fork took its block back) is in doubt
   * once, then seen again when its status comes back, dropped REVERTED when it comes back failed, or
   * dropped EXPIRED once its blockhash expired on the chain (docs/chains.md, "Forks: transfers in
   * doubt"). A call that fails throws: not answering is not forgetting.
   */
  async function decide(
    signature: string,
    state: SignatureState | null,
    chainTime: () => Promise<number>,
  ): Promise<'final' | 'dropped' | 'follow'> {
    const doubted = inDoubt(signature)
    const nowMs = clock.now().getTime()
    if (state === null) {
      checkAt.set(signature, nowMs + IN_DOUBT_RECHECK_MS)
      if (!doubted) {
        logger.info({ txHash: signature }, 'counted transfer no longer on chain: in doubt')
        await reportAll(signature, { status: 'in_doubt' }, (transfer) => ({
          ...transfer,
          withdrawnUntilHeight: transfer.blockHeight,
        }))
        return 'follow'
      }
      const expiresAtMs = Math.max(
        ...(pending.get(signature) ?? []).map((transfer) =>
          Date.parse(transfer.expiresAt ?? transfer.blockTime),
        ),
      )
      // the clock first: the chain time costs calls, and cannot be past the expiry before the clock is
      if (expiresAtMs >= nowMs || (await chainTime()) <= expiresAtMs) return 'follow'
      await reportAll(signature, { status: 'dropped', reason: 'EXPIRED' }, (transfer) => transfer)
      return 'dropped'
    }
    if (state.failed) {
      await reportAll(signature, { status: 'dropped', reason: 'REVERTED' }, (transfer) => transfer)
      return 'dropped'
    }
    if (doubted && !(await backOnChain(signature))) return 'follow'
    if (state.finalized) return 'final'
    checkAt.set(signature, nowMs + FINALITY_OVERDUE_MS)
    return 'follow'
  }

  /**
   * a transfer in doubt whose status came back: seen again (same transaction, counted once) in the
   * block that holds it now, which getTransaction names; false while the node does not serve it yet
   */
  async function backOnChain(signature: string): Promise<boolean> {
    const transaction = await reader.transaction(signature)
    if (transaction === null) {
      checkAt.set(signature, clock.now().getTime() + IN_DOUBT_RECHECK_MS)
      return false
    }
    logger.info({ txHash: signature, slot: transaction.slot }, 'transfer in doubt back on chain')
    await reportAll(signature, { status: 'seen' }, (transfer) => ({
      ...transfer,
      blockHeight: transaction.slot,
      blockTime: transaction.blockTime,
      expiresAt: new Date(Date.parse(transaction.blockTime) + BLOCKHASH_EXPIRY_MS).toISOString(),
      withdrawnUntilHeight: null,
      confirmations: 1,
    }))
    return true
  }

  /**
   * what the node says of the marked and overdue pending signatures: the subscription's word, else
   * their status (getSignatureStatuses in batches: calls only for what is marked, late or in doubt).
   * A signature stays marked, or final, until what it says is reported.
   */
  async function recount(): Promise<void> {
    const nowMs = clock.now().getTime()
    for (const [signature, at] of checkAt) if (at <= nowMs) recountDue.add(signature)
    for (const signature of recountDue) {
      if (!pending.has(signature) || finalized.has(signature)) recountDue.delete(signature)
    }
    if (recountDue.size > 0) {
      let chainTimeMs: number | undefined
      const chainTime = async () => {
        chainTimeMs ??= Date.parse((await reader.chainTime()).blockTime)
        return chainTimeMs
      }
      for (const [signature, state] of await reader.statuses([...recountDue])) {
        const outcome = await decide(signature, state, chainTime)
        recountDue.delete(signature)
        if (outcome === 'final') finalized.set(signature, false)
        else if (outcome === 'dropped') await end(signature)
      }
    }
    const observedAt = isoNow(clock)
    for (const [signature, failed] of finalized) {
      if (failed) {
        await reportAll(signature, { status: 'dropped', reason: 'REVERTED' }, (transfer) => transfer)
      } else {
        // final in doubt: seen again where it is first (a status asked later says final again)
        if (inDoubt(signature) && !(await backOnChain(signature))) {
          finalized.delete(signature)
          continue
        }
        for (const transfer of pending.get(signature) ?? []) {
          transfer.confirmations = transfer.requiredConfirmations
          const message = trackedObservation(transfer, { status: 'seen' }, observedAt)
          if (message !== undefined) outbox.push(message)
        }
      }
      await end(signature)
    }
  }

  /** stops following a signature final or dropped; its transfers are untracked once reported */
  async function end(signature: string): Promise<void> {
    ended.push(...(pending.get(signature) ?? []))
    pending.delete(signature)
    checkAt.delete(signature)
    recountDue.delete(signature)
    finalized.delete(signature)
    const stop = finalityWatches.get(signature)
    finalityWatches.delete(signature)
    // a subscription that notified has ended by itself (web3.js); one that did not is ended here
    if (stop !== undefined && !notified.delete(signature)) {
      await stop().catch((error: unknown) =>
        logger.warn({ err: error, txHash: signature }, 'unsubscribe failed'),
      )
    }
  }

  /** publishes the outbox, then untracks what ended: a crash in between publishes again, idempotent downstream */
  async function flush(): Promise<void> {
    if (outbox.length > 0) {
      const published = outbox.length
      await bus.publish(Topics.chainObservations, outbox.slice(0, published))
      outbox.splice(0, published)
    }
    while (ended.length > 0) {
      const [transfer] = ended as [TrackedTransfer]
      await store.untrack(network, transfer.txHash, transfer.index)
      ended.shift()
    }
  }

  async function endAll(unsubscribes: Array<() => Promise<void>>, paymentId: string): Promise<void> {
    for (const end of unsubscribes) {
      await end().catch((error: unknown) => logger.warn({ err: error, paymentId }, 'unsubscribe failed'))
    }
  }

  return {
    get following() {
      return [...pending.values()].reduce((sum, transfers) => sum + transfers.length, 0)
    },

    get due() {
      return (
        marked.size > 0 ||
        unread.size > 0 ||
        recountDue.size > 0 ||
        finalized.size > 0 ||
        outbox.length > 0 ||
        ended.length > 0 ||
        overdue()
      )
    },

    async load() {
      for (const { account, signature } of await store.listAccountSignatures(network)) {
        lastSeen.set(account, signature)
      }
      for (const transfer of await store.listTracked(network)) {
        pending.set(transfer.txHash, [...(pending.get(transfer.txHash) ?? []), transfer])
        recountDue.add(transfer.txHash)
        watchFinality(transfer.txHash)
      }
    },

    async watch(payment) {
      if (payments.has(payment.paymentId)) return
      const followed: Followed = { payment, accounts: new Set(), unsubscribes: [] }
      try {
        // SOL: the owner; SPL: the payment's own token account, which the payer may open with the payment
        const own = payment.tokenAccount ?? (payment.assetContract === null ? payment.owner : null)
        if (own !== null) {
          follow(followed, own)
          followed.unsubscribes.push(
            reader.onActivity(own, () => {
              marked.add(own)
              wake()
            }),
          )
        }
        // the payment's own mint, and the other registry mints for foreign funds (decisions 16); the
        // subscription names token accounts the owner opens later too
        for (const mint of mints) {
          followed.unsubscribes.push(
            reader.onTokenAccountChange(payment.owner, mint, (account) => {
              follow(followed, account)
              wake()
            }),
          )
          for (const account of await reader.tokenAccountsOf(payment.owner, mint)) follow(followed, account)
        }
      } catch (error) {
        // not followed until every account is known: the caller's next watch starts again. Nor
        // listed meanwhile: a listing that matched no payment would move the account's last
        // signature past what the payment is paid.
        const others = followedAccounts()
        for (const account of followed.accounts) if (!others.has(account)) marked.delete(account)
        await endAll(followed.unsubscribes, payment.paymentId)
        throw error
      }
      payments.set(payment.paymentId, followed)
    },

    async unwatch(paymentId) {
      const followed = payments.get(paymentId)
      if (followed === undefined) return
      payments.delete(paymentId)
      const stillFollowed = followedAccounts()
      for (const account of followed.accounts) {
        if (stillFollowed.has(account)) continue
        marked.delete(account)
        lastSeen.delete(account)
        unsaved.delete(account)
        await store.forgetAccountSignature(network, account)
      }
      await endAll(followed.unsubscribes, paymentId)
    },

    async close() {
      const ends = [...payments.values()].flatMap((followed) => followed.unsubscribes)
      ends.push(...[...finalityWatches].flatMap(([signature, end]) => (notified.has(signature) ? [] : [end])))
      payments.clear()
      finalityWatches.clear()
      // Awaited while the node still answers: web3.js then closes its idle websocket by itself
      // (code 1000, no reconnection). Closing the socket under unsubscriptions in flight makes
      // web3.js 1.99 retry them in a loop that never yields. A node that does not answer is not
      // waited for longer than CLOSE_WAIT_MS.
      const settled = Promise.allSettled(ends.map((end) => end()))
      let timer: ReturnType<typeof setTimeout> | undefined
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CLOSE_WAIT_MS)
        timer.unref()
      })
      await Promise.race([settled, waited])
      clearTimeout(timer)
    },

    reconcile(paymentIds) {
      const chosen =
        paymentIds === undefined ? [...payments.values()] : paymentIds.flatMap((id) => payments.get(id) ?? [])
      for (const followed of chosen) for (const account of followed.accounts) marked.add(account)
      if (paymentIds === undefined) for (const signature of pending.keys()) recountDue.add(signature)
    },

    async tick() {
      await listMarked()
      await readUnread()
      await saveListed()
      await recount()
      await flush()
    },
  }
}
