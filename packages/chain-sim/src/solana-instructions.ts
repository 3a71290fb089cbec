// The instructions a sweep uses, as their programs run them (docs/chains.md, "The simulator as a node
// for sweeping"): System transfer, createAccount and nonces; SPL Token transfer, transferChecked and
// closeAccount; Associated Token Account create and createIdempotent; ComputeBudget. A failure is the
// program's InstructionError with its log lines.
import { base58 } from '@scure/base'
import { PublicKey } from '@solana/web3.js'
import {
  type Compiled,
  durableNonceOf,
  type LedgerTokenAccount,
  type LedgerTransfer,
  NONCE_ACCOUNT_SPACE,
  Refusal,
  type SolanaLedgerView,
  type WorkingAccount,
} from './solana-ledger.js'
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  type RenderedInstruction,
  SYSTEM_PROGRAM_ID,
  TOKEN_ACCOUNT_LAMPORTS,
  TOKEN_PROGRAM_ID,
  uiTokenAmount,
} from './solana-rpc-blocks.js'

export interface InstructionContext {
  account(key: string): WorkingAccount
  signers: Set<string>
  /** the keys the message marks writable: the runtime refuses a change to any other */
  writable: Set<string>
  ledger: SolanaLedgerView
  transfers: LedgerTransfer[]
  logs: string[]
  position: number
  programId: string
}

/** the runtime's check after a program changed an account's data */
function assertWritable(context: InstructionContext, ...keys: string[]): void {
  if (keys.every((key) => context.writable.has(key))) return
  throw instructionError(context, 'ReadonlyDataModified', [
    `Program ${context.programId} failed: instruction modified data of a read-only account`,
  ])
}

/** runs the instruction on the context's accounts; returns the compute units it used */
export function runInstruction(instruction: Compiled, context: InstructionContext): number {
  const { programId } = instruction
  const invoke = `Program ${programId} invoke [1]`
  context.logs.push(invoke)
  let computeUnits: number
  if (programId === SYSTEM_PROGRAM_ID) computeUnits = systemInstruction(instruction, context)
  else if (programId === TOKEN_PROGRAM_ID) computeUnits = tokenInstruction(instruction, context)
  else if (programId === ASSOCIATED_TOKEN_PROGRAM_ID)
    computeUnits = associatedTokenInstruction(instruction, context)
  else if (programId === COMPUTE_BUDGET_PROGRAM_ID) computeUnits = 150
  else {
    context.logs.pop()
    throw new Refusal('ProgramAccountNotFound', 'Attempt to load a program that does not exist')
  }
  if (programId === TOKEN_PROGRAM_ID || programId === ASSOCIATED_TOKEN_PROGRAM_ID) {
    context.logs.push(`Program ${programId} consumed ${computeUnits} of 200000 compute units`)
  }
  context.logs.push(`Program ${programId} success`)
  return computeUnits
}

/**
 * how jsonParsed renders the instruction, from its data and accounts alone, as a node's parser does
 * whether it ran or not (a failed transaction shows every instruction it asked for); raw for
 * instructions the node does not parse
 */
export function parsedInstruction(instruction: Compiled): Pick<RenderedInstruction, 'program' | 'parsed'> {
  const { programId, data, accounts } = instruction
  const parsed = (program: string, type: string, info: Record<string, unknown>) => ({
    program,
    parsed: { info, type },
  })
  if (programId === SYSTEM_PROGRAM_ID) {
    const [first, second, third] = accounts
    const tag = systemTag(data)
    const lamports = readU64(data, 4)
    if (tag === ADVANCE_NONCE) {
      return parsed('system', 'advanceNonce', {
        nonceAccount: first,
        nonceAuthority: third,
        recentBlockhashesSysvar: second,
      })
    }
    if (tag === INITIALIZE_NONCE && data.length >= 36) {
      return parsed('system', 'initializeNonce', {
        nonceAccount: first,
        nonceAuthority: base58.encode(data.subarray(4, 36)),
        recentBlockhashesSysvar: second,
        rentSysvar: third,
      })
    }
    if (tag === TRANSFER && lamports !== undefined) {
      return parsed('system', 'transfer', { destination: second, lamports, source: first })
    }
    if (tag === CREATE_ACCOUNT && lamports !== undefined && data.length >= 52) {
      return parsed('system', 'createAccount', {
        lamports,
        newAccount: second,
        owner: base58.encode(data.subarray(20, 52)),
        source: first,
        space: readU64(data, 12),
      })
    }
    return {}
  }
  if (programId === TOKEN_PROGRAM_ID) {
    const amount = readU64(data, 1)
    if (data[0] === 3 && amount !== undefined) {
      const [source, destination, authority] = accounts
      return parsed('spl-token', 'transfer', { amount: amount.toString(), authority, destination, source })
    }
    if (data[0] === 12 && amount !== undefined && data.length >= 10) {
      const [source, mint, destination, authority] = accounts
      const tokenAmount = uiTokenAmount(amount, data[9] as number)
      return parsed('spl-token', 'transferChecked', { authority, destination, mint, source, tokenAmount })
    }
    if (data[0] === 9) {
      const [account, destination, owner] = accounts
      return parsed('spl-token', 'closeAccount', { account, destination, owner })
    }
    return {}
  }
  if (programId === ASSOCIATED_TOKEN_PROGRAM_ID && data.length <= 1 && (data[0] ?? 0) <= 1) {
    const [source, account, wallet, mint, systemProgram, tokenProgram] = accounts
    return parsed('spl-associated-token-account', data[0] === 1 ? 'createIdempotent' : 'create', {
      account,
      mint,
      source,
      systemProgram,
      tokenProgram,
      wallet,
    })
  }
  return {}
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
  InvalidArgument: 'invalid program argument',
  ReadonlyLamportChange: 'instruction changed the balance of a read-only account',
  ReadonlyDataModified: 'instruction modified data of a read-only account',
}

function readU64(data: Uint8Array, offset: number): bigint | undefined {
  if (data.length < offset + 8) return undefined
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)
}

function move(context: InstructionContext, from: string, to: string, lamports: bigint): void {
  if (lamports > 0n && !(context.writable.has(from) && context.writable.has(to))) {
    throw instructionError(context, 'ReadonlyLamportChange', [
      `Program ${context.programId} failed: instruction changed the balance of a read-only account`,
    ])
  }
  context.account(from).lamports -= lamports
  context.account(to).lamports += lamports
  context.transfers.push({ from, to, contract: null, amountUnits: lamports, decimals: 9 })
}

/** the associated token account of (owner, token program, mint) */
export function associatedTokenAddress(owner: string, mint: string): string {
  const seeds = [owner, TOKEN_PROGRAM_ID, mint].map((key) => new PublicKey(key).toBytes())
  return PublicKey.findProgramAddressSync(seeds, new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID))[0].toBase58()
}

// SystemInstruction tags (u32, little-endian)
const CREATE_ACCOUNT = 0
const TRANSFER = 2
export const ADVANCE_NONCE = 4
const INITIALIZE_NONCE = 6

export function systemTag(data: Uint8Array): number {
  return data.length >= 4 ? new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true) : -1
}

function systemInstruction(instruction: Compiled, context: InstructionContext): number {
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
    assertWritable(context, first)
    nonce.authority = base58.encode(data.subarray(4, 36))
    nonce.nonce = durableNonceOf(context.ledger.headHash)
    return 450
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
    return 150
  }
  // Transfer { lamports }: [from (signer), to]
  if (source.lamports < lamports) {
    throw instructionError(context, { Custom: 1 }, [
      `Transfer: insufficient lamports ${source.lamports}, need ${lamports}`,
      `Program ${SYSTEM_PROGRAM_ID} failed: custom program error: 0x1`,
    ])
  }
  move(context, first, second, lamports)
  return 150
}

/** AdvanceNonceAccount: [nonce, recent blockhashes sysvar, authority (signer)] */
function advanceNonce(
  address: string,
  authority: string | undefined,
  context: InstructionContext,
  failure: (error: string, text: string) => Refusal,
  signer: (key: string, log: string) => void,
): number {
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
  assertWritable(context, address)
  nonce.nonce = next
  return 150
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

function tokenInstruction(instruction: Compiled, context: InstructionContext): number {
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
    assertWritable(context, sourceKey as string, destinationKey as string)
    source.amount -= amount
    destination.amount += amount
    context.transfers.push({
      from: sourceKey as string,
      to: destinationKey as string,
      contract: source.mint,
      amountUnits: amount,
      decimals,
    })
    return checked ? 6_200 : 4_644
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
    assertWritable(context, accountKey as string)
    closing.token = undefined
    return 2_916
  }
  throw failure('InvalidInstructionData', 'invalid instruction data')
}

function associatedTokenInstruction(instruction: Compiled, context: InstructionContext): number {
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
  if (associatedTokenAddress(owner, mint) !== address) {
    context.logs.push('Error: Associated address does not match seed derivation')
    throw failure('InvalidSeeds', 'Provided seeds do not result in a valid address')
  }
  const target = context.account(address)
  if (target.token !== undefined) {
    if (idempotent && target.token.owner === owner && target.token.mint === mint) return 3_000
    // the system program's createAccount refuses an address in use
    context.logs.push(`Allocate: account Address { address: ${address}, base: None } already in use`)
    throw instructionError(context, { Custom: 0 }, [
      `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} failed: custom program error: 0x0`,
    ])
  }
  const needed = target.lamports >= TOKEN_ACCOUNT_LAMPORTS ? 0n : TOKEN_ACCOUNT_LAMPORTS - target.lamports
  if (needed > 0n && !context.signers.has(payer)) {
    // the system program's transfer it invokes needs the payer's signature
    throw failure('MissingRequiredSignature', 'missing required signature for instruction')
  }
  if (context.account(payer).lamports < needed) {
    context.logs.push(`Transfer: insufficient lamports ${context.account(payer).lamports}, need ${needed}`)
    throw instructionError(context, { Custom: 1 }, [
      `Program ${ASSOCIATED_TOKEN_PROGRAM_ID} failed: custom program error: 0x1`,
    ])
  }
  if (needed > 0n) move(context, payer, address, needed)
  assertWritable(context, address)
  target.token = { mint, owner, amount: 0n }
  target.opened = true
  return 21_990
}
