// `chainpay-wallet broadcast`: sends the signed steps in order, each after the ones it depends on
// are confirmed, then records each sweep with the admin API. Safe to run again after any failure:
// the state file says what was confirmed and recorded, and the chain is asked about every step
// before it is sent, so nothing is sent twice (docs/treasury.md, "Broadcast").

import { existsSync, readFileSync } from 'node:fs'
import { Connection, PublicKey, type TransactionSignature } from '@solana/web3.js'
import { TronWeb } from 'tronweb'
import type { AdminApi } from './admin-api.js'
import { CommandError } from './command-error.js'
import { type SignedStep, type SignedSweep, writeJsonFile } from './sweep-plan.js'

export interface BroadcastState {
  /** step id -> confirmed on chain */
  confirmed: Record<string, true>
  /** step id -> its sweeps recorded with POST /admin/sweeps */
  recorded: Record<string, true>
}

export interface BroadcastOptions {
  rpcUrl: string
  apiKey?: string
  statePath: string
  admin: AdminApi
  pollMs: number
  /** polls of one step before giving up (the run can be started again) */
  maxPolls: number
  log(line: string): void
}

/** what a chain answers about a transaction, and how it is sent */
interface ChainLink {
  status(step: SignedStep): Promise<'confirmed' | 'failed' | 'unknown' | 'expired'>
  send(step: SignedStep): Promise<void>
}

export async function broadcastSigned(
  signed: SignedSweep,
  options: BroadcastOptions,
): Promise<BroadcastState> {
  const state = readState(options.statePath)
  const chain = signed.chain === 'TRON' ? tronLink(options) : solanaLink(options)
  const save = () => writeJsonFile(options.statePath, state)
  for (const step of signed.steps) {
    if (!state.confirmed[step.id]) {
      const missing = step.after.filter((id) => !state.confirmed[id])
      if (missing.length > 0) throw new CommandError(`step ${step.id} waits for ${missing.join(', ')}`)
      let status = await chain.status(step)
      if (status === 'unknown') {
        options.log(`sending ${step.id}: ${step.description}`)
        await chain.send(step)
      }
      for (let poll = 0; status !== 'confirmed'; poll += 1) {
        if (status === 'failed') throw new CommandError(`step ${step.id} (${step.txId}) failed on chain`)
        if (status === 'expired') {
          throw new CommandError(
            `step ${step.id} (${step.txId}) expired before landing: plan, sign and broadcast again`,
          )
        }
        if (poll >= options.maxPolls)
          throw new CommandError(`step ${step.id} (${step.txId}) not confirmed yet: run broadcast again`)
        await new Promise((resolve) => setTimeout(resolve, options.pollMs))
        status = await chain.status(step)
      }
      state.confirmed[step.id] = true
      save()
      options.log(`confirmed ${step.id} ${step.txId}`)
    }
    if (!state.recorded[step.id]) {
      for (const sweep of signed.sweeps.filter((candidate) => candidate.stepId === step.id)) {
        await options.admin.recordSweep({
          paymentId: sweep.paymentId,
          txHash: step.txId,
          currency: sweep.currency,
          amount: sweep.amount,
          fee: sweep.fee,
          feeCurrency: sweep.feeCurrency,
          treasury: signed.treasury,
        })
      }
      state.recorded[step.id] = true
      save()
    }
  }
  return state
}

export function statePathOf(signedPath: string): string {
  return `${signedPath}.state.json`
}

function readState(path: string): BroadcastState {
  if (!existsSync(path)) return { confirmed: {}, recorded: {} }
  return JSON.parse(readFileSync(path, 'utf8')) as BroadcastState
}

function tronLink(options: BroadcastOptions): ChainLink {
  const tronWeb = new TronWeb({
    fullHost: options.rpcUrl,
    ...(options.apiKey === undefined ? {} : { headers: { 'TRON-PRO-API-KEY': options.apiKey } }),
  })
  return {
    async status(step) {
      const info = (await tronWeb.trx.getUnconfirmedTransactionInfo(step.txId)) as {
        blockNumber?: number
        receipt?: { result?: string }
        result?: string
      }
      if (info.blockNumber !== undefined) {
        const failed =
          info.result === 'FAILED' ||
          (info.receipt?.result !== undefined && info.receipt.result !== 'SUCCESS')
        return failed ? 'failed' : 'confirmed'
      }
      const expiration = (step.tron?.raw_data as { expiration?: number } | undefined)?.expiration ?? 0
      return Date.now() > expiration ? 'expired' : 'unknown'
    },
    async send(step) {
      const answer = (await tronWeb.trx.sendRawTransaction(step.tron as never)) as {
        result?: boolean
        code?: string
        message?: string
      }
      // DUP_TRANSACTION_ERROR: the node already has it, from an earlier run
      if (answer.result !== true && answer.code !== 'DUP_TRANSACTION_ERROR') {
        const message = answer.message ? Buffer.from(answer.message, 'hex').toString('utf8') : ''
        throw new CommandError(`the node refused ${step.id}: ${answer.code ?? 'error'} ${message}`.trim())
      }
    },
  }
}

function solanaLink(options: BroadcastOptions): ChainLink {
  const connection = new Connection(options.rpcUrl, {
    commitment: 'confirmed',
    ...(options.apiKey === undefined ? {} : { httpHeaders: { 'x-api-key': options.apiKey } }),
  })
  return {
    async status(step) {
      const [status] = (
        await connection.getSignatureStatuses([step.txId as TransactionSignature], {
          searchTransactionHistory: true,
        })
      ).value
      if (status) {
        if (status.err !== null) return 'failed'
        if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')
          return 'confirmed'
        return 'unknown'
      }
      const planned = step.solana
      if (planned?.nonceAccount !== undefined) {
        // a durable nonce: dead once the account holds another nonce and this signature is unknown
        const nonce = await connection.getNonce(new PublicKey(planned.nonceAccount), 'confirmed')
        return nonce?.nonce === planned.blockhash ? 'unknown' : 'expired'
      }
      const height = await connection.getBlockHeight('confirmed')
      return height > (planned?.lastValidBlockHeight ?? 0) ? 'expired' : 'unknown'
    },
    async send(step) {
      if (step.solana === undefined) throw new CommandError(`step ${step.id} has no Solana transaction`)
      await connection.sendRawTransaction(Buffer.from(step.solana.transaction, 'base64'), {
        preflightCommitment: 'confirmed',
      })
    },
  }
}
