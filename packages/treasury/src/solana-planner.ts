// The Solana half of `chainpay-wallet plan`: one message per payment address, the treasury paying
// the fee; SOL moves whole (an account may go to exactly 0), a token account is emptied and closed
// so that its rent returns to the treasury (docs/treasury.md, "Solana: fees and rent").

import { formatUnits } from '@chainpay/domain'
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createCloseAccountInstruction,
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
import type { BalanceRow } from './admin-api.js'
import { CommandError } from './command-error.js'
import { type PlanInput, type PlanOutput, plannedSweep } from './plan-input.js'
import type { PlannedSweep, PlanStep, SkippedAddress } from './sweep-plan.js'
import { decideSweep, nativeCostInTokenUnits } from './sweep-rules.js'

const SOL_DECIMALS = 9
const TOKEN_ACCOUNT_BYTES = 165
/** a blockhash is accepted for 150 blocks after it, about 60 to 90 seconds */
const BLOCKHASH_VALIDITY_MS = 60_000
/** a durable nonce does not expire; the plan still names a date to be looked at again */
const NONCE_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000

export async function planSolana(rows: BalanceRow[], input: PlanInput): Promise<PlanOutput> {
  const connection = new Connection(input.rpcUrl, {
    commitment: 'confirmed',
    ...(input.apiKey === undefined ? {} : { httpHeaders: { 'x-api-key': input.apiKey } }),
  })
  const treasury = new PublicKey(input.treasury.address)
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash('confirmed')
  const treasuryTokenAccounts = new Set<string>()
  const nonces = durableNonces(connection, input.nonceAccounts, treasury)
  const steps: PlanStep[] = []
  const sweeps: PlannedSweep[] = []
  const skipped: SkippedAddress[] = []
  const moved = new Map<string, bigint>()
  let treasuryChange = 0n

  for (const row of rows) {
    const owner = new PublicKey(row.address)
    const instructions: TransactionInstruction[] = []
    let amount: bigint
    let rentBack = 0n
    let rentSpent = 0n
    /** the treasury token account this step opens (or finds open), once the step is kept */
    let opensTreasuryAccount: string | undefined
    const decimals = input.decimals(row.currency)
    if (row.tokenStandard === 'NATIVE') {
      amount = BigInt(await connection.getBalance(owner))
      if (amount > 0n)
        instructions.push(SystemProgram.transfer({ fromPubkey: owner, toPubkey: treasury, lamports: amount }))
    } else {
      if (row.contract === null) throw new CommandError(`${row.paymentId}: an SPL row without a mint`)
      const mint = new PublicKey(row.contract)
      // foreign SPL funds have no token account of the payment's own: the owner's associated one holds them
      const tokenAccount =
        row.tokenAccount === null
          ? getAssociatedTokenAddressSync(mint, owner)
          : new PublicKey(row.tokenAccount)
      const info = await connection.getAccountInfo(tokenAccount)
      if (info === null) {
        amount = 0n
      } else {
        amount = BigInt((await connection.getTokenAccountBalance(tokenAccount)).value.amount)
        rentBack = BigInt(info.lamports)
        const destination = getAssociatedTokenAddressSync(mint, treasury)
        // opened by an earlier step of this plan, or already there; marked once this step is kept
        if (!treasuryTokenAccounts.has(destination.toBase58())) {
          opensTreasuryAccount = destination.toBase58()
          if ((await connection.getAccountInfo(destination)) === null) {
            instructions.push(
              createAssociatedTokenAccountIdempotentInstruction(treasury, destination, treasury, mint),
            )
            rentSpent = BigInt(await connection.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_BYTES))
          }
        }
        if (amount > 0n) {
          instructions.push(
            createTransferCheckedInstruction(tokenAccount, mint, destination, owner, amount, decimals),
          )
        }
        // an empty token account is closed too: its rent is worth sweeping on its own
        instructions.push(createCloseAccountInstruction(tokenAccount, treasury, owner))
      }
    }
    const skip = (reason: string) =>
      skipped.push({
        paymentId: row.paymentId,
        address: row.address,
        currency: row.currency,
        holds: formatUnits(amount, decimals),
        reason,
      })
    if (instructions.length === 0) {
      skip('EMPTY')
      continue
    }
    const message = new TransactionMessage({
      payerKey: treasury,
      recentBlockhash: blockhash,
      instructions,
    }).compileToLegacyMessage()
    const fee = BigInt((await connection.getFeeForMessage(message, 'confirmed')).value ?? -1)
    if (fee < 0n)
      throw new CommandError(
        'the node could not price the message: its blockhash is already too old; plan again',
      )
    const netCost = fee + rentSpent - rentBack
    const rate = input.rates.get(row.currency)
    const decision = decideSweep(
      {
        amountUnits: amount > 0n ? amount : rentBack,
        minimumUnits: input.minimums.get(row.currency) ?? 0n,
        netNativeCostUnits: netCost,
        costInAssetUnits:
          row.tokenStandard === 'NATIVE'
            ? netCost
            : rate === undefined
              ? null
              : nativeCostInTokenUnits(netCost, rate, { native: SOL_DECIMALS, token: decimals }),
      },
      input,
    )
    if (!decision.sweep) {
      skip(decision.reason)
      continue
    }
    if (opensTreasuryAccount !== undefined) treasuryTokenAccounts.add(opensTreasuryAccount)
    const id = `sweep:${row.address}:${row.currency}`
    const durable = await nonces.next()
    const signedMessage =
      durable === undefined
        ? { message, blockhash, lastValidBlockHeight }
        : {
            // the same signers, so the same fee; the nonce replaces the blockhash and never expires
            message: new TransactionMessage({
              payerKey: treasury,
              recentBlockhash: durable.nonce,
              instructions: [
                SystemProgram.nonceAdvance({ noncePubkey: durable.account, authorizedPubkey: treasury }),
                ...instructions,
              ],
            }).compileToLegacyMessage(),
            blockhash: durable.nonce,
            lastValidBlockHeight: null,
            nonceAccount: durable.account.toBase58(),
          }
    steps.push({
      id,
      description: `${row.address} sends ${formatUnits(amount, decimals)} ${row.currency} to the treasury${rentBack > 0n ? ', closing its token account' : ''}`,
      after: [],
      signers: [
        { role: 'treasury', ...input.treasury },
        { role: 'payment', address: row.address, derivationPath: row.derivationPath },
      ],
      solana: {
        ...signedMessage,
        message: Buffer.from(signedMessage.message.serialize()).toString('base64'),
      },
    })
    if (amount > 0n) {
      const record = plannedSweep(
        row,
        { units: amount, decimals },
        { units: fee, currency: 'SOL', decimals: SOL_DECIMALS },
        id,
      )
      if (record) sweeps.push(record)
      moved.set(row.currency, (moved.get(row.currency) ?? 0n) + amount)
    }
    treasuryChange += (row.tokenStandard === 'NATIVE' ? amount : 0n) - netCost
  }
  const validUntil = new Date(input.now.getTime() + BLOCKHASH_VALIDITY_MS)
  if (input.nonceAccounts.length > 0) {
    return {
      steps,
      sweeps,
      skipped,
      moved,
      treasuryNativeChange: treasuryChange,
      nativeCurrency: 'SOL',
      nativeDecimals: SOL_DECIMALS,
      validUntil: new Date(input.now.getTime() + NONCE_VALIDITY_MS),
      validity: `Solana messages use the durable nonces of ${input.nonceAccounts.join(', ')}: each stays valid until its nonce account is advanced (used by this or another transaction). Do not use these nonce accounts elsewhere until the sweep is broadcast.`,
    }
  }
  return {
    steps,
    sweeps,
    skipped,
    moved,
    treasuryNativeChange: treasuryChange,
    nativeCurrency: 'SOL',
    nativeDecimals: SOL_DECIMALS,
    validUntil,
    validity: `Solana messages carry blockhash ${blockhash}: they land only until block height ${lastValidBlockHeight}, about 60 to 90 seconds after planning. Sign and broadcast at once; after that, plan again.`,
  }
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
          `more messages than nonce accounts (${accounts.length}): pass one --nonce-account per address to sweep`,
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
