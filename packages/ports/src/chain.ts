// The chain port: blocks and the transfers in them, nothing about one client library. The
// simulator, and later TRON and Solana RPC adapters, implement it.

export type TransferAsset = { kind: 'native' } | { kind: 'token'; contract: string }

export interface ChainTransfer {
  txHash: string
  /** position of the transfer in its transaction (log index, instruction index) */
  index: number
  from: string | null
  /** receiving address; for SPL tokens the receiving token account */
  to: string
  /**
   * Solana: the owner of the receiving account, which is what a payment's address is for every token
   * account it owns (decisions 16, 19): for SOL the account itself, for SPL the token account's
   * owner as the node's token balances name it. Absent on TRON, where `to` is the address.
   */
  owner?: string
  asset: TransferAsset
  amountUnits: string
  /** false for a transaction that is on chain but failed (REVERT, OUT_OF_ENERGY, meta.err) */
  success: boolean
  /** TRX a contract sent (a TRON internal transaction, read from the receipt): never a payment's own transfer */
  internal?: boolean
  /**
   * when the chain can no longer include the transaction (TRON raw_data.expiration), where the
   * chain has one: a transfer in doubt is dropped only after it (docs/chains.md, "Forks")
   */
  expiresAt?: string
}

export interface ChainBlock {
  height: number
  hash: string
  parentHash: string
  /** the block's timestamp, ISO 8601 */
  time: string
  transfers: ChainTransfer[]
}

export interface ChainHead {
  height: number
  hash: string
  time: string
  /**
   * the highest block the chain has made final (TRON's solidified block, Solana's finalized slot),
   * where the client knows it; a transfer above it is never counted as final
   */
  finalizedHeight?: number
}

/** where the chain's final (solidified, finalized) state has a transaction */
export interface FinalInclusion {
  blockHeight: number
  success: boolean
}

export interface ChainClient {
  readonly network: string
  getHead(): Promise<ChainHead>
  /** canonical blocks with from <= height <= to, ascending; heights without a block are absent */
  getBlocks(fromHeight: number, toHeight: number): Promise<ChainBlock[]>
  /**
   * the transaction as the final chain has it, undefined when it does not (yet): one call per
   * transfer instead of re-reading its block until it is final (TRON walletsolidity/
   * gettransactioninfobyid). Without it, finality is the head's finalizedHeight.
   */
  finalInclusion?(txHash: string): Promise<FinalInclusion | undefined>
  /**
   * the lowest height the node has a block for (a node started from a snapshot lacks older ones):
   * a backfill never reads below it (TRON: probed with getblockbynum; Solana getFirstAvailableBlock)
   */
  firstAvailableHeight?(): Promise<number>
}

/** why a chain RPC call failed, so that callers know whether and when to try again */
export type ChainRpcFailure =
  /** no answer within the deadline */
  | 'timeout'
  /** 429, or a provider's quota answer (TronGrid 403) */
  | 'rate-limited'
  /** connection refused or reset, 5xx, or a node that says it is behind or unhealthy */
  | 'unavailable'
  /**
   * the node has not reached the slot the call asked for (Solana -32016, minContextSlot): it would
   * answer with less than the chain holds, which is not evidence of absence
   */
  | 'behind'
  /** an answer the client cannot use: not the documented shape, or a request the node rejects */
  | 'bad-response'

/** what chain clients throw for a failed RPC call; never carries an endpoint's API key */
export class ChainRpcError extends Error {
  readonly failure: ChainRpcFailure
  /** the wait the node asked for (Retry-After), in milliseconds */
  readonly retryAfterMs: number | undefined

  constructor(
    failure: ChainRpcFailure,
    message: string,
    options: { retryAfterMs?: number | undefined; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'ChainRpcError'
    this.failure = failure
    this.retryAfterMs = options.retryAfterMs
  }

  /** worth another try later: everything but an answer of the wrong shape */
  get transient(): boolean {
    return this.failure !== 'bad-response'
  }
}

export function isChainRpcError(error: unknown): error is ChainRpcError {
  return error instanceof ChainRpcError
}

/** an address and the asset whose balance is asked */
export interface BalanceHolder {
  /** the owner address (TRON account, Solana system account) */
  address: string
  /** TRC20 contract or SPL mint; null for TRX or SOL */
  contract: string | null
}

/**
 * What the chain holds now for an address and asset, in the asset's smallest units (docs/api.md,
 * "Balances and sweeps"): TRON getaccount and a constant balanceOf call; Solana getBalance, and for a
 * token every token account the owner holds of the mint (a payment's funds may sit in another than
 * the associated one: docs/api.md, "Foreign funds"); the simulator's ledger. An account the chain
 * does not know holds 0. Throws ChainRpcError when the node does not answer usably.
 */
export interface ChainBalanceReader {
  readonly network: string
  balanceOf(holder: BalanceHolder): Promise<bigint>
}
