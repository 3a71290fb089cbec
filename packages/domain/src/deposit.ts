// A deposit (docs/api.md, "Deposits"; decisions.md section 22): a transfer of a registry asset to a
// customer's deposit address when no payment of the address was open to count it. One stream per
// transfer (network, txHash, index), so a transfer is a deposit once; its fee and net are computed at
// detection under the merchant's policy, as a payment's. Chain rules are a payment's (section 11): a
// detected transfer the chain no longer shows is in doubt until it is included again (detected again,
// same txHash) or the chain decides it never will be (dropped); confirmed once final on the chain.

import { createHash } from 'node:crypto'
import { DomainError } from './errors.js'
import { computeFee, type FeePolicy, fixedFeeUnitsOf } from './fees.js'
import type { DropReason, Sweep } from './payment-types.js'
import { decideSweepRecord, type SweepRecordInput, sameSweep } from './sweep-record.js'

export const DepositStatuses = ['detected', 'confirmed', 'in_doubt', 'dropped'] as const
export type DepositStatus = (typeof DepositStatuses)[number]

export interface DepositDetectedData {
  depositId: string
  merchantId: string
  merchantUserId: string
  network: string
  currency: string
  decimals: number
  /** the customer's deposit address (on Solana the owner of the receiving token account) */
  address: string
  txHash: string
  transferIndex: number
  amountUnits: string
  feeUnits: string
  netUnits: string
  /** the merchant's policy at detection, so that the fee can be explained later */
  feeBps: number
  fixedFeeUnits: string
  blockHeight: number
  blockTime: string
  confirmations: number
  requiredConfirmations: number
  detectedAt: string
}

/**
 * a sweep took the deposit's funds (part of them) from the customer's address to the treasury
 * (docs/treasury.md, "Customers' deposit addresses in a plan"): the operator's record, as a payment's
 * PaymentFundsSwept
 */
export type DepositFundsSweptData = { depositId: string; network: string; address: string } & Sweep

export type DepositEvent =
  | { type: 'DepositDetected'; data: DepositDetectedData }
  | { type: 'DepositConfirmationsUpdated'; data: { confirmations: number; blockHeight: number; at: string } }
  | { type: 'DepositConfirmed'; data: { confirmations: number; confirmedAt: string } }
  | { type: 'DepositInDoubt'; data: { at: string } }
  | { type: 'DepositSeenAgain'; data: { confirmations: number; blockHeight: number; at: string } }
  | { type: 'DepositDropped'; data: { reason: DropReason; at: string } }
  | { type: 'DepositFundsSwept'; data: DepositFundsSweptData }

export interface OpenDeposit {
  status: DepositStatus
  detected: DepositDetectedData
  confirmations: number
  blockHeight: number
  confirmedAt: string | null
  dropReason: DropReason | null
  updatedAt: string
  /** the recorded sweeps of its funds; absent from states folded before sweeps were recorded */
  sweeps?: Sweep[]
}

export type DepositState = { status: 'none' } | OpenDeposit

export const initialDepositState: DepositState = { status: 'none' }

/** what the chain indexer reported of the transfer, with what the deposit is recorded under */
export interface DepositObservation {
  status: 'seen' | 'in_doubt' | 'dropped'
  dropReason: DropReason | null
  confirmations: number
  /** final on the chain with the network's confirmations reached */
  final: boolean
  blockHeight: number
  blockTime: string
  amountUnits: string
  txHash: string
  transferIndex: number
}

export type DepositCommand =
  | { type: 'RecordDepositObservation'; data: DepositObservationData }
  | { type: 'RecordDepositSweep'; data: SweepRecordInput & { depositId: string } }

interface DepositObservationData {
  depositId: string
  merchantId: string
  merchantUserId: string
  asset: { network: string; currency: string; decimals: number }
  address: string
  feePolicy: FeePolicy
  requiredConfirmations: number
  observation: DepositObservation
  now: string
}

/** `deposit-<sha256 of network, txHash and index>`: one stream, so one deposit, per transfer */
export function depositIdOf(network: string, txHash: string, transferIndex: number): string {
  return createHash('sha256')
    .update(`${network}\n${txHash}\n${transferIndex}`, 'utf8')
    .digest('hex')
    .slice(0, 32)
}

export function toDepositStreamId(depositId: string): string {
  return `deposit-${depositId}`
}

export function evolveDeposit(state: DepositState, event: DepositEvent): DepositState {
  if (event.type === 'DepositDetected') {
    const { data } = event
    return {
      status: 'detected',
      detected: data,
      confirmations: data.confirmations,
      blockHeight: data.blockHeight,
      confirmedAt: null,
      dropReason: null,
      updatedAt: data.detectedAt,
      sweeps: [],
    }
  }
  if (state.status === 'none') throw new Error(`deposit event ${event.type} before DepositDetected`)
  switch (event.type) {
    case 'DepositConfirmationsUpdated':
    case 'DepositSeenAgain':
      return {
        ...state,
        status: 'detected',
        confirmations: event.data.confirmations,
        blockHeight: event.data.blockHeight,
        updatedAt: event.data.at,
      }
    case 'DepositConfirmed':
      return {
        ...state,
        status: 'confirmed',
        confirmations: event.data.confirmations,
        confirmedAt: event.data.confirmedAt,
        updatedAt: event.data.confirmedAt,
      }
    case 'DepositInDoubt':
      return { ...state, status: 'in_doubt', updatedAt: event.data.at }
    case 'DepositDropped':
      return { ...state, status: 'dropped', dropReason: event.data.reason, updatedAt: event.data.at }
    case 'DepositFundsSwept': {
      const { depositId: _depositId, network: _network, address: _address, ...sweep } = event.data
      const sweeps = state.sweeps ?? []
      if (sweeps.some((known) => sameSweep(known, sweep))) return state
      return { ...state, sweeps: [...sweeps, sweep] }
    }
    default: {
      const never: never = event
      throw new Error(`unknown deposit event ${JSON.stringify(never)}`)
    }
  }
}

export function decideDeposit(command: DepositCommand, state: DepositState): DepositEvent[] {
  switch (command.type) {
    case 'RecordDepositObservation':
      return recordObservation(command.data, state)
    case 'RecordDepositSweep':
      return recordSweep(command.data, state)
    default: {
      const never: never = command
      throw new Error(`unknown deposit command ${String(never)}`)
    }
  }
}

function recordObservation(data: DepositObservationData, state: DepositState): DepositEvent[] {
  const { observation: seen, now } = data
  const confirmed = (): DepositEvent[] =>
    seen.final
      ? [{ type: 'DepositConfirmed', data: { confirmations: seen.confirmations, confirmedAt: now } }]
      : []
  if (state.status === 'none') {
    // a transfer first heard of as in doubt or dropped was never money of the customer's
    if (seen.status !== 'seen') return []
    const amountUnits = BigInt(seen.amountUnits)
    const { feeUnits, netUnits } = computeFee(amountUnits, data.asset, data.feePolicy)
    return [
      {
        type: 'DepositDetected',
        data: {
          depositId: data.depositId,
          merchantId: data.merchantId,
          merchantUserId: data.merchantUserId,
          network: data.asset.network,
          currency: data.asset.currency,
          decimals: data.asset.decimals,
          address: data.address,
          txHash: seen.txHash,
          transferIndex: seen.transferIndex,
          amountUnits: amountUnits.toString(),
          feeUnits: feeUnits.toString(),
          netUnits: netUnits.toString(),
          feeBps: data.feePolicy.feeBps,
          fixedFeeUnits: fixedFeeUnitsOf(data.asset, data.feePolicy).toString(),
          blockHeight: seen.blockHeight,
          blockTime: seen.blockTime,
          confirmations: seen.confirmations,
          requiredConfirmations: data.requiredConfirmations,
          detectedAt: now,
        },
      },
      ...confirmed(),
    ]
  }
  // final states: confirmed is final on the chain, dropped was decided by it (section 11)
  if (state.status === 'confirmed' || state.status === 'dropped') return []
  switch (seen.status) {
    case 'seen': {
      const at = { confirmations: seen.confirmations, blockHeight: seen.blockHeight, at: now }
      if (state.status === 'in_doubt') return [{ type: 'DepositSeenAgain', data: at }, ...confirmed()]
      const moved = seen.confirmations > state.confirmations || seen.blockHeight !== state.blockHeight
      return [
        ...(moved && !seen.final ? [{ type: 'DepositConfirmationsUpdated' as const, data: at }] : []),
        ...confirmed(),
      ]
    }
    case 'in_doubt':
      return state.status === 'in_doubt' ? [] : [{ type: 'DepositInDoubt', data: { at: now } }]
    case 'dropped':
      return [{ type: 'DepositDropped', data: { reason: seen.dropReason ?? 'EXPIRED', at: now } }]
  }
}

/**
 * A sweep took the deposit's funds from the customer's address (docs/treasury.md, "Customers'
 * deposit addresses in a plan"): only a confirmed deposit's, of its own currency, never more than its
 * amount less what sweeps took of it, by the rule every sweep's record follows (sweep-record.ts).
 */
function recordSweep(data: SweepRecordInput & { depositId: string }, state: DepositState): DepositEvent[] {
  if (state.status === 'none') throw new DomainError('NOT_FOUND', `deposit ${data.depositId} not found`)
  const { detected } = state
  const confirmed = state.status === 'confirmed' && data.currency === detected.currency
  const recorded = state.sweeps ?? []
  const sweptUnits = recorded
    .filter((sweep) => sweep.currency === detected.currency)
    .reduce((sum, sweep) => sum + BigInt(sweep.amountUnits), 0n)
  const sweep = decideSweepRecord(data, {
    balance: confirmed
      ? { decimals: detected.decimals, receivedUnits: BigInt(detected.amountUnits), sweptUnits }
      : undefined,
    recorded,
    nothingReceived: `currency: the deposit holds no confirmed ${data.currency} to sweep (it is ${state.status}, of ${detected.currency})`,
  })
  if (sweep === null) return []
  const { depositId, network, address } = detected
  return [{ type: 'DepositFundsSwept', data: { depositId, network, address, ...sweep } }]
}
