// What a Solana validator does with a signed transaction, for the instructions a sweep uses
// (docs/chains.md, "The simulator as a node for sweeping"): sanitize, verify every signature, check
// the recent blockhash and the status cache, charge the fee payer, run System transfer, SPL Token
// transfer / transferChecked / closeAccount, Associated Token Account create / createIdempotent and
// ComputeBudget, then apply the rent rules. A refusal is the error the node's preflight answers.
import { ed25519 } from '@noble/curves/ed25519.js'
import { base58 } from '@scure/base'
import { type PublicKey, VersionedMessage } from '@solana/web3.js'
import {
  ADVANCE_NONCE,
  associatedTokenAddress,
  type InstructionContext,
  parsedInstruction,
  runInstruction,
  systemTag,
} from './solana-instructions.js'
import {
  BLOCKHASH_VALIDITY,
  type Compiled,
  LAMPORTS_PER_SIGNATURE,
  type LedgerNonceAccount,
  type LedgerTransfer,
  MAX_TRANSACTION_BYTES,
  NONCE_ACCOUNT_LAMPORTS,
  Refusal,
  type SolanaLedgerView,
  SYSTEM_ACCOUNT_RENT_EXEMPT,
  type WorkingAccount,
} from './solana-ledger.js'
import {
  type AccountKey,
  COMPUTE_BUDGET_PROGRAM_ID,
  MINT_LAMPORTS,
  PROGRAM_LAMPORTS,
  SolanaRpcError,
  type SolanaTransaction,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_LAMPORTS,
  TOKEN_PROGRAM_ID,
  uiTokenAmount,
} from './solana-rpc-blocks.js'

const DEFAULT_COMPUTE_UNITS_PER_INSTRUCTION = 200_000n
const MAX_COMPUTE_UNITS = 1_400_000n
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n

export interface ExecutedSolanaTransaction {
  signature: string
  payer: string
  fee: bigint
  transfers: LedgerTransfer[]
  /** associated token accounts seen paid but never opened, now known with their owner (opened from outside) */
  adopted: Array<{ address: string; owner: string; mint: string }>
  opened: Array<{ address: string; owner: string; mint: string }>
  closed: string[]
  /** nonce accounts the transaction created or advanced, as they are after it */
  nonces: Array<{ address: string } & LedgerNonceAccount>
  /** how blocks and getTransaction render it; `err` set for one on chain that failed (skipPreflight) */
  rendered: SolanaTransaction
}

export interface SendOptions {
  /**
   * sendTransaction's skipPreflight: a transaction whose instructions fail once its fee is charged
   * is not refused but goes on chain, failed, its fee charged and nothing else done, as a leader
   * includes it; one that fails before (signatures, blockhash, fee payer) is still refused
   */
  skipPreflight?: boolean
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
  options: SendOptions = {},
): ExecutedSolanaTransaction {
  const { transaction, keys } = sanitized(wire)
  if (!signaturesVerify(transaction)) {
    throw new SolanaRpcError(-32003, 'Transaction signature verification failure')
  }
  try {
    return evaluate(transaction, keys, ledger, {
      checkBlockhash: true,
      landFailure: options.skipPreflight === true,
    })
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

/** the transaction's id: its first signature, base58 (the node's -32602 for bytes that are none) */
export function wireSignature(wire: Uint8Array): string {
  const [first] = deserialize(wire).signatures
  if (first === undefined) {
    throw new SolanaRpcError(
      -32602,
      'invalid transaction: Transaction failed to sanitize accounts offsets correctly',
    )
  }
  return base58.encode(first)
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
    const executed = evaluate(transaction, keys, ledger, {
      checkBlockhash: !options.replaceRecentBlockhash,
      landFailure: false,
    })
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
    // the fee payer signs and is writable
    header.numRequiredSignatures < 1 ||
    header.numReadonlySignedAccounts >= header.numRequiredSignatures ||
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
  options: { checkBlockhash: boolean; landFailure: boolean },
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
  return run(transaction, keys, signature, ledger, options.landFailure)
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

function verifies(signature: Uint8Array, message: Uint8Array, key: PublicKey): boolean {
  try {
    return ed25519.verify(signature, message, key.toBytes())
  } catch {
    return false
  }
}

function run(
  transaction: WireTransaction,
  keys: string[],
  signature: string,
  ledger: SolanaLedgerView,
  landFailure: boolean,
): ExecutedSolanaTransaction {
  const { message } = transaction
  const { header } = message
  const signers = new Set(keys.slice(0, header.numRequiredSignatures))
  const writable = (index: number) =>
    index < header.numRequiredSignatures
      ? index < header.numRequiredSignatures - header.numReadonlySignedAccounts
      : index < keys.length - header.numReadonlyUnsignedAccounts
  const writableKeys = new Set(keys.filter((_key, index) => writable(index)))
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
    adoptTokenAccount(before.get(key) as WorkingAccount, key, keys, ledger)
  }
  const copyOfBefore = () =>
    new Map(
      [...before].map(([key, { lamports, token, nonce }]) => [
        key,
        { lamports, token: token && { ...token }, nonce: nonce && { ...nonce }, opened: false },
      ]),
    )
  let state = copyOfBefore()
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

  let transfers: LedgerTransfer[] = []
  const logs: string[] = []
  let computeUnits = 0
  let err: SolanaTransaction['err'] = null
  try {
    for (const [position, instruction] of compiled.entries()) {
      const { programId } = instruction
      const context: InstructionContext = {
        account,
        signers,
        writable: writableKeys,
        ledger,
        transfers,
        logs,
        position,
        programId,
      }
      computeUnits += runInstruction(instruction, context)
    }
    for (const [index, key] of keys.entries()) {
      if (writable(index)) assertRentState(before.get(key) as WorkingAccount, account(key), index)
    }
  } catch (error) {
    if (!(error instanceof Refusal) || !landFailure) throw error
    // on chain, failed: the fee stays charged, nothing else the instructions did
    err = error.err as SolanaTransaction['err']
    state = copyOfBefore()
    account(payer).lamports -= fee
    transfers = []
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
    adopted: keys.flatMap((key) => {
      const { token, adopted } = before.get(key) as WorkingAccount
      return adopted && token !== undefined ? [{ address: key, owner: token.owner, mint: token.mint }] : []
    }),
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
      instructions: compiled.map((instruction) => ({ ...instruction, ...parsedInstruction(instruction) })),
      recentBlockhash: message.recentBlockhash,
      err,
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

/**
 * A payment to an associated token account the ledger never saw opened (the payer's wallet opened
 * it on a real chain): if the address is the ATA of one of the transaction's keys for the mint it
 * holds, it is that key's token account, holding its rent-exempt minimum from outside.
 */
function adoptTokenAccount(
  account: WorkingAccount,
  address: string,
  keys: string[],
  ledger: SolanaLedgerView,
): void {
  if (account.token !== undefined || account.nonce !== undefined) return
  const holding = ledger.unopenedTokenHolding(address)
  if (holding === undefined) return
  const owner = keys.find((key) => associatedTokenAddress(key, holding.mint) === address)
  if (owner === undefined) return
  account.token = { mint: holding.mint, owner, amount: holding.amount }
  account.lamports += TOKEN_ACCOUNT_LAMPORTS
  account.adopted = true
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

/**
 * getFeeForMessage: the fee of a base64 wire message, or null when its blockhash is neither recent
 * nor the nonce of the nonce account its first instruction advances
 */
export function feeForMessage(messageBase64: string, ledger: SolanaLedgerView): bigint | null {
  let message: VersionedMessage
  try {
    message = VersionedMessage.deserialize(Buffer.from(strictBase64(messageBase64), 'base64'))
  } catch (error) {
    throw new SolanaRpcError(-32602, `invalid message: ${(error as Error).message}`)
  }
  const keys = message.staticAccountKeys.map((key) => key.toBase58())
  const recent = blockhashIsRecent(ledger.blockhashHeight(message.recentBlockhash), ledger.headHeight)
  if (!recent && !usesDurableNonce(message, keys, ledger)) return null
  return feeOf(
    message.header.numRequiredSignatures,
    message.compiledInstructions.map((instruction) => ({
      programId: keys[instruction.programIdIndex] as string,
      accounts: [],
      data: instruction.data,
    })),
  )
}
