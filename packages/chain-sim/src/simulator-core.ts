// The chain simulator's types (simulator.ts builds it; simulator-solana.ts and simulator-tron.ts hold
// each chain's part), and what the parts share: the running networks and the store. Apart from
// simulator.ts so that the parts import them without importing the file that imports the parts.

import type { DatabaseSync } from 'node:sqlite'
import { type AssetRegistry, type Chain, DomainError, type NetworkDefinition } from '@chainpay/domain'
import type { Logger } from '@chainpay/platform'
import type { ChainClient, ChainHead } from '@chainpay/ports'
import { base58 } from '@scure/base'
import type { ChainFormat, SimulatedFailure } from './chain-format.js'
import type { SimulatorStore, StoredBlock, StoredTokenAccount } from './simulator-store.js'
import type { SendOptions, SimulationOptions } from './solana-execution.js'

export interface SimulatedTransfer {
  /**
   * receiving address; for SPL tokens the receiving token account, or with `asWallet` the owner
   * too (the tokens land in its associated token account)
   */
  to: string
  /** decimal amount in whole units of the currency, e.g. "12.5" */
  amount: string
  currency: string
  /** a token contract or mint other than the registry's: a counterfeit token of that currency */
  contract?: string | undefined
  /** sender; a random address of the chain when absent */
  from?: string | undefined
  /** included in a block but failed (TRON REVERT, Solana meta.err) */
  fail?: boolean | undefined
}

/** one payment inside a simulated transaction */
export interface SimulatedPayment {
  to: string
  amount: string
  currency: string
  contract?: string | undefined
  /** TRON: TRX that the called contract sends on (an internal transaction in the receipt) */
  internal?: boolean | undefined
}

/**
 * a transaction with one or more transfers from one sender: on TRON several transfers are TRC20
 * transfers made by one multisend contract call (a TRX transfer is a transaction of its own); on
 * Solana several instructions, native and SPL mixed
 */
export interface SimulatedTransaction {
  from?: string | undefined
  transfers: SimulatedPayment[]
  /** included in a block but failed */
  failure?: SimulatedFailure | undefined
}

/**
 * `asWallet`: the transfer is sent as a wallet sends it (the dev routes; docs/api.md, "Development
 * endpoints"). On Solana an SPL token sent to an owner's address lands in the owner's associated
 * token account, which the transaction opens if it is not open yet, its rent paid by the sender;
 * what no wallet sends is refused: to an address that is not a Solana key, to a mint, to a token
 * account of another mint, or of a mint that is not a Solana key. Without it, an SPL transfer's
 * `to` is always the receiving token account (how tests make a stranger's token account).
 */
export interface SubmitOptions {
  asWallet?: boolean | undefined
  /**
   * Solana: the signature of a signed transaction not sent yet. This transaction is held until
   * that one is sent, then lands just ahead of it: after the node's preflight passed it and before
   * the leader runs it, as another transaction of the same accounts does on a real chain when the
   * preflight's bank had not seen it yet. The signed transaction then goes in as the leader runs it:
   * failed on chain (meta.err, its fee charged) if what it needed is gone, dropped if its fee
   * payer can no longer pay the fee (docs/chains.md, "The simulator as a node for sweeping").
   * Kept in memory only: a dev control for tests, not a transaction of the mempool.
   */
  landsAheadOf?: string | undefined
}

export type SimulatedBlock = StoredBlock
export type SimulatedTokenAccount = StoredTokenAccount

export interface TokenAccountRequest {
  owner: string
  /** an SPL currency of the registry: the account holds its mint */
  currency: string
  /** the account's address, e.g. the owner's associated token account; a new address when absent */
  address?: string | undefined
}

/** a Solana account as the ledger holds it after every accepted transaction */
export interface SolanaAccountState {
  lamports: bigint
  /** an open SPL token account */
  token?: { mint: string; owner: string; amount: bigint; decimals: number } | undefined
  /** a durable nonce account (its nonce undefined until initialized) */
  nonce?: { authority: string; nonce: string | undefined } | undefined
  /** a mint of the registry: the token program that owns it, and its decimals */
  mint?: { program: string; decimals: number } | undefined
}

/** a TRON account as the ledger holds it after every accepted transaction, the mempool's included */
export interface TronAccountState {
  balance: bigint
  /** TRX staked for energy by the account itself */
  frozen: bigint
  delegatedOut: bigint
  delegatedIn: bigint
  freeNetUsed: number
  energyUsed: number
  energyLimit: bigint
}

export interface SimulatedNetwork {
  network: string
  blockIntervalMs: number
}

export interface ChainSimulator {
  /** how the service runner's log lines name it */
  readonly name: string
  /** canonical names of the simulated networks */
  readonly networks: readonly string[]
  /** the canonical name of a simulated network, matched ignoring case; undefined if not simulated */
  networkNamed(network: string): string | undefined
  /** the chain of a simulated network, matched ignoring case; undefined if not simulated */
  chainOf(network: string): Chain | undefined
  /** produces blocks on each network's timer; idempotent */
  start(): Promise<void>
  /** stops the timers; idempotent */
  stop(): Promise<void>
  /** resolves once the transfer is durably in the mempool */
  submitTransfer(
    network: string,
    transfer: SimulatedTransfer,
    options?: SubmitOptions,
  ): Promise<{ txHash: string }>
  /**
   * a Solana token account of `owner` for the currency's mint: SPL transfers to it name that owner
   * in the transaction's token balances, as a real node's do; idempotent for the same owner and mint
   */
  openTokenAccount(network: string, request: TokenAccountRequest): Promise<SimulatedTokenAccount>
  /**
   * the token accounts of `owner`, with their mint's decimals: those opened with it, and its
   * associated accounts seen paid (getTokenAccountsByOwner lists both)
   */
  tokenAccountsOf(
    network: string,
    owner: string,
  ): Promise<Array<SimulatedTokenAccount & { decimals: number }>>
  /** resolves once the transaction, with all its transfers, is durably in the mempool */
  submitTransaction(
    network: string,
    transaction: SimulatedTransaction,
    options?: SubmitOptions,
  ): Promise<{ txHash: string }>
  /**
   * Solana: runs a signed wire transaction as a validator does (solana-execution.ts; docs/chains.md,
   * "The simulator as a node for sweeping") and puts it in the mempool; a refusal throws the node's
   * SolanaRpcError and changes nothing. With skipPreflight, one whose instructions fail goes in,
   * failed, its fee charged.
   */
  sendSolanaTransaction(
    network: string,
    wire: Uint8Array,
    options?: SendOptions,
  ): Promise<{ signature: string }>
  /** Solana: simulateTransaction's value for a wire transaction; changes nothing */
  simulateSolanaTransaction(
    network: string,
    wire: Uint8Array,
    options: SimulationOptions,
  ): Promise<Record<string, unknown>>
  /** Solana: getFeeForMessage's value for a base64 message (null for a blockhash no longer valid) */
  solanaFeeForMessage(network: string, messageBase64: string): Promise<bigint | null>
  /** Solana: an account after every accepted transaction, the mempool's included */
  solanaAccount(network: string, address: string): Promise<SolanaAccountState>
  /**
   * TRON: runs a signed transaction (broadcasttransaction's body) as java-tron does
   * (tron-execution.ts; docs/chains.md, "The simulator as a node for sweeping") and puts it in the
   * mempool; a refusal throws the node's TronRefusal and changes nothing
   */
  sendTronTransaction(network: string, body: Record<string, unknown>): Promise<{ txID: string }>
  /** TRON: an account after every accepted transaction; undefined if it does not exist */
  tronAccount(network: string, address: string): Promise<TronAccountState | undefined>
  /**
   * what an address holds of an asset (contract null: TRX or SOL, net of the fees it paid and the
   * TRX it staked; a Solana token: `address` is the token account) after every accepted
   * transaction, the mempool's included: what the node routes answer
   */
  balanceOf(network: string, address: string, contract: string | null): Promise<bigint>
  /** TRON: the decimals of a TRC20 contract the chain knows; undefined for any other contract */
  tronTokenDecimals(network: string, contract: string): number | undefined
  /** the height of the block with this hash; undefined if the chain has none */
  blockHeightOfHash(network: string, hash: string): Promise<number | undefined>
  /** blocks with their transactions as submitted: what node-shaped routes render */
  blockDetails(network: string, fromHeight: number, toHeight: number): Promise<SimulatedBlock[]>
  /** the highest block the simulated chain treats as final (TRON solidified, Solana finalized) */
  finalizedHeight(network: string): Promise<number>
  mineBlocks(network: string, count: number): Promise<ChainHead>
  /**
   * a fork switch: the block holding the transaction and every later one get new hashes, without
   * it; with `requeue` it goes back to the mempool and the next block includes it again (java-tron
   * re-queues popped transactions), else it is gone for good; with `requeue` and `fail` it fails
   * where it is included again (its new fork spent what it moved). False if the tx is unknown.
   */
  dropTransaction(
    network: string,
    txHash: string,
    options?: { requeue?: boolean; fail?: boolean },
  ): Promise<boolean>
  /** the block height holding a transaction, null in the mempool, undefined if unknown */
  transactionHeight(network: string, txHash: string): Promise<number | null | undefined>
  /**
   * a node started from a snapshot: from now on its node routes answer no block below `height`
   * (TRON `{}`), as a java-tron lite full node does
   */
  forgetHistoryBelow(network: string, height: number): void
  /** the lowest height the node routes answer blocks for (1 unless forgetHistoryBelow moved it) */
  firstAvailableHeight(network: string): number
  head(network: string): Promise<ChainHead>
  /**
   * makes the simulated node lack these blocks, as a node that jumped to a recent snapshot or
   * lost them from long-term storage does, while the chain keeps them: Solana's getBlock answers
   * -32009 and getBlocks leaves them out (docs/chains.md, "When a node lacks a block"); an empty list
   * gives them back
   */
  lackBlocks(network: string, heights: readonly number[]): void
  /** whether the simulated node lacks the block at `height` (see lackBlocks) */
  lacksBlock(network: string, height: number): boolean
  /**
   * the chain port over a simulated network; with `reportFinalized` its head carries the simulated
   * finalized height, as the TRON and Solana RPC clients' heads do
   */
  client(network: string, options?: { reportFinalized?: boolean }): ChainClient
}

export interface ChainSimulatorOptions {
  db: DatabaseSync
  registry: AssetRegistry
  networks: SimulatedNetwork[]
  clock?: () => Date
  logger: Logger
  /**
   * mints the simulated Solana chains keep under the Token-2022 program rather than the classic one
   * (PYUSD's kind): how tests show what chainpay makes of such a mint in its registry
   */
  token2022Mints?: readonly string[]
}

export const MAX_ADDRESS_LENGTH = 128
export const SOL_DECIMALS = 9
export const MAX_TRANSFERS_PER_TRANSACTION = 20

export interface RunningNetwork {
  definition: NetworkDefinition
  format: ChainFormat
  blockIntervalMs: number
  timer?: NodeJS.Timeout | undefined
  /** the node routes answer no block below it */
  firstAvailableHeight: number
}

/** what each chain's part of the simulator is given by simulator.ts */
export interface SimulatorCore {
  store: SimulatorStore
  registry: AssetRegistry
  clock: () => Date
  logger: Logger
  running: ReadonlyMap<string, RunningNetwork>
  token2022Mints: readonly string[] | undefined
  /** the running network of that name (any case), or NOT_FOUND */
  simulated(network: string): RunningNetwork
  /** the network's head, its first block produced when it has none */
  headOf(entry: RunningNetwork): ChainHead
  heightOfHash(entry: RunningNetwork, hash: string): number | undefined
  /**
   * transactions held to land ahead of a signed Solana transaction (SubmitOptions.landsAheadOf), by
   * `${network} ${signature}`: each writes its transaction, inside the caller's write transaction
   */
  landsAhead: Map<string, Array<() => void>>
}

/** the key of SimulatorCore.landsAhead */
export function landsAheadKey(network: string, signature: string): string {
  return `${network} ${signature}`
}

export function address(field: string, value: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ADDRESS_LENGTH) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `${field} must be a non-empty address of at most 128 characters`,
    )
  }
  return value
}

export function isSolanaKey(address: string): boolean {
  try {
    return base58.decode(address).length === 32
  } catch {
    return false
  }
}
