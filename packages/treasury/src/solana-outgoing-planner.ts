// The Solana refunds and payouts of a plan: one message per item, the treasury its only signer and
// fee payer. SOL: a transfer of exactly the amount. SPL: TransferChecked of exactly the amount from
// the treasury's associated token account to the recipient's, created in the same message when it
// does not exist yet (CreateIdempotent, rent paid by the treasury) (docs/treasury.md, "Refunds and
// payouts").

import { formatUnits, toUnits } from '@chainpay/domain'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token'
import {
  Connection,
  PublicKey,
  SystemProgram,
  type TransactionInstruction,
  TransactionMessage,
} from '@solana/web3.js'
import { CommandError } from './command-error.js'
import type { OutgoingCandidate, OutgoingPlanOutput } from './outgoing-candidate.js'
import type { OutgoingRow, SkippedOutgoing } from './outgoing-plan.js'
import type { PlanInput } from './plan-input.js'
import { withHeadroom } from './sweep-rules.js'

const SOL = 'SOL'
const SOL_DECIMALS = 9
const TOKEN_ACCOUNT_BYTES = 165
const BLOCKHASH_VALIDITY_MS = 60_000

export async function planSolanaOutgoing(rows: OutgoingRow[], input: PlanInput): Promise<OutgoingPlanOutput> {
  const connection = new Connection(input.rpcUrl, {
    commitment: 'confirmed',
    ...(input.apiKey === undefined ? {} : { httpHeaders: { 'x-api-key': input.apiKey } }),
  })
  const treasury = new PublicKey(input.treasury.address)
  const tokens = new Map(input.tokens.map((token) => [token.currency, token]))
  const sol = (lamports: bigint) => formatUnits(lamports, SOL_DECIMALS)
  // a system account holds at least its rent-exempt minimum, or nothing: the treasury keeps it, and
  // a new recipient must receive at least that much SOL, else the runtime refuses the transfer
  const accountMinimum = BigInt(await connection.getMinimumBalanceForRentExemption(0))
  const tokenAccountRent = BigInt(await connection.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_BYTES))
  const skipped: SkippedOutgoing[] = []
  const tokenBalances = new Map<string, bigint>()
  const opening = new Set<string>()
  const drafts: Array<{
    row: OutgoingRow
    amountUnits: bigint
    instructions: TransactionInstruction[]
    rent: bigint
    creates: boolean
  }> = []

  // the chain read before the blockhash is taken, as the sweep's planner does (solana-planner.ts)
  for (const row of rows) {
    let recipient: PublicKey
    try {
      recipient = new PublicKey(row.address as string)
    } catch {
      skipped.push(leftOut(row, 'INVALID_ADDRESS', `${row.address} is not a Solana address`))
      continue
    }
    if (row.currency === SOL) {
      const amount = toUnits(row.amount, SOL_DECIMALS)
      const held = BigInt(await connection.getBalance(recipient))
      if (held === 0n && amount < accountMinimum) {
        skipped.push(
          leftOut(
            row,
            'BELOW_RENT_MINIMUM',
            `${row.address} does not exist yet, and a new Solana account must receive at least ${sol(accountMinimum)} SOL (its rent-exempt minimum): the runtime would refuse ${row.amount} SOL. Cancel it, or ask for an address that exists`,
          ),
        )
        continue
      }
      drafts.push({
        row,
        amountUnits: amount,
        instructions: [
          SystemProgram.transfer({ fromPubkey: treasury, toPubkey: recipient, lamports: amount }),
        ],
        rent: 0n,
        creates: false,
      })
      continue
    }
    const token = tokens.get(row.currency)
    if (token === undefined) throw new CommandError(`no SPL ${row.currency} on ${input.network}`)
    const mint = new PublicKey(token.contract)
    const amount = toUnits(row.amount, token.decimals)
    const source = getAssociatedTokenAddressSync(mint, treasury)
    if (!tokenBalances.has(row.currency)) {
      const info = await connection.getAccountInfo(source)
      tokenBalances.set(
        row.currency,
        info === null ? 0n : BigInt((await connection.getTokenAccountBalance(source)).value.amount),
      )
    }
    // a smart wallet's address (a program's) may be off the curve: its associated account works alike
    const destination = getAssociatedTokenAddressSync(mint, recipient, true)
    const key = destination.toBase58()
    const creates = !opening.has(key) && (await connection.getAccountInfo(destination)) === null
    if (creates) opening.add(key)
    drafts.push({
      row,
      amountUnits: amount,
      instructions: [
        ...(creates
          ? [createAssociatedTokenAccountIdempotentInstruction(treasury, destination, recipient, mint)]
          : []),
        createTransferCheckedInstruction(source, mint, destination, treasury, amount, token.decimals),
      ],
      rent: creates ? tokenAccountRent : 0n,
      creates,
    })
  }
  const treasuryHeld = drafts.length === 0 ? 0n : BigInt(await connection.getBalance(treasury))
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed')
  const candidates: OutgoingCandidate[] = []
  for (const { row, amountUnits, instructions, rent, creates } of drafts) {
    const message = new TransactionMessage({
      payerKey: treasury,
      recentBlockhash: blockhash,
      instructions,
    }).compileToLegacyMessage()
    const priced = (await connection.getFeeForMessage(message, 'confirmed')).value
    if (priced === null)
      throw new CommandError(
        'the node could not price a message: its blockhash is already too old; plan again',
      )
    const fee = BigInt(priced)
    const what = row.currency === SOL ? `${row.amount} SOL` : `${row.amount} ${row.currency}`
    candidates.push({
      row,
      amountUnits,
      native: row.currency === SOL,
      estimatedFeeUnits: fee + rent,
      costUnits: withHeadroom(fee) + rent,
      costs: `fee ${sol(fee)} SOL${creates ? `, rent ${sol(rent)} SOL of the recipient's new token account` : ''}`,
      steps: [
        {
          id: `pay:${row.kind}:${row.id}`,
          description: `the treasury pays ${what} to ${row.address} (${row.kind} ${row.id})${creates ? ', creating its token account' : ''}`,
          after: [],
          estimate: { fee: fee.toString() },
          outgoing: { kind: row.kind, id: row.id, role: 'pay' },
          signers: [{ role: 'treasury', ...input.treasury }],
          solana: {
            message: Buffer.from(message.serialize()).toString('base64'),
            blockhash,
            lastValidBlockHeight,
          },
        },
      ],
    })
  }
  return {
    candidates,
    skipped,
    funds: { nativeUnits: treasuryHeld, tokens: tokenBalances },
    reserveUnits: accountMinimum,
    nativeCurrency: SOL,
    nativeDecimals: SOL_DECIMALS,
    validUntil: new Date(input.now.getTime() + BLOCKHASH_VALIDITY_MS),
    validity: `Solana messages carry blockhash ${blockhash}: they land only until block height ${lastValidBlockHeight}, about 60 to 90 seconds after planning. Sign and broadcast at once; after that, plan again.`,
  }
}

function leftOut(row: OutgoingRow, reason: string, detail: string): SkippedOutgoing {
  return {
    kind: row.kind,
    id: row.id,
    address: row.address,
    currency: row.currency,
    amount: row.amount,
    reason,
    detail,
  }
}
