// The Solana half of `chainpay-wallet plan`. "The payment's address" is its owner and every token
// account the owner holds (decisions 16 and 19): per owner, the plan moves its SOL and empties every
// token account it owns (getTokenAccountsByOwner, classic Token program) of every mint of the
// network's registry (the payment's own mint in any account, other mints as foreign funds) into the
// treasury's associated account for the mint, then closes it so that its rent returns to the
// treasury, which pays the fees. One message per owner, more when its accounts do not fit in one
// (docs/treasury.md, "Solana: fees and rent").

import { formatUnits, toUnits } from '@chainpay/domain'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token'
import {
  Connection,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
} from '@solana/web3.js'
import type { BalanceRow } from './admin-api.js'
import { CommandError } from './command-error.js'
import type { PlanInput, PlanOutput, RegistryToken } from './plan-input.js'
import { type PlannedSweep, type PlanStep, type SkippedAddress, sweepSourceOf } from './sweep-plan.js'
import { HEADROOM_PERCENT, recordableUnits, tokenValueInNativeUnits, withHeadroom } from './sweep-rules.js'

const SOL = 'SOL'
const SOL_DECIMALS = 9
const TOKEN_ACCOUNT_BYTES = 165
/** what one packet carries: the signed transaction, its two signatures included */
const MAX_TRANSACTION_BYTES = 1232
const SIGNATURE_BYTES = 1 + 2 * 64
/** a blockhash is accepted for 150 blocks after it, about 60 to 90 seconds */
const BLOCKHASH_VALIDITY_MS = 60_000
/** a durable nonce does not expire; the plan still names a date to be looked at again */
const NONCE_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000

/** a token account of the owner, of a registry mint */
interface OwnedAccount {
  address: PublicKey
  mint: PublicKey
  token: RegistryToken
  amount: bigint
  lamports: bigint
}

/** one message of an owner's sweep, before it is priced */
interface Draft {
  instructions: TransactionInstruction[]
  /** what reaches the treasury, per currency */
  moves: Map<string, bigint>
  closed: number
  rentBack: bigint
  /** the treasury's token accounts it creates */
  opens: string[]
}

export async function planSolana(rows: BalanceRow[], input: PlanInput): Promise<PlanOutput> {
  const connection = new Connection(input.rpcUrl, {
    commitment: 'confirmed',
    ...(input.apiKey === undefined ? {} : { httpHeaders: { 'x-api-key': input.apiKey } }),
  })
  const treasury = new PublicKey(input.treasury.address)
  const tokens = new Map(input.tokens.map((token) => [token.contract, token]))
  const decimalsOf = (currency: string) => (currency === SOL ? SOL_DECIMALS : input.decimals(currency))
  const nonces = durableNonces(connection, input.nonceAccounts, treasury)
  const owners = new Map<string, BalanceRow[]>()
  for (const row of rows) owners.set(row.address, [...(owners.get(row.address) ?? []), row])

  // the chain read before the blockhash is taken: its minute is for pricing, signing and sending
  const holdings = new Map<string, { lamports: bigint; accounts: OwnedAccount[] }>()
  for (const address of owners.keys()) {
    const owner = new PublicKey(address)
    const lamports = BigInt(await connection.getBalance(owner))
    holdings.set(address, { lamports, accounts: await ownedAccounts(connection, owner, tokens) })
  }
  /** the treasury's token accounts: whether each exists, or a kept message creates it */
  const treasuryAccounts = new Map<string, boolean>()
  for (const { accounts } of holdings.values()) {
    for (const { mint } of accounts) {
      const key = getAssociatedTokenAddressSync(mint, treasury).toBase58()
      if (!treasuryAccounts.has(key))
        treasuryAccounts.set(key, (await connection.getAccountInfo(new PublicKey(key))) !== null)
    }
  }
  const rentPerAccount = [...treasuryAccounts.values()].includes(false)
    ? BigInt(await connection.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_BYTES))
    : 0n
  const treasuryHeld = owners.size === 0 ? 0n : BigInt(await connection.getBalance(treasury))
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed')
  // the node prices a message by its signatures (these carry no compute-budget instruction): once per count
  const feeBySigners = new Map<number, bigint>()
  const feeOf = async (instructions: TransactionInstruction[]): Promise<bigint> => {
    const message = compile(treasury, blockhash, instructions)
    const signers = message.header.numRequiredSignatures
    let fee = feeBySigners.get(signers)
    if (fee === undefined) {
      const priced = (await connection.getFeeForMessage(message, 'confirmed')).value
      if (priced === null)
        throw new CommandError(
          'the node could not price a message: its blockhash is already too old; plan again',
        )
      fee = BigInt(priced)
      feeBySigners.set(signers, fee)
    }
    return fee
  }
  const steps: PlanStep[] = []
  const sweeps: PlannedSweep[] = []
  const skipped: SkippedAddress[] = []
  const moved = new Map<string, bigint>()
  const spending = { fees: 0n, rent: 0n }
  let treasuryChange = 0n

  for (const [address, ownerRows] of owners) {
    const owner = new PublicKey(address)
    const { lamports, accounts } = holdings.get(address) ?? { lamports: 0n, accounts: [] }
    const holds = new Map<string, bigint>([[SOL, lamports]])
    for (const account of accounts) {
      const currency = account.token.currency
      holds.set(currency, (holds.get(currency) ?? 0n) + account.amount)
    }
    // what the owner holds, per currency, of which no row of the admin API speaks yet: reported too
    const skip = (currency: string, reason: string) => {
      const holding = formatUnits(holds.get(currency) ?? 0n, decimalsOf(currency))
      const about = ownerRows.filter((row) => row.currency === currency)
      for (const row of about.length > 0 ? about : ownerRows.slice(0, 1))
        skipped.push({ ...sweepSourceOf(row), address, currency, holds: holding, reason })
    }
    // below the operator's minimum: left where it is; an empty account is closed all the same (its rent)
    const belowMinimum = new Set(
      [...holds]
        .filter(([currency, units]) => units > 0n && units < (input.minimums.get(currency) ?? 0n))
        .map(([currency]) => currency),
    )
    for (const currency of belowMinimum) skip(currency, 'BELOW_MINIMUM')
    const kept = accounts.filter(
      (account) => account.amount === 0n || !belowMinimum.has(account.token.currency),
    )
    const sol = belowMinimum.has(SOL) ? 0n : lamports
    if (kept.length === 0 && sol === 0n) {
      for (const row of ownerRows) if (!belowMinimum.has(row.currency)) skip(row.currency, 'EMPTY')
      continue
    }

    // the messages: each account's create (once per mint), transfer and close, then the SOL
    const drafts: Draft[] = []
    let draft = newDraft()
    const place = (instructions: TransactionInstruction[], apply: (into: Draft) => void) => {
      if (draft.instructions.length > 0 && !fits(treasury, [...draft.instructions, ...instructions], input)) {
        drafts.push(draft)
        draft = newDraft()
      }
      draft.instructions.push(...instructions)
      apply(draft)
    }
    const opening = new Set<string>()
    for (const account of kept) {
      const destination = getAssociatedTokenAddressSync(account.mint, treasury)
      const key = destination.toBase58()
      const opens = treasuryAccounts.get(key) === false && !opening.has(key)
      if (opens) opening.add(key)
      place(
        [
          ...(opens
            ? [
                createAssociatedTokenAccountIdempotentInstruction(
                  treasury,
                  destination,
                  treasury,
                  account.mint,
                ),
              ]
            : []),
          ...(account.amount > 0n
            ? [
                createTransferCheckedInstruction(
                  account.address,
                  account.mint,
                  destination,
                  owner,
                  account.amount,
                  account.token.decimals,
                ),
              ]
            : []),
          createCloseAccountInstruction(account.address, treasury, owner),
        ],
        (into) => {
          const currency = account.token.currency
          into.moves.set(currency, (into.moves.get(currency) ?? 0n) + account.amount)
          into.closed += 1
          into.rentBack += account.lamports
          if (opens) into.opens.push(key)
        },
      )
    }
    if (sol > 0n) {
      place([SystemProgram.transfer({ fromPubkey: owner, toPubkey: treasury, lamports: sol })], (into) =>
        into.moves.set(SOL, sol),
      )
    }
    drafts.push(draft)

    // what it costs against what it moves, for the owner as a whole
    const fees: bigint[] = []
    for (const { instructions } of drafts) fees.push(await feeOf(instructions))
    const opened = drafts.reduce((count, { opens }) => count + opens.length, 0)
    const rentSpent = BigInt(opened) * rentPerAccount
    const feeTotal = fees.reduce((sum, fee) => sum + fee, 0n)
    const netCost = feeTotal + rentSpent - drafts.reduce((sum, { rentBack }) => sum + rentBack, 0n)
    const reason = costDecision(drafts, netCost, input, decimalsOf)
    if (reason !== undefined) {
      const held = [...holds].filter(([, units]) => units > 0n).map(([currency]) => currency)
      for (const currency of new Set([...ownerRows.map((row) => row.currency), ...held]))
        if (!belowMinimum.has(currency)) skip(currency, reason)
      continue
    }

    // kept: the treasury's accounts it opens exist for the owners after it
    for (const key of opening) treasuryAccounts.set(key, true)
    spending.fees += feeTotal
    spending.rent += rentSpent
    treasuryChange += sol - netCost
    const unswept = new Map(
      ownerRows.map((row) => [
        row,
        toUnits(row.received, decimalsOf(row.currency)) - toUnits(row.swept, decimalsOf(row.currency)),
      ]),
    )
    for (const [index, { instructions, moves, closed }] of drafts.entries()) {
      const id = index === 0 ? `sweep:${address}` : `sweep:${address}:${index + 1}`
      const fee = fees[index] ?? 0n
      const durable = await nonces.next()
      const signed =
        durable === undefined
          ? { message: compile(treasury, blockhash, instructions), blockhash, lastValidBlockHeight }
          : {
              // the same signers, so the same fee; the nonce replaces the blockhash and never expires
              message: compile(treasury, durable.nonce, [
                SystemProgram.nonceAdvance({ noncePubkey: durable.account, authorizedPubkey: treasury }),
                ...instructions,
              ]),
              blockhash: durable.nonce,
              lastValidBlockHeight: null,
              nonceAccount: durable.account.toBase58(),
            }
      steps.push({
        id,
        description: `${address} sends ${describeMoves(moves, decimalsOf)} to the treasury${closed > 0 ? `, closing ${closed} token account${closed === 1 ? '' : 's'}` : ''}`,
        after: [],
        estimate: { fee: fee.toString() },
        signers: [
          { role: 'treasury', ...input.treasury },
          { role: 'payment', address, derivationPath: ownerRows[0]?.derivationPath ?? null },
        ],
        solana: { ...signed, message: Buffer.from(signed.message.serialize()).toString('base64') },
      })
      // each row of a currency is recorded what it received and no sweep took yet; the message's fee
      // once, on its first record
      let feeToRecord = fee
      for (const [currency, units] of moves) {
        moved.set(currency, (moved.get(currency) ?? 0n) + units)
        let left = units
        for (const row of ownerRows.filter((candidate) => candidate.currency === currency)) {
          const amount = recordableUnits(left, unswept.get(row) ?? 0n, 0n)
          if (amount === 0n) continue
          sweeps.push({
            ...sweepSourceOf(row),
            address,
            currency,
            amount: formatUnits(amount, decimalsOf(currency)),
            fee: formatUnits(feeToRecord, SOL_DECIMALS),
            feeCurrency: SOL,
            stepId: id,
          })
          feeToRecord = 0n
          left -= amount
          unswept.set(row, (unswept.get(row) ?? 0n) - amount)
        }
      }
    }
  }

  const headroom =
    steps.length === 0 ? undefined : treasuryReserve(treasury, treasuryHeld, spending, steps.length)
  const common = {
    steps,
    sweeps,
    skipped,
    moved: new Map([...moved].filter(([, units]) => units > 0n)),
    treasuryNativeChange: treasuryChange,
    treasurySpentUnits: steps.length === 0 ? 0n : withHeadroom(spending.fees + spending.rent),
    nativeCurrency: SOL,
    nativeDecimals: SOL_DECIMALS,
    ...(headroom === undefined ? {} : { headroom }),
  }
  if (input.nonceAccounts.length > 0) {
    return {
      ...common,
      validUntil: new Date(input.now.getTime() + NONCE_VALIDITY_MS),
      validity: `Solana messages use the durable nonces of ${input.nonceAccounts.join(', ')}: each stays valid until its nonce account is advanced (used by this or another transaction). Do not use these nonce accounts elsewhere until the sweep is broadcast.`,
    }
  }
  return {
    ...common,
    validUntil: new Date(input.now.getTime() + BLOCKHASH_VALIDITY_MS),
    validity: `Solana messages carry blockhash ${blockhash}: they land only until block height ${lastValidBlockHeight}, about 60 to 90 seconds after planning. Sign and broadcast at once; after that, plan again.`,
  }
}

/** the owner's token accounts (classic Token program) of the registry's mints, by currency then address */
async function ownedAccounts(
  connection: Connection,
  owner: PublicKey,
  tokens: Map<string, RegistryToken>,
): Promise<OwnedAccount[]> {
  const { value } = await connection.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID })
  const order = [...tokens.keys()]
  return value
    .flatMap(({ pubkey, account }) => {
      const info = account.data.parsed?.info as
        | { mint?: string; state?: string; tokenAmount?: { amount?: string } }
        | undefined
      const token = info?.mint === undefined ? undefined : tokens.get(info.mint)
      // a frozen account can neither send nor close; another mint is not the registry's to value
      if (token === undefined || info?.state !== 'initialized') return []
      return [
        {
          address: pubkey,
          mint: new PublicKey(token.contract),
          token,
          amount: BigInt(info.tokenAmount?.amount ?? 0),
          lamports: BigInt(account.lamports),
        },
      ]
    })
    .sort(
      (a, b) =>
        order.indexOf(a.token.contract) - order.indexOf(b.token.contract) ||
        a.address.toBase58().localeCompare(b.address.toBase58()),
    )
}

/**
 * Why an owner's sweep is not worth it, or undefined: its net cost (fees and the rent it opens, less
 * the rent it closes) against the value of what it moves, tokens at the operator's rates
 */
function costDecision(
  drafts: Draft[],
  netCost: bigint,
  input: PlanInput,
  decimalsOf: (currency: string) => number,
): 'FEES_EXCEED_AMOUNT' | 'NO_RATE' | undefined {
  if (netCost <= 0n || input.allowLoss) return undefined
  let value = 0n
  let unpriced = false
  for (const { moves } of drafts) {
    for (const [currency, units] of moves) {
      if (units === 0n) continue
      if (currency === SOL) {
        value += units
        continue
      }
      const rate = input.rates.get(currency)
      if (rate === undefined) unpriced = true
      else
        value += tokenValueInNativeUnits(units, rate, { native: SOL_DECIMALS, token: decimalsOf(currency) })
    }
  }
  if (value >= netCost) return undefined
  return unpriced ? 'NO_RATE' : 'FEES_EXCEED_AMOUNT'
}

/**
 * What the treasury must hold for the plan's fees and rent, with headroom: the plan is refused when
 * it holds less, as every message would then be refused (docs/treasury.md, "Headroom")
 */
function treasuryReserve(
  treasury: PublicKey,
  held: bigint,
  spending: { fees: bigint; rent: bigint },
  messages: number,
): string {
  const needed = withHeadroom(spending.fees + spending.rent)
  const sol = (lamports: bigint) => formatUnits(lamports, SOL_DECIMALS)
  if (held < needed) {
    throw new CommandError(
      `the treasury ${treasury.toBase58()} holds ${sol(held)} SOL; the sweep's fees and rent need up to ${sol(needed)} (${sol(spending.fees + spending.rent)} plus ${HEADROOM_PERCENT}%): send it SOL, then plan again`,
    )
  }
  return `fees: ${messages} message${messages === 1 ? '' : 's'}, ${sol(spending.fees)} SOL at the node’s price, and ${sol(spending.rent)} SOL of rent for the treasury's new token accounts; the treasury holds ${sol(held)} SOL, at least that plus ${HEADROOM_PERCENT}% (${sol(needed)})`
}

function describeMoves(moves: Map<string, bigint>, decimalsOf: (currency: string) => number): string {
  const parts = [...moves]
    .filter(([, units]) => units > 0n)
    .map(([currency, units]) => `${formatUnits(units, decimalsOf(currency))} ${currency}`)
  if (parts.length === 0) return 'nothing but rent'
  return parts.length === 1 ? (parts[0] as string) : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`
}

function newDraft(): Draft {
  return { instructions: [], moves: new Map(), closed: 0, rentBack: 0n, opens: [] }
}

function compile(payer: PublicKey, recentBlockhash: string, instructions: TransactionInstruction[]) {
  return new TransactionMessage({ payerKey: payer, recentBlockhash, instructions }).compileToLegacyMessage()
}

/** whether the instructions fit one signed transaction, a durable nonce's advance included when used */
function fits(treasury: PublicKey, instructions: TransactionInstruction[], input: PlanInput): boolean {
  const nonce = input.nonceAccounts[0]
  const all =
    nonce === undefined
      ? instructions
      : [
          SystemProgram.nonceAdvance({ noncePubkey: new PublicKey(nonce), authorizedPubkey: treasury }),
          ...instructions,
        ]
  const size = compile(treasury, PublicKey.default.toBase58(), all).serialize().length
  return size + SIGNATURE_BYTES <= MAX_TRANSACTION_BYTES
}

/**
 * The treasury's nonce accounts (--nonce-account), one per message: a message advances its nonce,
 * so two messages cannot share one. Each must have the treasury as its authority.
 */
function durableNonces(connection: Connection, accounts: string[], treasury: PublicKey) {
  let used = 0
  return {
    async next(): Promise<{ account: PublicKey; nonce: string } | undefined> {
      if (accounts.length === 0) return undefined
      const address = accounts[used]
      if (address === undefined) {
        throw new CommandError(
          `more messages than nonce accounts (${accounts.length}): pass one --nonce-account per message`,
        )
      }
      used += 1
      const account = new PublicKey(address)
      const state = await connection.getNonce(account, 'confirmed')
      if (state === null) throw new CommandError(`${address} is not a nonce account`)
      if (!state.authorizedPubkey.equals(treasury)) {
        throw new CommandError(`the authority of nonce account ${address} is not the treasury`)
      }
      return { account, nonce: state.nonce }
    },
  }
}
