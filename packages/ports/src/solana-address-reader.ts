// What the Solana watcher that follows the accounts of payments (docs/chains.md, "Solana by
// address") reads from a node, instead of whole blocks. One port, two adapters that pass its one
// contract suite (testing/solana-address-reader-contract.ts): @solana/web3.js against a node
// (packages/chain-solana) and the chain simulator in process (packages/chain-sim). Calls throw
// ChainRpcError; a node behind a `minContextSlot` throws it with failure 'behind', never answers
// with less than it would have at that slot.

import type { ChainTransfer } from './chain.js'

/** a transaction that holds the account, as getSignaturesForAddress lists it */
export interface AddressActivity {
  signature: string
  slot: number
  /** the block's time, ISO 8601; null where the node does not know it */
  blockTime: string | null
  failed: boolean
}

/** a transaction's transfers, each with the owner of its receiving account (ChainTransfer.owner) */
export interface AddressTransaction {
  txHash: string
  slot: number
  blockTime: string
  transfers: ChainTransfer[]
}

export interface SignatureState {
  slot: number
  finalized: boolean
  failed: boolean
}

/** getSignatureStatuses: what the node said, and the slot it said it at */
export interface SignatureStates {
  /** the node's slot when it answered: a signature it does not know is unknown below it, not gone */
  contextSlot: number
  /** null: the node does not know the signature (history searched) */
  states: Map<string, SignatureState | null>
}

/** an account as getMultipleAccounts shows it: what a batched check compares */
export interface AccountState {
  lamports: bigint
  /** the program that owns the account: the System program's for a wallet, a token program's for a token account or mint */
  program: string
  /** a token account's mint and amount (classic Token program layout); null for any other account */
  token: { mint: string; amount: bigint } | null
}

export interface AccountStates {
  contextSlot: number
  /** null: the account does not exist */
  states: Map<string, AccountState | null>
}

/** the newest confirmed slot and its block time: how far the chain has come */
export interface SolanaChainTime {
  slot: number
  blockTime: string
}

export interface SolanaAddressReader {
  readonly network: string
  /** getSlot and getBlockTime at confirmed: what a watcher that listed every account after it has seen */
  chainTime(): Promise<SolanaChainTime>
  /**
   * the node's first available block and its time (getFirstAvailableBlock, getBlockTime): a node
   * started from a snapshot lists nothing older
   */
  firstAvailable(): Promise<SolanaChainTime>
  /**
   * the transactions holding `address` after `until` (exclusive; null: all the node has), oldest
   * first, at confirmed: one getSignaturesForAddress per 1,000. With minContextSlot, a node behind
   * it fails ('behind') rather than list less.
   */
  activitySince(
    address: string,
    until: string | null,
    options?: { minContextSlot?: number },
  ): Promise<AddressActivity[]>
  /** one getTransaction at confirmed: its transfers; null while the node does not hold it */
  transaction(signature: string): Promise<AddressTransaction | null>
  /** getSignatureStatuses in batches of 256, history included */
  statuses(signatures: readonly string[]): Promise<SignatureStates>
  /**
   * getMultipleAccounts in batches of 100, at confirmed: how a watcher checks many accounts in one
   * call. With minContextSlot, a node behind it fails ('behind').
   */
  accounts(addresses: readonly string[], options?: { minContextSlot?: number }): Promise<AccountStates>
  /**
   * the token accounts `owner` has (classic Token program) at confirmed, one getTokenAccountsByOwner:
   * how a watcher finds an account opened for the owner while notifications were lost
   */
  tokenAccountsOf(owner: string): Promise<string[]>
  /**
   * calls `listener` with the signature of each transaction that mentions `address` (logsSubscribe,
   * confirmed), and the slot the node said it at; the function it returns ends the subscription.
   * Nothing is replayed after a reconnect: the watcher lists what it missed with activitySince.
   */
  onActivity(address: string, listener: (signature: string, slot: number) => void): () => Promise<void>
  /**
   * calls `listener` with each token account of `owner` (classic Token program) that changed, its
   * mint, and the slot the node said it at (programSubscribe filtered on the owner, confirmed): also
   * one opened after the call
   */
  onTokenAccountChange(
    owner: string,
    listener: (tokenAccount: string, mint: string, slot: number) => void,
  ): () => Promise<void>
  /**
   * calls `listener` once, when the transaction is finalized (signatureSubscribe, finalized), with
   * whether it failed and the slot the node said it at; the function it returns ends the
   * subscription before then
   */
  onFinalized(
    signature: string,
    listener: (outcome: { failed: boolean; slot: number }) => void,
  ): () => Promise<void>
  /**
   * calls `listener` each time the subscriptions' connection (re)opens: notifications sent while it
   * was closed are lost (a node replays nothing), so the watcher checks what it follows again
   */
  onConnect(listener: () => void): () => void
  /** whether notifications can arrive now; while not, the watcher checks on a timer */
  connected(): boolean
  /** at stop, once every subscription was ended: nothing reconnects any more */
  release(): void
  /**
   * at stop: the calls in flight, and those made until the function it returns is called, fail at
   * once rather than wait for a node that does not answer
   */
  interruptCalls(): () => void
}
