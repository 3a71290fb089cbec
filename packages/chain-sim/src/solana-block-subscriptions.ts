// Subscriptions that follow a simulated Solana network block by block, as a node's pubsub follows
// its bank: a signature's block (signatureSubscribe), each transaction that mentions an address
// (logsSubscribe), an account's state after a block that changed it (accountSubscribe), the token
// accounts matching filters that a block changed (programSubscribe). One definition for the
// websocket pubsub (solana-pubsub.ts) and the in-process address reader
// (simulator-address-reader.ts). The simulator has no event for a new block, so a follower looks at
// the chain every `pollIntervalMs` while it has subscriptions, or when poll() asks. Each new slot is
// read once per network and commitment and handed only to the subscriptions it concerns (by
// account, or by token owner for a program subscription filtered on it), so that tens of thousands
// of subscriptions cost nothing while nothing concerns them (the call-budget benchmark holds that
// many over a simulated week). As agave checks every signature subscription at each commitment
// update, a signature that was in a block before its subscription is told at the next block, at
// that block's slot.
import { base58 } from '@scure/base'
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
  /** follows a subscription from the slot it has seen; until remove() or, for a signature, its news */
  add(subscription: BlockSubscription): void
  remove(subscription: BlockSubscription): void
  /** follows none any more */
  clear(): void
  /** the subscriptions followed */
  readonly size: number
  /** looks at the chain on a timer from now on, if it did not yet */
  start(): void
  stop(): void
  /**
   * looks at the chain now, as the timer does, once a look under way is done: what it delivers is
   * delivered when it resolves (for callers whose clock is simulated)
   */
  poll(): Promise<void>
}

/** the subscriptions of one network at one commitment but signatures, and the last slot they were shown */
interface Audience {
  network: string
  commitment: Commitment
  /** slots up to this one were shown to every subscription of the audience */
  polled: number
  size: number
}

/** blocks read at once while a slot range is shown to the subscriptions */
const BLOCKS_PER_READ = 256
/** where an SPL token account holds its owner: a programSubscribe memcmp filter there names it */
const OWNER_OFFSET = 32

/** follows the subscriptions added to it, looking at the chain every `pollIntervalMs` once started */
export function createBlockFollower(simulator: ChainSimulator, pollIntervalMs: number): BlockFollower {
  let timer: NodeJS.Timeout | undefined
  let polling: Promise<void> | undefined
  const signatures = new Set<BlockSubscription>()
  /** by account or `owner:<token owner>`: the subscriptions a slot touching it concerns */
  const index = new Map<string, Set<BlockSubscription>>()
  /** program subscriptions without a token owner filter: every slot with transactions concerns them */
  const unindexed = new Set<BlockSubscription>()
  const audiences = new Map<string, Audience>()
  /** subscriptions added below what their audience was shown: walked up to it one by one */
  const behind = new Set<BlockSubscription>()
  const followed = new Set<BlockSubscription>()

  function remove(subscription: BlockSubscription): void {
    if (!followed.delete(subscription)) return
    if (subscription.kind === 'signature') {
      signatures.delete(subscription)
      return
    }
    unindexed.delete(subscription)
    behind.delete(subscription)
    for (const key of keysOf(subscription)) {
      const set = index.get(key)
      set?.delete(subscription)
      if (set?.size === 0) index.delete(key)
    }
    const name = audienceKey(subscription.network, subscription.commitment)
    const audience = audiences.get(name)
    if (audience !== undefined && --audience.size === 0) audiences.delete(name)
  }

  async function poll(): Promise<void> {
    const slots = new Map<string, number>()
    const highestOf = async (network: string, commitment: Commitment) => {
      const key = audienceKey(network, commitment)
      const highest = slots.get(key) ?? (await slotAt({ simulator, network }, commitment))
      slots.set(key, highest)
      return highest
    }
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
    for (const subscription of [...signatures]) {
      if (!subscription.isOpen()) {
        remove(subscription)
        continue
      }
      const { network } = subscription
      const highest = await highestOf(network, subscription.commitment)
      if (subscription.seen >= highest) continue
      // told at the update that includes it, or at the first one after the subscription
      const seen = subscription.seen
      subscription.seen = highest
      const slot = await simulator.transactionHeight(network, subscription.target)
      if (typeof slot !== 'number' || slot > highest) continue
      const transaction = (await read(network, slot))?.transactions.find(
        (candidate) => candidate.signature === subscription.target,
      )
      if (transaction) subscription.deliver(Math.max(slot, seen + 1), [{ kind: 'signature', transaction }])
    }
    // one by one, the few added below what their audience was shown: up to it
    for (const subscription of [...behind]) {
      behind.delete(subscription)
      const audience = audiences.get(audienceKey(subscription.network, subscription.commitment))
      const through = audience?.polled ?? subscription.seen
      while (subscription.seen < through && subscription.isOpen()) {
        subscription.seen += 1
        const found = await read(subscription.network, subscription.seen)
        const news = found ? newsOf(subscription, found.transactions) : []
        if (found && news.length > 0) subscription.deliver(found.block.height, news)
      }
    }
    for (const audience of [...audiences.values()]) {
      const highest = await highestOf(audience.network, audience.commitment)
      for (let first = audience.polled + 1; first <= highest; first += BLOCKS_PER_READ) {
        const last = Math.min(highest, first + BLOCKS_PER_READ - 1)
        for (const block of await simulator.blockDetails(audience.network, first, last)) {
          if (block.transactions.length > 0) show(audience, block.height, simulatedSolanaTransactions(block))
        }
        audience.polled = last
      }
    }
  }

  /** a slot to the subscriptions of the audience it concerns, each once */
  function show(audience: Audience, slot: number, transactions: SolanaTransaction[]): void {
    const concerned = new Set<BlockSubscription>(unindexed)
    const consider = (key: string) => {
      for (const subscription of index.get(key) ?? []) concerned.add(subscription)
    }
    for (const transaction of transactions) {
      for (const { pubkey } of transaction.keys) consider(pubkey)
      for (const balance of transaction.postTokenBalances) consider(`owner:${String(balance.owner)}`)
    }
    for (const subscription of concerned) {
      if (subscription.network !== audience.network || subscription.commitment !== audience.commitment)
        continue
      if (subscription.seen >= slot) continue
      if (!subscription.isOpen()) {
        remove(subscription)
        continue
      }
      const news = newsOf(subscription, transactions)
      if (news.length > 0) subscription.deliver(slot, news)
    }
  }

  function pollOnce(): Promise<void> {
    polling ??= poll()
      .catch(() => {})
      .finally(() => {
        polling = undefined
      })
    return polling
  }

  return {
    add(subscription) {
      if (followed.has(subscription)) return
      followed.add(subscription)
      if (subscription.kind === 'signature') {
        signatures.add(subscription)
        return
      }
      const keys = keysOf(subscription)
      if (keys.length === 0) unindexed.add(subscription)
      for (const key of keys) {
        const set = index.get(key) ?? new Set<BlockSubscription>()
        set.add(subscription)
        index.set(key, set)
      }
      const name = audienceKey(subscription.network, subscription.commitment)
      const audience = audiences.get(name)
      if (audience === undefined) {
        audiences.set(name, {
          network: subscription.network,
          commitment: subscription.commitment,
          polled: subscription.seen,
          size: 1,
        })
      } else {
        audience.size += 1
        if (subscription.seen < audience.polled) behind.add(subscription)
      }
    },
    remove,
    clear() {
      for (const subscription of [...followed]) remove(subscription)
    },
    get size() {
      return followed.size
    },
    start() {
      if (timer !== undefined) return
      timer = setInterval(() => {
        if (polling === undefined) void pollOnce()
      }, pollIntervalMs)
      // a subscription never keeps the process alive on its own
      timer.unref()
    },
    stop() {
      clearInterval(timer)
      timer = undefined
    },
    async poll() {
      await polling
      await pollOnce()
    },
  }
}

/** the index keys under which a slot concerns the subscription; none: every slot may */
function keysOf(subscription: BlockSubscription): string[] {
  if (subscription.kind !== 'program') return [subscription.target]
  const owner = subscription.filters.find(
    (filter) =>
      'memcmp' in filter && filter.memcmp.offset === OWNER_OFFSET && filter.memcmp.bytes.length === 32,
  )
  return owner === undefined || !('memcmp' in owner) ? [] : [`owner:${base58.encode(owner.memcmp.bytes)}`]
}

function audienceKey(network: string, commitment: Commitment): string {
  return `${network}/${commitment}`
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
