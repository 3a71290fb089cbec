// broadcast's Solana side, through @solana/web3.js: a message's status (confirmed: in a block;
// finalized: final), and the chain read again before a message is sent: its fee, the balances it
// moves whole, the accounts it closes or pays into, and the treasury's SOL for its fee and rent, so
// that what no longer holds is said plainly instead of a preflight's program error
// (docs/treasury.md, "Broadcast").

import { formatUnits } from '@chainpay/domain'
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  decodeCloseAccountInstruction,
  decodeTransferCheckedInstruction,
  TOKEN_PROGRAM_ID,
  TokenInstruction,
} from '@solana/spl-token'
import {
  Connection,
  type ParsedAccountData,
  PublicKey,
  SystemInstruction,
  SystemProgram,
  TransactionMessage,
  type TransactionSignature,
  VersionedTransaction,
} from '@solana/web3.js'
import type { BroadcastOptions, ChainLink } from './chain-link.js'
import { NodeRefusal } from './chain-link.js'
import type { SignedStep } from './sweep-plan.js'
import { HEADROOM_PERCENT, withHeadroom } from './sweep-rules.js'

const SOL_DECIMALS = 9
const TOKEN_ACCOUNT_BYTES = 165

export function solanaChainLink(options: BroadcastOptions): ChainLink {
  const connection = new Connection(options.rpcUrl, {
    commitment: 'confirmed',
    ...(options.apiKey === undefined ? {} : { httpHeaders: { 'x-api-key': options.apiKey } }),
  })

  async function statusOf(step: SignedStep) {
    const [status] = (
      await connection.getSignatureStatuses([step.txId as TransactionSignature], {
        searchTransactionHistory: true,
      })
    ).value
    return status
  }

  return {
    async status(step) {
      const status = await statusOf(step)
      if (status) {
        if (status.err !== null) return { state: 'failed', reason: JSON.stringify(status.err) }
        if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')
          return { state: 'included', feeUnits: BigInt(step.estimate?.fee ?? 0) }
        return { state: 'unknown' }
      }
      const planned = step.solana
      if (planned?.nonceAccount !== undefined) {
        // a durable nonce: dead once the account holds another nonce and this signature is unknown
        const nonce = await connection.getNonce(new PublicKey(planned.nonceAccount), 'confirmed')
        return nonce?.nonce === planned.blockhash ? { state: 'unknown' } : { state: 'expired' }
      }
      const height = await connection.getBlockHeight('confirmed')
      return height > (planned?.lastValidBlockHeight ?? 0) ? { state: 'expired' } : { state: 'unknown' }
    },

    async send(step) {
      if (step.solana === undefined) throw new NodeRefusal(`step ${step.id} has no Solana transaction`)
      try {
        await connection.sendRawTransaction(Buffer.from(step.solana.transaction, 'base64'), {
          preflightCommitment: 'confirmed',
        })
      } catch (error) {
        // preflight refused it: nothing was charged
        throw new NodeRefusal(`the node refused ${step.id}: ${(error as Error).message}`)
      }
    },

    async recheck(step, run) {
      if (step.solana === undefined) return `it has no Solana transaction`
      const treasury = new PublicKey(run.signed.treasury)
      const { message } = VersionedTransaction.deserialize(Buffer.from(step.solana.transaction, 'base64'))
      const planned = BigInt(step.estimate?.fee ?? 0)
      // a blockhash's fee is the one the plan priced; a durable nonce's message may wait for days
      let fee = planned
      if (step.solana.nonceAccount !== undefined) {
        const priced = (await connection.getFeeForMessage(message, 'confirmed')).value
        if (priced === null) return 'its nonce is no longer valid. Plan, sign and broadcast again.'
        fee = BigInt(priced)
      }
      if (fee > withHeadroom(planned)) {
        return `its fee is ${formatUnits(fee, SOL_DECIMALS)} SOL now; the plan set aside ${formatUnits(withHeadroom(planned), SOL_DECIMALS)} (${formatUnits(planned, SOL_DECIMALS)} when planning, plus ${HEADROOM_PERCENT}%). Plan again, sign and broadcast the new plan.`
      }
      const instructions = TransactionMessage.decompile(message).instructions
      // what the message moves whole, closes, pays into and creates
      const wholeLamports = new Map<string, bigint>()
      const wholeTokens = new Map<string, bigint>()
      /** a refund's or payout's: the SOL the treasury sends, and the tokens its accounts send */
      let treasurySends = 0n
      const treasuryTokens = new Map<string, bigint>()
      const closes = new Set<string>()
      const destinations = new Set<string>()
      const creates = new Set<string>()
      for (const instruction of instructions) {
        const { programId } = instruction
        if (programId.equals(SystemProgram.programId)) {
          if (SystemInstruction.decodeInstructionType(instruction) !== 'Transfer') continue
          const { fromPubkey, lamports } = SystemInstruction.decodeTransfer(instruction)
          if (!fromPubkey.equals(treasury)) wholeLamports.set(fromPubkey.toBase58(), lamports)
          else treasurySends += lamports
        } else if (programId.equals(TOKEN_PROGRAM_ID)) {
          if (instruction.data[0] === TokenInstruction.TransferChecked) {
            const { keys, data } = decodeTransferCheckedInstruction(instruction)
            if (keys.owner.pubkey.equals(treasury))
              treasuryTokens.set(keys.source.pubkey.toBase58(), data.amount)
            else wholeTokens.set(keys.source.pubkey.toBase58(), data.amount)
            destinations.add(keys.destination.pubkey.toBase58())
          } else if (instruction.data[0] === TokenInstruction.CloseAccount) {
            closes.add(decodeCloseAccountInstruction(instruction).keys.account.pubkey.toBase58())
          }
        } else if (programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID)) {
          const created = instruction.keys[1]?.pubkey.toBase58()
          if (created !== undefined) creates.add(created)
        }
      }
      const addresses = [
        ...new Set([
          ...wholeLamports.keys(),
          ...closes,
          ...destinations,
          ...creates,
          ...treasuryTokens.keys(),
        ]),
      ]
      const infos = await connection.getMultipleParsedAccounts(
        [treasury, ...addresses.map((address) => new PublicKey(address))],
        { commitment: 'confirmed' },
      )
      const [treasuryInfo, ...accounts] = infos.value
      const info = new Map(addresses.map((address, index) => [address, accounts[index] ?? null]))
      /** a token account as the node parses it: what it holds, of which mint */
      const holding = (address: string) => {
        const data = info.get(address)?.data as ParsedAccountData | undefined
        const parsed = data?.parsed?.info as
          | { mint?: string; tokenAmount?: { amount?: string; decimals?: number } }
          | undefined
        const amount = parsed?.tokenAmount?.amount
        if (typeof amount !== 'string') return undefined
        return { amount: BigInt(amount), decimals: parsed?.tokenAmount?.decimals ?? 0, mint: parsed?.mint }
      }
      const changed: string[] = []
      for (const [owner, lamports] of wholeLamports) {
        const held = BigInt(info.get(owner)?.lamports ?? 0)
        if (held !== lamports) {
          changed.push(
            `${owner} holds ${formatUnits(held, SOL_DECIMALS)} SOL now; the plan moves ${formatUnits(lamports, SOL_DECIMALS)}`,
          )
        }
      }
      for (const account of closes) {
        const held = holding(account)
        // an account closed without a transfer was empty when planned
        const moved = wholeTokens.get(account) ?? 0n
        if (held === undefined) changed.push(`token account ${account} no longer exists`)
        else if (held.amount !== moved) {
          const of = (units: bigint) => formatUnits(units, held.decimals)
          changed.push(
            `token account ${account} (mint ${held.mint}) holds ${of(held.amount)} now; the plan moves ${of(moved)} and closes it`,
          )
        }
      }
      for (const [account, amount] of treasuryTokens) {
        const held = holding(account)
        if (held === undefined || held.amount < amount) {
          const of = (units: bigint) => formatUnits(units, held?.decimals ?? 0)
          changed.push(
            `the treasury's token account ${account} holds ${of(held?.amount ?? 0n)} now, and the message sends ${of(amount)}: send it the tokens first`,
          )
        }
      }
      let opened = 0n
      for (const destination of destinations) {
        if (info.get(destination) !== null) continue
        if (creates.has(destination)) opened += 1n
        else if (step.outgoing !== undefined)
          changed.push(
            `the recipient's token account ${destination} no longer exists (closed since the plan)`,
          )
        else changed.push(`the treasury's token account ${destination} no longer exists`)
      }
      const rent =
        opened === 0n
          ? 0n
          : opened * BigInt(await connection.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_BYTES))
      const treasuryHeld = BigInt(treasuryInfo?.lamports ?? 0)
      if (treasuryHeld < fee + rent + treasurySends) {
        changed.push(
          `the treasury holds ${formatUnits(treasuryHeld, SOL_DECIMALS)} SOL, and the message costs ${formatUnits(fee + rent, SOL_DECIMALS)} in fee and rent${treasurySends > 0n ? ` and sends ${formatUnits(treasurySends, SOL_DECIMALS)}` : ''}: send it SOL first`,
        )
      }
      if (changed.length === 0) return undefined
      return `${changed.join('; ')}. The message was not sent. Plan again, sign and broadcast the new plan.`
    },

    async finality(step) {
      const status = await statusOf(step)
      if (status?.err) return 'failed'
      return status?.confirmationStatus === 'finalized' ? 'final' : 'pending'
    },

    async treasuryOutflow(step) {
      const transaction = await connection.getTransaction(step.txId, {
        commitment: 'finalized',
        maxSupportedTransactionVersion: 0,
      })
      const meta = transaction?.meta
      if (!meta) throw new Error(`the node has no finalized transaction ${step.txId}`)
      // the fee payer is the first account: the treasury
      return BigInt(meta.preBalances[0] ?? 0) - BigInt(meta.postBalances[0] ?? 0)
    },

    async spent(run) {
      let change = 0n
      let fees = 0n
      for (const id of run.landed.keys()) {
        const step = run.signed.steps.find((candidate) => candidate.id === id)
        const transaction = await connection.getTransaction(step?.txId ?? '', {
          commitment: 'confirmed',
          maxSupportedTransactionVersion: 0,
        })
        const meta = transaction?.meta
        if (!meta) continue
        // the fee payer is the first account: the treasury
        change += BigInt(meta.postBalances[0] ?? 0) - BigInt(meta.preBalances[0] ?? 0)
        fees += BigInt(meta.fee)
      }
      if (run.landed.size === 0) return []
      const sign = change < 0n ? '-' : '+'
      return [
        `  the treasury's SOL changed by ${sign}${formatUnits(change < 0n ? -change : change, SOL_DECIMALS)} in this run, fees ${formatUnits(fees, SOL_DECIMALS)} SOL over ${run.landed.size} transactions`,
      ]
    },
  }
}
