// The Solana ledger as the executor sees it (solana-execution.ts, solana-instructions.ts): what it
// reads of the simulator's store, the accounts a transaction works on, and the numbers of the
// default cluster (docs/chains.md, "The simulator as a node for sweeping").
import { createHash } from 'node:crypto'
import { base58 } from '@scure/base'

/** the fee of one signature on every cluster */
export const LAMPORTS_PER_SIGNATURE = 5000n
/** the rent-exempt minimum of an account without data: (128 + 0) bytes x 3,480 x 2 years */
export const SYSTEM_ACCOUNT_RENT_EXEMPT = 890_880n
/** a nonce account's data: version, state, authority, nonce, lamports per signature */
export const NONCE_ACCOUNT_SPACE = 80
/** the rent-exempt minimum of a nonce account: (128 + 80) bytes x 3,480 x 2 years */
export const NONCE_ACCOUNT_LAMPORTS = 1_447_680n
/** a blockhash is usable while the head is at most this many blocks above it (MAX_PROCESSING_AGE) */
export const BLOCKHASH_VALIDITY = 150
/** the largest wire transaction (PACKET_DATA_SIZE) */
export const MAX_TRANSACTION_BYTES = 1232
/** what the executor reads of the ledger: the state after every accepted transaction, mempool included */
export interface SolanaLedgerView {
  headHeight: number
  /** the head block's hash: what an advanced durable nonce derives from */
  headHash: string
  /** the height of the block whose hash this is; undefined if the node never issued it */
  blockhashHeight(blockhash: string): number | undefined
  /** whether a transaction with this signature was accepted before */
  processed(signature: string): boolean
  lamports(address: string): bigint
  /** an open SPL token account */
  tokenAccount(address: string): LedgerTokenAccount | undefined
  /** the decimals of a mint the network knows; undefined for any other address */
  mintDecimals(mint: string): number | undefined
  /** a durable nonce account */
  nonceAccount(address: string): LedgerNonceAccount | undefined
  /**
   * tokens an address that is no open token account received from outside (a payment to a token
   * account the simulator never saw opened): the mint and amount held, 0 once emptied (it exists
   * until closed); undefined for one closed since that holds nothing
   */
  unopenedTokenHolding(address: string): { mint: string; amount: bigint } | undefined
}

/** a durable nonce account: its authority and nonce (undefined until initialized) */
export interface LedgerNonceAccount {
  authority: string
  nonce: string | undefined
}

export interface LedgerTokenAccount {
  mint: string
  owner: string
  amount: bigint
}

/** a movement the ledger records: lamports (contract null) or tokens between token accounts */
export interface LedgerTransfer {
  from: string
  to: string
  contract: string | null
  amountUnits: bigint
  decimals: number
}

/** a refusal of the node's preflight: -32002 "Transaction simulation failed: ..." */
export class Refusal extends Error {
  constructor(
    readonly err: unknown,
    readonly description: string,
    readonly logs: string[] = [],
  ) {
    super(description)
  }
}

export interface WorkingAccount {
  lamports: bigint
  token: LedgerTokenAccount | undefined
  nonce: LedgerNonceAccount | undefined
  /** the token account did not exist before the transaction */
  opened: boolean
  /** an associated token account the ledger had only seen paid: opened from outside, as a payer's wallet does */
  adopted?: boolean
}

/** an instruction with its keys resolved */
export interface Compiled {
  programId: string
  accounts: string[]
  data: Uint8Array
}

/** the durable nonce an advance stores: sha256("DURABLE_NONCE" || blockhash), as the runtime derives it */
export function durableNonceOf(blockhash: string): string {
  return base58.encode(sha256(Buffer.concat([Buffer.from('DURABLE_NONCE'), base58.decode(blockhash)])))
}

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest())
}
