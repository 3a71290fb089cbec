// The Solana watcher of SOLANA_WATCH_MODE=address (docs/chains.md, "Solana by address"): instead of
// scanning blocks it follows the accounts of open payments. On watch it learns the owner's token
// accounts once (every token account of the owner counts, not only the associated one: decisions
// 16); each tick lists what is new on those accounts since the last signature seen
// (getSignaturesForAddress), reads each new transaction once (getTransaction), and recounts what it
// follows with getSignatureStatuses in batches. It publishes the observations the block scanner
// publishes (observations.ts), so nothing downstream changes.
//
// Not yet: websocket subscriptions (the reader has them; each tick reconciles instead), the last
// signature per account in the store (kept in memory: a restart reconciles from the payment's
// creation, which lists everything again and republishes idempotent observations), and forks
// (a transfer whose status disappears stays followed).

import type { AddressTransaction, SolanaAddressReader } from '@chainpay/chain-solana'
import type { AssetRegistry } from '@chainpay/domain'
import { type Clock, isoNow } from '@chainpay/platform'
import { type Bus, type ForeignAsset, Topics, type TrackedTransfer } from '@chainpay/ports'
import { trackedObservation } from './observations.js'

/** an open payment as the address watcher follows it */
export interface AddressPayment {
  paymentId: string
  /** the payment's address: the owner of its token accounts for SPL */
  owner: string
  /** the SPL mint; null for SOL */
  assetContract: string | null
  requiredConfirmations: number
}

export interface SolanaAddressWatcher {
  /** follows the payment's accounts from now on: its owner and the owner's token accounts */
  watch(payment: AddressPayment): Promise<void>
  /** stops following the payment's accounts (its late funds window closed); what it saw stays followed */
  unwatch(paymentId: string): void
  /** lists what is new on every followed account, reads it, and recounts what is followed */
  tick(): Promise<void>
  /** transfers followed until final */
  readonly following: number
}

export interface SolanaAddressWatcherOptions {
  network: string
  reader: SolanaAddressReader
  registry: AssetRegistry
  bus: Bus
  clock: Clock
}

interface Followed {
  payment: AddressPayment
  /** the account listed, and the last signature seen on it (null: none yet) */
  accounts: Map<string, string | null>
}

export function createSolanaAddressWatcher(options: SolanaAddressWatcherOptions): SolanaAddressWatcher {
  const { network, reader, bus, clock } = options
  const assets = options.registry.assets.filter((asset) => asset.network === network)
  const payments = new Map<string, Followed>()
  /** signatures already read once */
  const read = new Set<string>()
  /** signatures listed that the node did not serve yet: read next tick, since the listing moved past them */
  const unread = new Set<string>()
  /** transfers seen and not final yet, by signature */
  const pending = new Map<string, TrackedTransfer[]>()

  function foreignAsset(contract: string | null): ForeignAsset | undefined {
    const asset = assets.find((candidate) => candidate.contract === contract)
    return asset && { currency: asset.currency, decimals: asset.decimals }
  }

  /** the transfers of `transaction` that concern a followed payment */
  function matched(transaction: AddressTransaction): TrackedTransfer[] {
    const found: TrackedTransfer[] = []
    for (const transfer of transaction.transfers) {
      if (!transfer.success) continue
      for (const { payment } of payments.values()) {
        if (transfer.owner !== payment.owner) continue
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
          expiresAt: null,
          foreign,
        })
      }
    }
    return found
  }

  /** adds what is new on the payment's accounts to `unread` */
  async function listNew(followed: Followed): Promise<void> {
    for (const [account, last] of followed.accounts) {
      const activity = await reader.activitySince(account, last)
      const newest = activity.at(-1)
      if (newest !== undefined) followed.accounts.set(account, newest.signature)
      for (const item of activity) if (!item.failed && !read.has(item.signature)) unread.add(item.signature)
    }
  }

  async function recount(): Promise<void> {
    if (pending.size === 0) return
    const states = await reader.statuses([...pending.keys()])
    const observedAt = isoNow(clock)
    const messages = []
    for (const [signature, transfers] of pending) {
      const state = states.get(signature)
      if (state === null || state === undefined || state.failed) continue
      for (const transfer of transfers) {
        // confirmed counts one; only the node's finalized status makes it reach the requirement
        const confirmations = state.finalized ? transfer.requiredConfirmations : 1
        if (confirmations <= transfer.confirmations) continue
        transfer.confirmations = confirmations
        if (transfer.foreign !== null && !state.finalized) continue
        const message = trackedObservation(transfer, { status: 'seen' }, observedAt)
        if (message !== undefined) messages.push(message)
      }
      if (state.finalized) pending.delete(signature)
    }
    if (messages.length > 0) await bus.publish(Topics.chainObservations, messages)
  }

  return {
    get following() {
      return [...pending.values()].reduce((sum, transfers) => sum + transfers.length, 0)
    },

    async watch(payment) {
      const accounts = new Map<string, string | null>()
      if (payment.assetContract === null) accounts.set(payment.owner, null)
      // the payment's own mint, and the other registry mints for foreign funds (decisions 16)
      for (const asset of assets) {
        if (asset.contract === null) continue
        for (const account of await reader.tokenAccountsOf(payment.owner, asset.contract)) {
          accounts.set(account, null)
        }
      }
      payments.set(payment.paymentId, { payment, accounts })
    },

    unwatch(paymentId) {
      payments.delete(paymentId)
    },

    async tick() {
      for (const followed of payments.values()) await listNew(followed)
      for (const signature of unread) {
        const transaction = await reader.transaction(signature)
        if (transaction === null) continue
        unread.delete(signature)
        read.add(signature)
        // one read serves every followed payment the transaction pays
        const transfers = matched(transaction)
        if (transfers.length > 0) pending.set(signature, transfers)
      }
      await recount()
    },
  }
}
