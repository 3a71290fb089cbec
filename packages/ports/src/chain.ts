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
  asset: TransferAsset
  amountUnits: string
  /** false for a transaction that is on chain but failed (REVERT, OUT_OF_ENERGY, meta.err) */
  success: boolean
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
}

export interface ChainClient {
  readonly network: string
  getHead(): Promise<ChainHead>
  /** canonical blocks with from <= height <= to, ascending; heights without a block are absent */
  getBlocks(fromHeight: number, toHeight: number): Promise<ChainBlock[]>
}
