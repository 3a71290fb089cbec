// The simulator's Solana blocks as a real node's getBlock renders them: legacy and v0 transactions
// made of system and SPL token transfer instructions, the fee payer's fee, lamport and token
// balances before and after. Everything a simulated transaction does not say (the owners of token
// accounts not opened with one, balances before, lookup table addresses) is derived from its hash,
// so that rendering the same block twice gives the same answer. A signed transaction the simulator
// ran (solana-execution.ts) renders as it was: its own message, fee and balances (solanaRecordText).
import { createHash } from 'node:crypto'
import { formatUnits } from '@chainpay/domain'
import { base58 } from '@scure/base'
// the stored block (what the simulator calls SimulatedBlock), from the store: not through simulator.ts, which imports this file
import type { StoredBlock as SimulatedBlock } from './simulator-store.js'

type StoredTransaction = SimulatedBlock['transactions'][number]
type StoredTransfer = StoredTransaction['transfers'][number]

export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111'
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
/** what every simulated transaction pays: one signature at 5000 lamports */
export const SIMULATED_FEE_LAMPORTS = 5000n

// real balances of those accounts (rent-exempt minimums, the token program's account)
export const TOKEN_ACCOUNT_LAMPORTS = 2_039_280n
export const MINT_LAMPORTS = 1_461_600n
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'
export const COMPUTE_BUDGET_PROGRAM_ID = 'ComputeBudget111111111111111111111111111111'
/** the program accounts' balances: the token program's as on mainnet, builtins' 1 lamport; the
 * simulator gives the ATA program 1 lamport too */
export const PROGRAM_LAMPORTS: Record<string, bigint> = {
  [SYSTEM_PROGRAM_ID]: 1n,
  [TOKEN_PROGRAM_ID]: 934_087_680n,
  [ASSOCIATED_TOKEN_PROGRAM_ID]: 1n,
  [COMPUTE_BUDGET_PROGRAM_ID]: 1n,
}
const COMPUTE_UNITS_PER_INSTRUCTION = 200_000
const MAX_COMPUTE_UNITS = 1_400_000

/** a JSON-RPC error as the node sends it */
export class SolanaRpcError extends Error {
  readonly code: number
  readonly data: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'SolanaRpcError'
    this.code = code
    this.data = data
  }
}

export type BlockEncoding = 'json' | 'jsonParsed'
export type TransactionDetails = 'full' | 'accounts' | 'signatures' | 'none'

export interface BlockRenderOptions {
  encoding: BlockEncoding
  transactionDetails: TransactionDetails
  rewards: boolean
  maxSupportedTransactionVersion: number | undefined
}

type Json = Record<string, unknown>

export interface AccountKey {
  pubkey: string
  signer: boolean
  writable: boolean
  source: 'transaction' | 'lookupTable'
}

/** an instruction as blocks render it; one the node cannot parse renders its raw accounts and data */
export interface RenderedInstruction {
  programId: string
  accounts: string[]
  data: Uint8Array
  program?: string | undefined
  parsed?: { type: string; info: Json } | undefined
}

interface Instruction extends RenderedInstruction {
  program: 'system' | 'spl-token'
  parsed: { type: string; info: Json }
  /** the log lines of a successful run, and of a failed one */
  logs: { success: string[]; failure: string[] }
  computeUnits: number
}

interface TokenAccount {
  mint: string
  owner: string
  decimals: number
  before: bigint
  sent: bigint
  received: bigint
}

/** one simulated transaction in the node's terms, before it is encoded */
export interface SolanaTransaction {
  signature: string
  /** every signature of a signed transaction (the simulated ones carry one) */
  signatures?: string[] | undefined
  /** the message header of a signed transaction (a simulated one has a single signer) */
  header?: MessageHeader | undefined
  version: 0 | 'legacy'
  /** static keys, then the keys loaded from the lookup table */
  keys: AccountKey[]
  staticKeyCount: number
  readonlyUnsignedCount: number
  lookupTable: string | undefined
  instructions: RenderedInstruction[]
  recentBlockhash: string
  err: Json | null
  fee: bigint
  preBalances: bigint[]
  postBalances: bigint[]
  preTokenBalances: Json[]
  postTokenBalances: Json[]
  logMessages: string[]
  computeUnitsConsumed: number
}

export interface MessageHeader {
  numRequiredSignatures: number
  numReadonlySignedAccounts: number
  numReadonlyUnsignedAccounts: number
}

/** the getBlock result for one simulated block */
export function renderSolanaBlock(block: SimulatedBlock, options: BlockRenderOptions): Json {
  const rendered: Json = {
    blockHeight: block.height,
    blockTime: Math.floor(Date.parse(block.time) / 1000),
    blockhash: block.hash,
    parentSlot: block.height - 1,
    previousBlockhash: block.parentHash,
  }
  if (options.rewards) rendered.rewards = []
  const { transactionDetails } = options
  if (transactionDetails === 'none') return rendered
  const transactions = simulatedSolanaTransactions(block)
  if (transactionDetails === 'signatures') {
    rendered.signatures = transactions.map((transaction) => transaction.signature)
    return rendered
  }
  for (const transaction of transactions) assertVersionSupported(transaction, options)
  rendered.transactions = transactions.map((transaction) =>
    transactionDetails === 'accounts'
      ? accountsModeTransaction(transaction, options)
      : fullTransaction(transaction, options),
  )
  return rendered
}

/**
 * The position of a transaction in its block decides its form: every second one is a v0
 * transaction whose receiving keys come from an address lookup table and whose token transfers
 * are `transferChecked`; the others are legacy transactions with plain `transfer`s.
 */
export function simulatedSolanaVersion(position: number): 0 | 'legacy' {
  return position % 2 === 1 ? 0 : 'legacy'
}

/** a block's transactions in the node's terms, in block order */
export function simulatedSolanaTransactions(block: SimulatedBlock): SolanaTransaction[] {
  return block.transactions.map((transaction, position) =>
    transaction.solanaRecord === undefined
      ? solanaTransaction(transaction, position, block.parentHash)
      : parseSolanaRecord(transaction.solanaRecord),
  )
}

/** the getTransaction result for one transaction of `block` */
export function renderSolanaTransaction(
  block: SimulatedBlock,
  transaction: SolanaTransaction,
  options: Omit<BlockRenderOptions, 'transactionDetails' | 'rewards'>,
): Json {
  assertVersionSupported(transaction, options)
  return {
    blockTime: Math.floor(Date.parse(block.time) / 1000),
    slot: block.height,
    ...fullTransaction(transaction, { ...options, transactionDetails: 'full', rewards: true }),
  }
}

function assertVersionSupported(
  transaction: SolanaTransaction,
  options: Pick<BlockRenderOptions, 'maxSupportedTransactionVersion'>,
): void {
  if (transaction.version === 'legacy') return
  if (options.maxSupportedTransactionVersion !== undefined && options.maxSupportedTransactionVersion >= 0)
    return
  throw new SolanaRpcError(
    -32015,
    'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
  )
}

function fullTransaction(transaction: SolanaTransaction, options: BlockRenderOptions): Json {
  const parsed = options.encoding === 'jsonParsed'
  const meta: Json = {
    computeUnitsConsumed: transaction.computeUnitsConsumed,
    err: transaction.err,
    fee: transaction.fee,
    innerInstructions: [],
    logMessages: transaction.logMessages,
    postBalances: transaction.postBalances,
    postTokenBalances: transaction.postTokenBalances,
    preBalances: transaction.preBalances,
    preTokenBalances: transaction.preTokenBalances,
    status: statusOf(transaction),
  }
  // jsonParsed lists lookup table keys in accountKeys; json leaves them to loadedAddresses
  if (!parsed) {
    meta.loadedAddresses = {
      readonly: [],
      writable: transaction.keys.slice(transaction.staticKeyCount).map((key) => key.pubkey),
    }
  }
  if (options.rewards) meta.rewards = []
  const message = parsed ? parsedMessage(transaction) : rawMessage(transaction)
  return withVersion(
    { meta, transaction: { message, signatures: signaturesOf(transaction) } },
    transaction,
    options,
  )
}

function accountsModeTransaction(transaction: SolanaTransaction, options: BlockRenderOptions): Json {
  return withVersion(
    {
      meta: {
        err: transaction.err,
        fee: transaction.fee,
        postBalances: transaction.postBalances,
        postTokenBalances: transaction.postTokenBalances,
        preBalances: transaction.preBalances,
        preTokenBalances: transaction.preTokenBalances,
        status: statusOf(transaction),
      },
      transaction: { accountKeys: transaction.keys, signatures: signaturesOf(transaction) },
    },
    transaction,
    options,
  )
}

/** a node names versions only to a client that said which ones it supports */
function withVersion(rendered: Json, transaction: SolanaTransaction, options: BlockRenderOptions): Json {
  return options.maxSupportedTransactionVersion === undefined
    ? rendered
    : { ...rendered, version: transaction.version }
}

function signaturesOf(transaction: SolanaTransaction): string[] {
  return transaction.signatures ?? [transaction.signature]
}

function statusOf(transaction: SolanaTransaction): Json {
  return transaction.err === null ? { Ok: null } : { Err: transaction.err }
}

function parsedMessage(transaction: SolanaTransaction): Json {
  const message: Json = {
    accountKeys: transaction.keys,
    instructions: transaction.instructions.map((instruction) =>
      instruction.parsed === undefined
        ? {
            accounts: instruction.accounts,
            data: base58.encode(instruction.data),
            programId: instruction.programId,
            stackHeight: null,
          }
        : {
            parsed: instruction.parsed,
            program: instruction.program,
            programId: instruction.programId,
            stackHeight: null,
          },
    ),
    recentBlockhash: transaction.recentBlockhash,
  }
  if (transaction.version === 0) message.addressTableLookups = lookups(transaction)
  return message
}

function rawMessage(transaction: SolanaTransaction): Json {
  const index = new Map(transaction.keys.map((key, position) => [key.pubkey, position]))
  const indexOf = (pubkey: string) => index.get(pubkey) as number
  const message: Json = {
    accountKeys: transaction.keys.slice(0, transaction.staticKeyCount).map((key) => key.pubkey),
    header: transaction.header ?? {
      numReadonlySignedAccounts: 0,
      numReadonlyUnsignedAccounts: transaction.readonlyUnsignedCount,
      numRequiredSignatures: 1,
    },
    instructions: transaction.instructions.map((instruction) => ({
      accounts: instruction.accounts.map(indexOf),
      data: base58.encode(instruction.data),
      programIdIndex: indexOf(instruction.programId),
      stackHeight: null,
    })),
    recentBlockhash: transaction.recentBlockhash,
  }
  if (transaction.version === 0) message.addressTableLookups = lookups(transaction)
  return message
}

function lookups(transaction: SolanaTransaction): Json[] {
  const loaded = transaction.keys.length - transaction.staticKeyCount
  if (transaction.lookupTable === undefined || loaded === 0) return []
  return [
    {
      accountKey: transaction.lookupTable,
      readonlyIndexes: [],
      writableIndexes: Array.from({ length: loaded }, (_, position) => position),
    },
  ]
}

//////// One transaction

function solanaTransaction(
  stored: StoredTransaction,
  position: number,
  recentBlockhash: string,
): SolanaTransaction {
  const version = simulatedSolanaVersion(position)
  const payer = stored.from
  const succeeded = stored.failure === null
  const tokenAccounts = new Map<string, TokenAccount>()
  const placed = new Set([payer])
  const writable: string[] = []
  const readonly: string[] = []
  const loaded: string[] = []
  const place = (list: string[], key: string) => {
    if (placed.has(key)) return
    placed.add(key)
    list.push(key)
  }
  const receivers = version === 0 ? loaded : writable

  const instructions = stored.transfers.map((transfer) => {
    if (transfer.contract === null) {
      place(receivers, transfer.to)
      place(readonly, SYSTEM_PROGRAM_ID)
      return systemTransfer(payer, transfer)
    }
    const mint = transfer.contract
    const source = derivedKey('token-account', payer, mint)
    const amount = BigInt(transfer.amountUnits)
    tokenAccount(tokenAccounts, source, mint, payer, transfer.decimals, stored.txHash).sent += amount
    // an account opened with a given owner (ChainSimulator.openTokenAccount) for its mint; any
    // other stands for an account of some stranger
    const opened = transfer.tokenAccount !== undefined && transfer.tokenAccount.mint === mint
    const owner = opened ? (transfer.tokenAccount?.owner as string) : standInTokenOwner(transfer.to)
    tokenAccount(
      tokenAccounts,
      transfer.to,
      mint,
      owner,
      transfer.decimals,
      stored.txHash,
      opened,
    ).received += amount
    place(writable, source)
    place(receivers, transfer.to)
    if (version === 0) place(readonly, mint)
    place(readonly, TOKEN_PROGRAM_ID)
    return tokenTransfer(payer, source, transfer, version === 0)
  })

  const keys: AccountKey[] = [
    { pubkey: payer, signer: true, writable: true, source: 'transaction' },
    ...writable.map(
      (pubkey): AccountKey => ({ pubkey, signer: false, writable: true, source: 'transaction' }),
    ),
    ...readonly.map(
      (pubkey): AccountKey => ({ pubkey, signer: false, writable: false, source: 'transaction' }),
    ),
    ...loaded.map((pubkey): AccountKey => ({ pubkey, signer: false, writable: true, source: 'lookupTable' })),
  ]
  // a token account paid lamports in the transaction is opened by it (a wallet paying an owner,
  // ChainSimulator's asWallet): it held nothing before, and its pre token balance is absent
  const openedHere = new Set(
    stored.transfers.filter((t) => t.contract === null && tokenAccounts.has(t.to)).map((t) => t.to),
  )
  const lamports = lamportsBefore(keys, stored, tokenAccounts, openedHere)
  const after = new Map(lamports)
  const credit = (key: string, delta: bigint) => after.set(key, (after.get(key) ?? 0n) + delta)
  credit(payer, -SIMULATED_FEE_LAMPORTS)
  if (succeeded) {
    for (const transfer of stored.transfers) {
      if (transfer.contract !== null) continue
      credit(payer, -BigInt(transfer.amountUnits))
      credit(transfer.to, BigInt(transfer.amountUnits))
    }
  }
  const run = execute(instructions, succeeded)
  return {
    signature: stored.txHash,
    version,
    keys,
    staticKeyCount: keys.length - loaded.length,
    readonlyUnsignedCount: readonly.length,
    lookupTable: version === 0 ? derivedKey('lookup-table', payer) : undefined,
    instructions,
    recentBlockhash,
    err: succeeded ? null : { InstructionError: [0, { Custom: 1 }] },
    fee: SIMULATED_FEE_LAMPORTS,
    preBalances: keys.map((key) => lamports.get(key.pubkey) ?? 0n),
    postBalances: keys.map((key) => after.get(key.pubkey) ?? 0n),
    preTokenBalances: tokenBalances(keys, tokenAccounts, () => 0n, openedHere),
    postTokenBalances: tokenBalances(keys, tokenAccounts, (account) =>
      succeeded ? account.received - account.sent : 0n,
    ),
    logMessages: run.logs,
    computeUnitsConsumed: run.computeUnits,
  }
}

function tokenAccount(
  accounts: Map<string, TokenAccount>,
  key: string,
  mint: string,
  owner: string,
  decimals: number,
  txHash: string,
  /** an account opened with its owner (openTokenAccount): it starts empty, as the ledger has it */
  opened = false,
): TokenAccount {
  const known = accounts.get(key)
  if (known) return known
  // a stranger's receiving account may hold an earlier balance; one opened with its owner starts
  // empty, so that its first payment shows what the ledger (getAccountInfo,
  // getTokenAccountsByOwner) holds; a second payment to it shows its own amount only
  const seed = pseudoRandom('token-balance', txHash, key)
  const account = {
    mint,
    owner,
    decimals,
    before: opened || seed % 3n === 0n ? 0n : seed % 10n ** 12n,
    sent: 0n,
    received: 0n,
  }
  accounts.set(key, account)
  return account
}

function lamportsBefore(
  keys: AccountKey[],
  stored: StoredTransaction,
  tokenAccounts: Map<string, TokenAccount>,
  openedHere: ReadonlySet<string>,
): Map<string, bigint> {
  const payer = stored.from
  const nativeSent = stored.transfers
    .filter((transfer) => transfer.contract === null)
    .reduce((sum, transfer) => sum + BigInt(transfer.amountUnits), 0n)
  const mints = new Set([...tokenAccounts.values()].map((account) => account.mint))
  const lamports = new Map<string, bigint>()
  for (const { pubkey } of keys) {
    let balance: bigint
    if (pubkey === payer) {
      // enough for the fee and every lamport sent, and 1 to 10 SOL more
      balance =
        nativeSent +
        SIMULATED_FEE_LAMPORTS +
        10n ** 9n +
        (pseudoRandom('payer', stored.txHash) % (9n * 10n ** 9n))
    } else if (PROGRAM_LAMPORTS[pubkey] !== undefined) balance = PROGRAM_LAMPORTS[pubkey]
    else if (tokenAccounts.has(pubkey)) balance = openedHere.has(pubkey) ? 0n : TOKEN_ACCOUNT_LAMPORTS
    else if (mints.has(pubkey)) balance = MINT_LAMPORTS
    else {
      const seed = pseudoRandom('lamports', stored.txHash, pubkey)
      balance = seed % 2n === 0n ? 0n : seed % (5n * 10n ** 9n)
    }
    lamports.set(pubkey, balance)
  }
  return lamports
}

function tokenBalances(
  keys: AccountKey[],
  accounts: Map<string, TokenAccount>,
  change: (account: TokenAccount) => bigint,
  /** accounts that were no token accounts yet (opened by the transaction) */
  absent: ReadonlySet<string> = new Set(),
): Json[] {
  const balances: Json[] = []
  for (const [accountIndex, { pubkey }] of keys.entries()) {
    const account = accounts.get(pubkey)
    if (account === undefined || absent.has(pubkey)) continue
    // a sender's account holds at least what it sends
    const before = account.before + account.sent
    balances.push({
      accountIndex,
      mint: account.mint,
      owner: account.owner,
      programId: TOKEN_PROGRAM_ID,
      uiTokenAmount: uiTokenAmount(before + change(account), account.decimals),
    })
  }
  return balances
}

export function uiTokenAmount(amount: bigint, decimals: number): Json {
  const text = formatUnits(amount, decimals)
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: amount === 0n ? null : Number(text),
    uiAmountString: text,
  }
}

//////// Instructions

function systemTransfer(payer: string, transfer: StoredTransfer): Instruction {
  const lamports = BigInt(transfer.amountUnits)
  // SystemInstruction::Transfer: u32 discriminator 2, u64 lamports, little-endian
  const data = new Uint8Array(12)
  const view = new DataView(data.buffer)
  view.setUint32(0, 2, true)
  view.setBigUint64(4, lamports, true)
  const program = `Program ${SYSTEM_PROGRAM_ID}`
  return {
    programId: SYSTEM_PROGRAM_ID,
    program: 'system',
    accounts: [payer, transfer.to],
    data,
    parsed: { info: { destination: transfer.to, lamports, source: payer }, type: 'transfer' },
    logs: {
      success: [`${program} invoke [1]`, `${program} success`],
      failure: [
        `${program} invoke [1]`,
        `Transfer: insufficient lamports 0, need ${lamports}`,
        `${program} failed: custom program error: 0x1`,
      ],
    },
    computeUnits: 150,
  }
}

function tokenTransfer(
  payer: string,
  source: string,
  transfer: StoredTransfer,
  checked: boolean,
): Instruction {
  const amount = BigInt(transfer.amountUnits)
  const mint = transfer.contract as string
  // TokenInstruction::Transfer (3) / TransferChecked (12): u8 tag, u64 amount, [u8 decimals]
  const data = new Uint8Array(checked ? 10 : 9)
  const view = new DataView(data.buffer)
  view.setUint8(0, checked ? 12 : 3)
  view.setBigUint64(1, amount, true)
  if (checked) view.setUint8(9, transfer.decimals)
  const program = `Program ${TOKEN_PROGRAM_ID}`
  const name = checked ? 'TransferChecked' : 'Transfer'
  const computeUnits = checked ? 6_200 : 4_644
  const parsed = checked
    ? {
        info: {
          authority: payer,
          destination: transfer.to,
          mint,
          source,
          tokenAmount: uiTokenAmount(amount, transfer.decimals),
        },
        type: 'transferChecked',
      }
    : {
        info: { amount: amount.toString(), authority: payer, destination: transfer.to, source },
        type: 'transfer',
      }
  return {
    programId: TOKEN_PROGRAM_ID,
    program: 'spl-token',
    accounts: checked ? [source, mint, transfer.to, payer] : [source, transfer.to, payer],
    data,
    parsed,
    logs: {
      success: [`${program} invoke [1]`, `Program log: Instruction: ${name}`, `${program} success`],
      failure: [
        `${program} invoke [1]`,
        `Program log: Instruction: ${name}`,
        'Program log: Error: insufficient funds',
        `${program} failed: custom program error: 0x1`,
      ],
    },
    computeUnits,
  }
}

/** the log lines and compute units of running the instructions; a failed run stops at the first */
function execute(instructions: Instruction[], succeeded: boolean): { logs: string[]; computeUnits: number } {
  let budget = Math.min(MAX_COMPUTE_UNITS, COMPUTE_UNITS_PER_INSTRUCTION * instructions.length)
  let consumed = 0
  const logs: string[] = []
  for (const instruction of instructions) {
    const lines = succeeded ? instruction.logs.success : instruction.logs.failure
    const usage = `Program ${instruction.programId} consumed ${instruction.computeUnits} of ${budget} compute units`
    // the token program reports its usage before its last line; the system program does not
    if (instruction.program === 'spl-token') logs.push(...lines.slice(0, -1), usage, ...lines.slice(-1))
    else logs.push(...lines)
    consumed += instruction.computeUnits
    budget -= instruction.computeUnits
    if (!succeeded) break
  }
  return { logs, computeUnits: consumed }
}

/**
 * JSON with u64 values (bigint) written as the exact integers a node writes; the u64 maximum, a
 * rent-exempt account's rentEpoch, included
 */
export function nodeJson(value: unknown): string {
  const marked = JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? `${U64_MARK}${item}` : item,
  )
  return marked.replace(U64_PATTERN, '$1')
}

const U64_MARK = '\u0000u64:'
const U64_PATTERN = /"\\u0000u64:(-?\d+)"/g

//////// Signed transactions

/** a signed transaction as the ledger keeps it: JSON with u64 values and bytes tagged */
export function solanaRecordText(transaction: SolanaTransaction): string {
  return JSON.stringify(transaction, (_key, item: unknown) => {
    if (typeof item === 'bigint') return { $u64: item.toString() }
    if (item instanceof Uint8Array) return { $bytes: base58.encode(item) }
    return item
  })
}

/** a failed signed transaction's error, as its record (and so its block) has it */
export function solanaRecordErr(text: string): SolanaTransaction['err'] {
  return parseSolanaRecord(text).err
}

function parseSolanaRecord(text: string): SolanaTransaction {
  return JSON.parse(text, (_key, item: unknown) => {
    if (typeof item !== 'object' || item === null) return item
    if ('$u64' in item) return BigInt(item.$u64 as string)
    if ('$bytes' in item) return base58.decode(item.$bytes as string)
    return item
  }) as SolanaTransaction
}

//////// Derived values

/** the owner blocks show for a token account the simulator never saw opened with one */
export function standInTokenOwner(address: string): string {
  return derivedKey('owner', address)
}

/** a well-formed 32-byte key that stands for an account the simulated transaction does not name */
function derivedKey(...parts: string[]): string {
  return base58.encode(createHash('sha256').update(parts.join('\u0000')).digest())
}

function pseudoRandom(...parts: string[]): bigint {
  return createHash('sha256').update(parts.join('\u0000')).digest().readBigUInt64BE(0)
}
