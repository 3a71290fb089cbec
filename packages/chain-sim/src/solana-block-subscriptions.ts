// Subscriptions that follow a simulated Solana network block by block, as a node's pubsub follows
// its bank: a signature's block (signatureSubscribe), each transaction that mentions an address
// (logsSubscribe), an account's state after a block that changed it (accountSubscribe), the token
// accounts matching filters that a block changed (programSubscribe). One definition for the
// websocket pubsub (solana-pubsub.ts) and the in-process address reader
// (simulator-address-reader.ts). The simulator has no event for a new block, so a follower looks at
// the chain every `pollIntervalMs` while it has subscriptions, each from the slot it saw last. As
// agave checks every signature subscription at each commitment update, a signature that was in a
// block before its subscription is told at the next block, at that block's slot.
import type { ChainSimulator, SimulatedBlock } from './simulator.js'
import { tokenAccountData, tokenHoldingAfter } from './solana-accounts.js'
import { type Commitment, mentions, slotAt } from './solana-node.js'
import { type SolanaTransaction, simulatedSolanaTransactions, TOKEN_PROGRAM_ID } from './solana-rpc-blocks.js'

export type SubscriptionKind = 'account' | 'logs' | 'signature' | 'program'

/** programSubscribe's filters: the account data's size, and bytes at an offset of it */
export type AccountFilter = { dataSize: number } | { memcmp: { offset: number; bytes: Uint8Array } }

/** what a subscription hears of one block */
export type BlockNews =
  /** the signature's transaction is in a block at the commitment */
  | { kind: 'signature'; transaction: SolanaTransaction }
  /** a transaction of the block mentions the address, one news each */
  | { kind: 'logs'; transaction: SolanaTransaction }
  /** the last transaction of the block that changed the account */
  | { kind: 'account'; transaction: SolanaTransaction }
  /** an account of the program that the block changed, matching the filters, with its last transaction */
  | { kind: 'program'; pubkey: string; transaction: SolanaTransaction }

export interface BlockSubscription {
  network: string
  kind: SubscriptionKind
  /** the watched account, signature or program */
  target: string
  commitment: Commitment
  filters: AccountFilter[]
  /** the highest slot already looked at: at first the chain at its commitment (slotAt) */
  seen: number
  /** false once ended: a signature subscription ends at its notification */
  isOpen(): boolean
  /** what a block at `slot` holds for it, when anything */
  deliver(slot: number, news: BlockNews[]): void
}

export interface BlockFollower {
  /** looks at the chain on a timer from now on, if it did not yet */
  start(): void
  stop(): void
}

/** looks at the blocks each open subscription has not seen yet, every `pollIntervalMs` */
export function createBlockFollower(
  simulator: ChainSimulator,
  pollIntervalMs: number,
  subscriptions: () => Iterable<BlockSubscription>,
): BlockFollower {
  let timer: NodeJS.Timeout | undefined
  let polling = false

  async function poll(): Promise<void> {
    const slots = new Map<string, number>()
    const blocks = new Map<string, { block: SimulatedBlock; transactions: SolanaTransaction[] }>()
    const read = async (network: string, slot: number) => {
      const key = `${network}/${slot}`
      const known = blocks.get(key)
      if (known) return known
      const [block] = await simulator.blockDetails(network, slot, slot)
      const found = block && { block, transactions: simulatedSolanaTransactions(block) }
      if (found) blocks.set(key, found)
      return found
    }
    for (const subscription of [...subscriptions()]) {
      const { network, commitment } = subscription
      const key = `${network}/${commitment}`
      const highest = slots.get(key) ?? (await slotAt({ simulator, network }, commitment))
      slots.set(key, highest)
      if (subscription.kind === 'signature' && subscription.seen < highest && subscription.isOpen()) {
        // told at the update that includes it, or at the first one after the subscription
        const seen = subscription.seen
        subscription.seen = highest
        const slot = await simulator.transactionHeight(network, subscription.target)
        if (typeof slot !== 'number' || slot > highest) continue
        const transaction = (await read(network, slot))?.transactions.find(
          (candidate) => candidate.signature === subscription.target,
        )
        if (transaction) subscription.deliver(Math.max(slot, seen + 1), [{ kind: 'signature', transaction }])
        continue
      }
      while (subscription.seen < highest && subscription.isOpen()) {
        subscription.seen += 1
        const found = await read(network, subscription.seen)
        const news = found ? newsOf(subscription, found.transactions) : []
        if (found && news.length > 0) subscription.deliver(found.block.height, news)
      }
    }
  }

  return {
    start() {
      if (timer !== undefined) return
      timer = setInterval(() => {
        if (polling) return
        polling = true
        poll()
          .catch(() => {})
          .finally(() => {
            polling = false
          })
      }, pollIntervalMs)
      // a subscription never keeps the process alive on its own
      timer.unref()
    },
    stop() {
      clearInterval(timer)
      timer = undefined
    },
  }
}

/** what a block holds for a subscription to an account or a program (a signature's is found by its height) */
function newsOf(subscription: BlockSubscription, transactions: SolanaTransaction[]): BlockNews[] {
  const { kind, target } = subscription
  if (kind === 'program') {
    // the program's accounts that changed in the slot and match the filters, each once, last state
    const changed = new Map<string, SolanaTransaction>()
    for (const transaction of transactions) {
      for (const { pubkey } of transaction.keys) {
        if (programAccount(transaction, pubkey, subscription)) changed.set(pubkey, transaction)
      }
    }
    return [...changed].map(([pubkey, transaction]) => ({ kind, pubkey, transaction }))
  }
  const mentioning = transactions.filter((transaction) => mentions(transaction, target))
  if (kind === 'logs') return mentioning.map((transaction) => ({ kind, transaction }))
  // an account's notification carries its state after the slot, once however often it changed
  const last = mentioning.at(-1)
  return last ? [{ kind: 'account', transaction: last }] : []
}

/** whether a key of the transaction is an account of the subscription's program matching its filters */
function programAccount(
  transaction: SolanaTransaction,
  pubkey: string,
  subscription: BlockSubscription,
): boolean {
  // only token accounts are simulated as program-owned accounts with data
  if (subscription.target !== TOKEN_PROGRAM_ID) return false
  const token = tokenHoldingAfter(transaction, pubkey)
  if (token === undefined) return false
  const data = tokenAccountData(token.mint, token.owner, BigInt(token.uiTokenAmount.amount))
  return subscription.filters.every((filter) => {
    if ('dataSize' in filter) return filter.dataSize === data.length
    const { offset, bytes } = filter.memcmp
    return offset + bytes.length <= data.length && bytes.every((byte, at) => data[offset + at] === byte)
  })
}
