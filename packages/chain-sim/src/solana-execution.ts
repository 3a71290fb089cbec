// What a Solana validator does with a signed transaction, for the instructions a sweep uses
// (docs/chains.md, "The simulator as a node for sweeping"): sanitize, verify every signature, check
// the recent blockhash and the status cache, charge the fee payer, run System transfer, SPL Token
// transfer / transferChecked / closeAccount, Associated Token Account create / createIdempotent and
// ComputeBudget, then apply the rent rules. A refusal is the error the node's preflight answers.
import { createHash } from 'node:crypto'
import { ed25519 } from '@noble/curves/ed25519.js'
import { base58 } from '@scure/base'
import { PublicKey, VersionedMessage } from '@solana/web3.js'
import {
  type AccountKey,
  ASSOCIATED_TOKEN_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  MINT_LAMPORTS,
  PROGRAM_LAMPORTS,
  type RenderedInstruction,
  SolanaRpcError,
  type SolanaTransaction,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_LAMPORTS,
  TOKEN_PROGRAM_ID,
  uiTokenAmount,
} from './solana-rpc-blocks.js'

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
const SYSVAR_RECENT_BLOCKHASHES = 'SysvarRecentB1ockHashes11111111111111111111'
const DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION = 200_000n
const MAX_COMPUTE_UNITS = 1_400_000n
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n

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

export interface ExecutedSolanaTransaction {
  signature: string
  payer: string
  fee: bigint
  transfers: LedgerTransfer[]
  opened: Array<{ address: string; owner: string; mint: string }>
  closed: string[]
  /** nonce accounts the transaction created or advanced, as they are after it */
  nonces: Array<{ address: string } & LedgerNonceAccount>
  /** how blocks and getTransaction render it */
  rendered: SolanaTransaction
}

/** a refusal of the node's preflight: -32002 "Transaction simulation failed: ..." */
class Refusal extends Error {
  constructor(
    readonly err: unknown,
    readonly description: string,
    readonly logs: string[] = [],
  ) {
    super(description)
  }
}

interface WorkingAccount {
  lamports: bigint
  token: LedgerTokenAccount | undefined
  nonce: LedgerNonceAccount | undefined
  /** the token account did not exist before the transaction */
  opened: boolean
}

/** a blockhash the node issued at `issuedHeight` is usable up to 150 blocks above it */
export function blockhashIsRecent(issuedHeight: number | undefined, headHeight: number): boolean {
  return issuedHeight !== undefined && headHeight <= issuedHeight + BLOCKHASH_VALIDITY
}

/** decodes the wire bytes; the node's -32602 answers for bytes that are no transaction */
export function decodeWireTransaction(wire: string, encoding: unknown): Uint8Array {
  if (encoding !== undefined && encoding !== 'base58' && encoding !== 'base64') {
    throw new SolanaRpcError(
      -32602,
      `Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`,
    )
  }
  const base = encoding === 'base64' ? 'base64' : 'base58'
  let bytes: Uint8Array
  try {
    bytes =
      base === 'base64' ? Uint8Array.from(Buffer.from(strictBase64(wire), 'base64')) : base58.decode(wire)
  } catch (error) {
    throw new SolanaRpcError(-32602, `invalid ${base} encoding: ${(error as Error).message}`)
  }
  if (bytes.length > MAX_TRANSACTION_BYTES) {
    throw new SolanaRpcError(
      -32602,
      `${base} encoded solana_transaction::versioned::VersionedTransaction too large: ${wire.length} bytes (max: encoded/raw ${base === 'base64' ? 1644 : 1683}/${MAX_TRANSACTION_BYTES})`,
    )
  }
  return bytes
}

function strictBase64(text: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new Error('Invalid byte')
  return text
}

/**
 * runs a signed transaction against the ledger; throws the node's SolanaRpcError when it refuses it
 * (nothing is charged then, as a preflight refusal charges nothing)
 */
export function executeSolanaTransaction(
  wire: Uint8Array,
  ledger: SolanaLedgerView,
): ExecutedSolanaTransaction {
  const { transaction, keys } = sanitized(wire)
  if (!signaturesVerify(transaction)) {
    throw new SolanaRpcError(-32003, 'Transaction signature verification failure')
  }
  try {
    return evaluate(transaction, keys, ledger, { checkBlockhash: true })
  } catch (error) {
    if (!(error instanceof Refusal)) throw error
    throw new SolanaRpcError(-32002, `Transaction simulation failed: ${error.description}`, {
      accounts: null,
      err: error.err,
      innerInstructions: null,
      logs: error.logs,
      replacementBlockhash: null,
      returnData: null,
      unitsConsumed: 0,
    })
  }
}

export interface SimulationOptions {
  sigVerify: boolean
  /** run it as if its recent blockhash were the head's */
  replaceRecentBlockhash: boolean
}

/** simulateTransaction's value: what sending would do, without doing it */
export function simulateSolanaTransaction(
  wire: Uint8Array,
  ledger: SolanaLedgerView,
  options: SimulationOptions,
): Record<string, unknown> {
  if (options.sigVerify && options.replaceRecentBlockhash) {
    throw new SolanaRpcError(-32602, 'sigVerify may not be used with replaceRecentBlockhash')
  }
  const { transaction, keys } = sanitized(wire)
  if (options.sigVerify && !signaturesVerify(transaction)) {
    throw new SolanaRpcError(-32003, 'Transaction signature verification failure')
  }
  const replacementBlockhash = options.replaceRecentBlockhash
    ? { blockhash: ledger.headHash, lastValidBlockHeight: ledger.headHeight + BLOCKHASH_VALIDITY }
    : null
  const value = {
    accounts: null,
    innerInstructions: null,
    replacementBlockhash,
    returnData: null,
  }
  try {
    const executed = evaluate(transaction, keys, ledger, { checkBlockhash: !options.replaceRecentBlockhash })
    const { logMessages, computeUnitsConsumed } = executed.rendered
    return { ...value, err: null, fee: executed.fee, logs: logMessages, unitsConsumed: computeUnitsConsumed }
  } catch (error) {
    if (!(error instanceof Refusal)) throw error
    return { ...value, err: error.err, fee: null, logs: error.logs, unitsConsumed: 0 }
  }
}

/** the node's sanitize step: as many signatures as the header requires, no key twice */
function sanitized(wire: Uint8Array): { transaction: WireTransaction; keys: string[] } {
  const transaction = deserialize(wire)
  const { header } = transaction.message
  const keys = transaction.message.staticAccountKeys.map((key) => key.toBase58())
  if (
    transaction.signatures.length !== header.numRequiredSignatures ||
    keys.length < header.numRequiredSignatures ||
    new Set(keys).size !== keys.length
  ) {
    throw new SolanaRpcError(
      -32602,
      'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
    )
  }
  return { transaction, keys }
}

/** every signature verifies over the message bytes with its key (ed25519) */
function signaturesVerify({ signatures, message }: WireTransaction): boolean {
  const signed = message.serialize()
  return signatures.every((signature, index) =>
    verifies(signature, signed, message.staticAccountKeys[index] as PublicKey),
  )
}

/** the bank's checks, then the run; a Refusal says why not */
function evaluate(
  transaction: WireTransaction,
  keys: string[],
  ledger: SolanaLedgerView,
  options: { checkBlockhash: boolean },
): ExecutedSolanaTransaction {
  const { message } = transaction
  const signature = base58.encode(transaction.signatures[0] as Uint8Array)
  if (message.addressTableLookups.length > 0) {
    throw new Refusal(
      'AddressLookupTableNotFound',
      "Transaction loads an address table account that doesn't exist",
    )
  }
  if (options.checkBlockhash) {
    const recent = blockhashIsRecent(ledger.blockhashHeight(message.recentBlockhash), ledger.headHeight)
    if (!recent && !usesDurableNonce(message, keys, ledger)) {
      throw new Refusal('BlockhashNotFound', 'Blockhash not found')
    }
  }
  if (ledger.processed(signature)) {
    throw new Refusal('AlreadyProcessed', 'This transaction has already been processed')
  }
  return run(transaction, keys, signature, ledger)
}

interface WireTransaction {
  signatures: Uint8Array[]
  message: VersionedMessage
}

/** the signatures (a compact-u16 count, 64 bytes each) and the message after them */
function deserialize(wire: Uint8Array): WireTransaction {
  try {
    let count = 0
    let offset = 0
    for (let shift = 0; ; shift += 7) {
      const byte = wire[offset] as number
      if (byte === undefined || shift > 14) throw new Error('invalid compact-u16')
      offset += 1
      count |= (byte & 0x7f) << shift
      if ((byte & 0x80) === 0) break
    }
    const signatures: Uint8Array[] = []
    for (let index = 0; index < count; index += 1) {
      const signature = wire.slice(offset, offset + 64)
      if (signature.length !== 64) throw new Error('io error: unexpected end of file')
      signatures.push(signature)
      offset += 64
    }
    return { signatures, message: VersionedMessage.deserialize(wire.slice(offset)) }
  } catch (error) {
    throw new SolanaRpcError(
      -32602,
      `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${(error as Error).message}`,
    )
  }
}

/**
 * a durable nonce transaction: its first instruction is the System program's AdvanceNonceAccount
 * of a nonce account whose nonce is the message's recent blockhash
 */
function usesDurableNonce(message: VersionedMessage, keys: string[], ledger: SolanaLedgerView): boolean {
  const [first] = message.compiledInstructions
  if (first === undefined || keys[first.programIdIndex] !== SYSTEM_PROGRAM_ID) return false
  if (systemTag(first.data) !== ADVANCE_NONCE) return false
  const nonceKey = keys[first.accountKeyIndexes[0] ?? -1]
  return nonceKey !== undefined && ledger.nonceAccount(nonceKey)?.nonce === message.recentBlockhash
}

/** the durable nonce an advance stores: sha256("DURABLE_NONCE" || blockhash), as the runtime derives it */
export function durableNonceOf(blockhash: string): string {
  return base58.encode(sha256(Buffer.concat([Buffer.from('DURABLE_NONCE'), base58.decode(blockhash)])))
}

function verifies(signature: Uint8Array, message: Uint8Array, key: PublicKey): boolean {
  try {
    return ed25519.verify(signature, message, key.toBytes())
  } catch {
    return false
  }
}

interface Compiled {
  programId: string
  accounts: string[]
  data: Uint8Array
}

function run(
  transaction: WireTransaction,
  keys: string[],
  signature: string,
  ledger: SolanaLedgerView,
): ExecutedSolanaTransaction {
  const { message } = transaction
  const { header } = message
  const signers = new Set(keys.slice(0, header.numRequiredSignatures))
  const writable = (index: number) =>
    index < header.numRequiredSignatures
      ? index < header.numRequiredSignatures - header.numReadonlySignedAccounts
      : index < keys.length - header.numReadonlyUnsignedAccounts
  const compiled: Compiled[] = message.compiledInstructions.map((instruction) => ({
    programId: keys[instruction.programIdIndex] as string,
    accounts: instruction.accountKeyIndexes.map((index) => keys[index] as string),
    // a copy: a legacy message's data is a Buffer, which JSON would not render as bytes
    data: Uint8Array.from(instruction.data),
  }))
  const payer = keys[0] as string
  const fee = feeOf(header.numRequiredSignatures, compiled)

  const before = new Map<string, WorkingAccount>()
  for (const key of keys) {
    // programs and mints hold what they hold on mainnet; the ledger keeps no state of theirs
    const fixed =
      PROGRAM_LAMPORTS[key] ?? (ledger.mintDecimals(key) === undefined ? undefined : MINT_LAMPORTS)
    const lamports = fixed ?? ledger.lamports(key)
    before.set(key, {
      lamports,
      token: ledger.tokenAccount(key),
      nonce: ledger.nonceAccount(key),
      opened: false,
    })
  }
  const state = new Map(
    [...before].map(([key, { lamports, token, nonce }]) => [
      key,
      { lamports, token: token && { ...token }, nonce: nonce && { ...nonce }, opened: false },
    ]),
  )
  const account = (key: string) => state.get(key) as WorkingAccount

  // the fee payer: a system account holding the fee, left empty or rent-exempt
  const paying = account(payer)
  if (paying.lamports === 0n && paying.token === undefined) {
    throw new Refusal('AccountNotFound', 'Attempt to debit an account but found no record of a prior credit.')
  }
  if (paying.token !== undefined || paying.nonce !== undefined) {
    throw new Refusal('InvalidAccountForFee', 'This account may not be used to pay transaction fees')
  }
  if (paying.lamports < fee) throw new Refusal('InsufficientFundsForFee', 'Insufficient funds for fee')
  paying.lamports -= fee
  assertRentState(before.get(payer) as WorkingAccount, paying, 0)

  const transfers: LedgerTransfer[] = []
  const logs: string[] = []
  let computeUnits = 0
  const rendered: RenderedInstruction[] = []
  for (const [position, instruction] of compiled.entries()) {
    const context: InstructionContext = { account, signers, ledger, transfers, logs, position }
    const outcome = runInstruction(instruction, context)
    computeUnits += outcome.computeUnits
    rendered.push({ ...instruction, ...outcome.render })
  }
  for (const [index, key] of keys.entries()) {
    if (writable(index)) assertRentState(before.get(key) as WorkingAccount, account(key), index)
  }
  if (transfers.length === 0) {
    // a transaction that moves nothing still pays its fee: the ledger shows it as a 0-lamport move
    transfers.push({ from: payer, to: payer, contract: null, amountUnits: 0n, decimals: 9 })
  }

  const accountKeys: AccountKey[] = keys.map((pubkey, index) => ({
    pubkey,
    signer: signers.has(pubkey),
    writable: writable(index),
    source: 'transaction',
  }))
  const tokenBalances = (accounts: Map<string, WorkingAccount>) =>
    keys.flatMap((key, accountIndex) => {
      const token = accounts.get(key)?.token
      if (token === undefined) return []
      const decimals = ledger.mintDecimals(token.mint) ?? 0
      return [
        {
          accountIndex,
          mint: token.mint,
          owner: token.owner,
          programId: TOKEN_PROGRAM_ID,
          uiTokenAmount: uiTokenAmount(token.amount, decimals),
        },
      ]
    })
  return {
    signature,
    payer,
    fee,
    transfers,
    opened: keys.flatMap((key) => {
      const { token, opened } = account(key)
      return opened && token !== undefined ? [{ address: key, owner: token.owner, mint: token.mint }] : []
    }),
    closed: keys.filter((key) => before.get(key)?.token !== undefined && account(key).token === undefined),
    nonces: keys.flatMap((key) => {
      const { nonce } = account(key)
      const previous = before.get(key)?.nonce
      const changed = nonce !== undefined && (previous === undefined || previous.nonce !== nonce.nonce)
      return changed ? [{ address: key, ...nonce }] : []
    }),
    rendered: {
      signature,
      signatures: transaction.signatures.map((bytes) => base58.encode(bytes)),
      header,
      version: message.version === 'legacy' ? 'legacy' : 0,
      keys: accountKeys,
      staticKeyCount: keys.length,
      readonlyUnsignedCount: header.numReadonlyUnsignedAccounts,
      lookupTable: undefined,
      instructions: rendered,
      recentBlockhash: message.recentBlockhash,
      err: null,
      fee,
      preBalances: keys.map((key) => (before.get(key) as WorkingAccount).lamports),
      postBalances: keys.map((key) => account(key).lamports),
      preTokenBalances: tokenBalances(before),
      postTokenBalances: tokenBalances(state),
      logMessages: logs,
      computeUnitsConsumed: computeUnits,
    },
  }
}

/** 5,000 lamports a signature, plus the priority fee: ceil(micro-lamports per CU x CU limit / 10^6) */
export function feeOf(signatures: number, instructions: Compiled[]): bigint {
  let limit: bigint | undefined
  let price = 0n
  let others = 0n
  for (const { programId, data } of instructions) {
    if (programId !== COMPUTE_BUDGET_PROGRAM_ID) {
      others += 1n
      continue
    }
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
    // ComputeBudgetInstruction: 2 SetComputeUnitLimit(u32), 3 SetComputeUnitPrice(u64)
    if (data[0] === 2 && data.length >= 5) limit = BigInt(view.getUint32(1, true))
    if (data[0] === 3 && data.length >= 9) price = view.getBigUint64(1, true)
  }
  const units = limit ?? DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION * others
  const capped = units > MAX_COMPUTE_UNITS ? MAX_COMPUTE_UNITS : units
  const priority = (price * capped + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT
  return LAMPORTS_PER_SIGNATURE * BigInt(signatures) + priority
}

/**
 * mainnet's rent rule: an account ends empty or rent-exempt, unless it was already below the
 * minimum with the same size and did not gain lamports
 */
function assertRentState(before: WorkingAccount, after: WorkingAccount, index: number): void {
  const minimum = rentExemptMinimum(after)
  if (after.lamports === 0n || after.lamports >= minimum) return
  const minimumBefore = rentExemptMinimum(before)
  const wasPaying = before.lamports > 0n && before.lamports < minimumBefore
  if (wasPaying && minimum === minimumBefore && after.lamports <= before.lamports) return
  throw new Refusal(
    { InsufficientFundsForRent: { account_index: index } },
    `Transaction results in an account (${index}) with insufficient funds for rent`,
  )
}

/** by the account's data: none, a nonce account's 80 bytes, a token account's 165 */
function rentExemptMinimum(account: WorkingAccount): bigint {
  if (account.token !== undefined) return TOKEN_ACCOUNT_LAMPORTS
  if (account.nonce !== undefined) return NONCE_ACCOUNT_LAMPORTS
  return SYSTEM_ACCOUNT_RENT_EXEMPT
}

//////// Instructions

interface InstructionContext {
  account(key: string): WorkingAccount
  signers: Set<string>
  ledger: SolanaLedgerView
  transfers: LedgerTransfer[]
  logs: string[]
  position: number
}

interface Outcome {
  computeUnits: number
  render: Pick<RenderedInstruction, 'program' | 'parsed'>
}

function runInstruction(instruction: Compiled, context: InstructionContext): Outcome {
  const { programId } = instruction
  const invoke = `Program ${programId} invoke [1]`
  context.logs.push(invoke)
  let outcome: Outcome
  if (programId === SYSTEM_PROGRAM_ID) outcome = systemInstruction(instruction, context)
  else if (programId === TOKEN_PROGRAM_ID) outcome = tokenInstruction(instruction, context)
  else if (programId === ASSOCIATED_TOKEN_PROGRAM_ID)
    outcome = associatedTokenInstruction(instruction, context)
  else if (programId === COMPUTE_BUDGET_PROGRAM_ID) outcome = { computeUnits: 150, render: {} }
  else {
    context.logs.pop()
    throw new Refusal('ProgramAccountNotFound', 'Attempt to load a program that does not exist')
  }
  if (programId === TOKEN_PROGRAM_ID || programId === ASSOCIATED_TOKEN_PROGRAM_ID) {
    context.logs.push(`Program ${programId} consumed ${outcome.computeUnits} of 200000 compute units`)
  }
  context.logs.push(`Program ${programId} success`)
  return outcome
}

/** an InstructionError of the instruction being run, its program's log lines ending the logs */
function instructionError(context: InstructionContext, error: unknown, lines: string[]): Refusal {
  const { position } = context
  const description =
    typeof error === 'string'
      ? INSTRUCTION_ERRORS[error]
      : `custom program error: 0x${(error as { Custom: number }).Custom.toString(16)}`
  context.logs.push(...lines)
  return new Refusal(
    { InstructionError: [position, error] },
    `Error processing Instruction ${position}: ${description}`,
    context.logs,
  )
}

const INSTRUCTION_ERRORS: Record<string, string> = {
  InvalidAccountData: 'invalid account data for instruction',
  InvalidInstructionData: 'invalid instruction data',
  MissingRequiredSignature: 'missing required signature for instruction',
  InvalidSeeds: 'Provided seeds do not result in a valid address',
  IncorrectProgramId: 'incorrect program id for instruction',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
}

function readU64(data: Uint8Array, offset: number): bigint | undefined {
  if (data.length < offset + 8) return undefined
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)
}

function move(context: InstructionContext, from: string, to: string, lamports: bigint): void {
  context.account(from).lamports -= lamports
  context.account(to).lamports += lamports
  context.transfers.push({ from, to, contract: null, amountUnits: lamports, decimals: 9 })
}

// SystemInstruction tags (u32, little-endian)
const CREATE_ACCOUNT = 0
const TRANSFER = 2
const ADVANCE_NONCE = 4
const INITIALIZE_NONCE = 6

function systemTag(data: Uint8Array): number {
  return data.length >= 4 ? new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true) : -1
}

function systemInstruction(instruction: Compiled, context: InstructionContext): Outcome {
  const { data, accounts } = instruction
  const failure = (error: string, text: string) =>
    instructionError(context, error, [`Program ${SYSTEM_PROGRAM_ID} failed: ${text}`])
  const signer = (key: string, log: string) => {
    if (context.signers.has(key)) return
    context.logs.push(log)
    throw failure('MissingRequiredSignature', 'missing required signature for instruction')
  }
  const tag = systemTag(data)
  const [first, second] = accounts
  if (first === undefined) throw failure('NotEnoughAccountKeys', 'insufficient account keys for instruction')
  if (tag === ADVANCE_NONCE) return advanceNonce(first, accounts[2], context, failure, signer)
  if (tag === INITIALIZE_NONCE && data.length >= 36) {
    // InitializeNonceAccount(authority): [nonce, recent blockhashes sysvar, rent sysvar]
    const nonce = context.account(first).nonce
    if (nonce === undefined || nonce.nonce !== undefined) {
      throw failure('InvalidAccountData', 'invalid account data for instruction')
    }
    nonce.authority = base58.encode(data.subarray(4, 36))
    nonce.nonce = durableNonceOf(context.ledger.headHash)
    return {
      computeUnits: 450,
      render: {
        program: 'system',
        parsed: {
          info: {
            nonceAccount: first,
            nonceAuthority: nonce.authority,
            recentBlockhashesSysvar: accounts[1],
            rentSysvar: accounts[2],
          },
          type: 'initializeNonce',
        },
      },
    }
  }
  const lamports = readU64(data, 4)
  if ((tag !== TRANSFER && tag !== CREATE_ACCOUNT) || lamports === undefined) {
    throw failure('InvalidInstructionData', 'invalid instruction data')
  }
  if (second === undefined) throw failure('NotEnoughAccountKeys', 'insufficient account keys for instruction')
  signer(first, `Transfer: \`from\` account ${first} must sign`)
  const source = context.account(first)
  if (source.token !== undefined || source.nonce !== undefined) {
    context.logs.push('Transfer: `from` must not carry data')
    throw failure('InvalidArgument', 'invalid program argument')
  }
  if (tag === CREATE_ACCOUNT) {
    // CreateAccount { lamports, space, owner }: [funder, new account], both signing. The simulator
    // creates system-owned accounts only: none (space 0) or a nonce account (80 bytes) to initialize
    const space = readU64(data, 12)
    const owner = data.length >= 52 ? base58.encode(data.subarray(20, 52)) : undefined
    signer(second, `Create Account: account ${second} must sign`)
    if (owner !== SYSTEM_PROGRAM_ID || (space !== 0n && space !== BigInt(NONCE_ACCOUNT_SPACE))) {
      throw failure('InvalidInstructionData', 'invalid instruction data')
    }
    const created = context.account(second)
    if (created.lamports > 0n || created.token !== undefined || created.nonce !== undefined) {
      context.logs.push(`Create Account: account Address { address: ${second}, base: None } already in use`)
      throw instructionError(context, { Custom: 0 }, [
        `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x0`,
      ])
    }
    if (source.lamports < lamports) {
      context.logs.push(`Transfer: insufficient lamports ${source.lamports}, need ${lamports}`)
      throw instructionError(context, { Custom: 1 }, [
        `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`,
      ])
    }
    move(context, first, second, lamports)
    if (space > 0n) created.nonce = { authority: SYSTEM_PROGRAM_ID, nonce: undefined }
    return {
      computeUnits: 150,
      render: {
        program: 'system',
        parsed: {
          info: { lamports, newAccount: second, owner, source: first, space },
          type: 'createAccount',
        },
      },
    }
  }
  // Transfer { lamports }: [from (signer), to]
  if (source.lamports < lamports) {
    throw instructionError(context, { Custom: 1 }, [
      `Transfer: insufficient lamports ${source.lamports}, need ${lamports}`,
      `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`,
    ])
  }
  move(context, first, second, lamports)
  return {
    computeUnits: 150,
    render: {
      program: 'system',
      parsed: { info: { destination: second, lamports, source: first }, type: 'transfer' },
    },
  }
}

/** AdvanceNonceAccount: [nonce, recent blockhashes sysvar, authority (signer)] */
function advanceNonce(
  address: string,
  authority: string | undefined,
  context: InstructionContext,
  failure: (error: string, text: string) => Refusal,
  signer: (key: string, log: string) => void,
): Outcome {
  const nonce = context.account(address).nonce
  if (nonce?.nonce === undefined) throw failure('InvalidAccountData', 'invalid account data for instruction')
  if (authority === undefined)
    throw failure('NotEnoughAccountKeys', 'insufficient account keys for instruction')
  if (authority !== nonce.authority) {
    context.logs.push(`Advance nonce account: Account ${nonce.authority} must be a signer`)
    throw failure('MissingRequiredSignature', 'missing required signature for instruction')
  }
  signer(authority, `Advance nonce account: Account ${authority} must be a signer`)
  const next = durableNonceOf(context.ledger.headHash)
  if (next === nonce.nonce) {
    // SystemError::NonceBlockhashNotExpired: one advance per block
    context.logs.push('Advance nonce account: nonce can only advance once per slot')
    throw instructionError(context, { Custom: 6 }, [
      `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x6`,
    ])
  }
  nonce.nonce = next
  return {
    computeUnits: 150,
    render: {
      program: 'system',
      parsed: {
        info: {
          nonceAccount: address,
          nonceAuthority: authority,
          recentBlockhashesSysvar: SYSVAR_RECENT_BLOCKHASHES,
        },
        type: 'advanceNonce',
      },
    },
  }
}

// SPL Token errors (spl_token::error::TokenError) by their custom code
const INSUFFICIENT_FUNDS = 1
const MINT_MISMATCH = 3
const OWNER_MISMATCH = 4
const NON_NATIVE_HAS_BALANCE = 11
const MINT_DECIMALS_MISMATCH = 18
const TOKEN_ERROR_LOGS: Record<number, string> = {
  [INSUFFICIENT_FUNDS]: 'Error: insufficient funds',
  [MINT_MISMATCH]: 'Error: Account not associated with this Mint',
  [OWNER_MISMATCH]: 'Error: owner does not match',
  [NON_NATIVE_HAS_BALANCE]: 'Error: Non-native account can only be closed if its balance is zero',
  [MINT_DECIMALS_MISMATCH]: 'Error: The provided decimals value different from the Mint decimals',
}

function tokenError(context: InstructionContext, code: number): Refusal {
  return instructionError(context, { Custom: code }, [
    `Program log: ${TOKEN_ERROR_LOGS[code]}`,
    `Program ${TOKEN_PROGRAM_ID} failed: custom program error: 0x${code.toString(16)}`,
  ])
}

function tokenInstruction(instruction: Compiled, context: InstructionContext): Outcome {
  const { data, accounts } = instruction
  const tag = data[0]
  const failure = (error: string, text: string) =>
    instructionError(context, error, [`Program ${TOKEN_PROGRAM_ID} failed: ${text}`])
  const tokenAccountAt = (key: string | undefined): LedgerTokenAccount => {
    const token = key === undefined ? undefined : context.account(key).token
    if (token === undefined) throw failure('InvalidAccountData', 'invalid account data for instruction')
    return token
  }
  const authorize = (token: LedgerTokenAccount, authority: string | undefined) => {
    if (authority !== token.owner) throw tokenError(context, OWNER_MISMATCH)
    if (!context.signers.has(authority)) {
      throw failure('MissingRequiredSignature', 'missing required signature for instruction')
    }
  }

  if (tag === 3 || tag === 12) {
    // Transfer: [source, destination, authority]; TransferChecked: [source, mint, destination, authority]
    const checked = tag === 12
    context.logs.push(`Program log: Instruction: ${checked ? 'TransferChecked' : 'Transfer'}`)
    const amount = readU64(data, 1)
    if (amount === undefined || (checked && data.length < 10)) {
      throw failure('InvalidInstructionData', 'invalid instruction data')
    }
    const [sourceKey, mintKey, destinationKey, authority] = checked
      ? accounts
      : [accounts[0], undefined, accounts[1], accounts[2]]
    const source = tokenAccountAt(sourceKey)
    const destination = tokenAccountAt(destinationKey)
    if (source.amount < amount) throw tokenError(context, INSUFFICIENT_FUNDS)
    if (source.mint !== destination.mint) throw tokenError(context, MINT_MISMATCH)
    const decimals = context.ledger.mintDecimals(source.mint) ?? 0
    if (checked) {
      if (mintKey !== source.mint) throw tokenError(context, MINT_MISMATCH)
      if (data[9] !== decimals) throw tokenError(context, MINT_DECIMALS_MISMATCH)
    }
    authorize(source, authority)
    source.amount -= amount
    destination.amount += amount
    context.transfers.push({
      from: sourceKey as string,
      to: destinationKey as string,
      contract: source.mint,
      amountUnits: amount,
      decimals,
    })
    const parsed = checked
      ? {
          info: {
            authority,
            destination: destinationKey,
            mint: mintKey,
            source: sourceKey,
            tokenAmount: uiTokenAmount(amount, decimals),
          },
          type: 'transferChecked',
        }
      : {
          info: { amount: amount.toString(), authority, destination: destinationKey, source: sourceKey },
          type: 'transfer',
        }
    return { computeUnits: checked ? 6_200 : 4_644, render: { program: 'spl-token', parsed } }
  }

  if (tag === 9) {
    // CloseAccount: [account, destination, authority]; its lamports go to the destination
    context.logs.push('Program log: Instruction: CloseAccount')
    const [accountKey, destinationKey, authority] = accounts
    const token = tokenAccountAt(accountKey)
    if (destinationKey === undefined) {
      throw failure('NotEnoughAccountKeys', 'insufficient account keys for instruction')
    }
    if (token.amount !== 0n) throw tokenError(context, NON_NATIVE_HAS_BALANCE)
    authorize(token, authority)
    const closing = context.account(accountKey as string)
    move(context, accountKey as string, destinationKey, closing.lamports)
    closing.token = undefined
    return {
      computeUnits: 2_916,
      render: {
        program: 'spl-token',
        parsed: {
          info: { account: accountKey, destination: destinationKey, owner: authority },
          type: 'closeAccount',
        },
      },
    }
  }
  throw failure('InvalidInstructionData', 'invalid instruction data')
}

function associatedTokenInstruction(instruction: Compiled, context: InstructionContext): Outcome {
  const { data, accounts } = instruction
  const idempotent = data[0] === 1
  const failure = (error: string, text: string) =>
    instructionError(context, error, [`Program ${ASSOCIATED_TOKEN_PROGRAM_ID} failed: ${text}`])
  // Create (empty data or 0) and CreateIdempotent (1): [payer, ata, owner, mint, system, token program]
  if (data.length > 1 || (data.length === 1 && data[0] !== 0 && data[0] !== 1)) {
    throw failure('InvalidInstructionData', 'invalid instruction data')
  }
  context.logs.push(`Program log: ${idempotent ? 'CreateIdempotent' : 'Create'}`)
  const [payer, address, owner, mint, , tokenProgram] = accounts
  if (payer === undefined || address === undefined || owner === undefined || mint === undefined) {
    throw failure('NotEnoughAccountKeys', 'insufficient account keys for instruction')
  }
  if (tokenProgram !== TOKEN_PROGRAM_ID || context.ledger.mintDecimals(mint) === undefined) {
    throw failure('IncorrectProgramId', 'incorrect program id for instruction')
  }
  const [expected] = PublicKey.findProgramAddressSync(
    [
      new PublicKey(owner).toBytes(),
      new PublicKey(TOKEN_PROGRAM_ID).toBytes(),
      new PublicKey(mint).toBytes(),
    ],
    new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
  )
  if (expected.toBase58() !== address) {
    context.logs.push('Error: Associated address does not match seed derivation')
    throw failure('InvalidSeeds', 'Provided seeds do not result in a valid address')
  }
  const target = context.account(address)
  const render = {
    program: 'spl-associated-token-account',
    parsed: {
      info: {
        account: address,
        mint,
        source: payer,
        systemProgram: SYSTEM_PROGRAM_ID,
        tokenProgram,
        wallet: owner,
      },
      type: idempotent ? 'createIdempotent' : 'create',
    },
  }
  if (target.token !== undefined) {
    if (idempotent && target.token.owner === owner && target.token.mint === mint) {
      return { computeUnits: 3_000, render }
    }
    // the system program's createAccount refuses an address in use
    context.logs.push(`Allocate: account Address { address: ${address}, base: None } already in use`)
    throw instructionError(context, { Custom: 0 }, [
      `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} failed: custom program error: 0x0`,
    ])
  }
  const needed = target.lamports >= TOKEN_ACCOUNT_LAMPORTS ? 0n : TOKEN_ACCOUNT_LAMPORTS - target.lamports
  if (context.account(payer).lamports < needed) {
    context.logs.push(`Transfer: insufficient lamports ${context.account(payer).lamports}, need ${needed}`)
    throw instructionError(context, { Custom: 1 }, [
      `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} failed: custom program error: 0x1`,
    ])
  }
  if (needed > 0n) move(context, payer, address, needed)
  target.token = { mint, owner, amount: 0n }
  target.opened = true
  return { computeUnits: 21_990, render }
}

/** getFeeForMessage: the fee of a base64 wire message and the blockhash it names */
export function messageFee(messageBase64: string): { recentBlockhash: string; fee: bigint } {
  let message: VersionedMessage
  try {
    message = VersionedMessage.deserialize(Buffer.from(strictBase64(messageBase64), 'base64'))
  } catch (error) {
    throw new SolanaRpcError(-32602, `invalid message: ${(error as Error).message}`)
  }
  const keys = message.staticAccountKeys.map((key) => key.toBase58())
  const fee = feeOf(
    message.header.numRequiredSignatures,
    message.compiledInstructions.map((instruction) => ({
      programId: keys[instruction.programIdIndex] as string,
      accounts: [],
      data: instruction.data,
    })),
  )
  return { recentBlockhash: message.recentBlockhash, fee }
}

function sha256(data: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(data).digest())
}
