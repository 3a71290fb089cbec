// The three files of a sweep (docs/treasury.md, "Files"): the plan (online, no keys), the signed
// transactions (offline) and the broadcast state (online). Versioned JSON; none holds key material.

import { readFileSync, writeFileSync } from 'node:fs'
import type { Chain } from '@chainpay/domain'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { CommandError } from './command-error.js'
import type { OutgoingStepRef, PlannedOutgoing, SkippedOutgoing } from './outgoing-plan.js'

export const PLAN_FORMAT = 'chainpay-sweep-plan'
export const SIGNED_FORMAT = 'chainpay-sweep-signed'
export const FORMAT_VERSION = 1
/**
 * a plan or signed file that pays refunds or payouts: a version 1 reader (an older chainpay-wallet)
 * refuses it rather than sign or send them without their checks and records
 */
export const OUTGOING_FORMAT_VERSION = 2
const READABLE_VERSIONS: readonly number[] = [FORMAT_VERSION, OUTGOING_FORMAT_VERSION]

/** a key the signer derives from the mnemonic, and the address it must give */
export interface PlanSigner {
  role: 'treasury' | 'payment'
  address: string
  /** BIP32 / SLIP-0010 path; null for a treasury whose key comes from --treasury-key-file */
  derivationPath: string | null
}

/** an unsigned TRON transaction as java-tron's HTTP API and tronweb write it */
export interface TronUnsignedTransaction {
  txID: string
  raw_data: Record<string, unknown> & {
    contract: Array<{ type: string; parameter: { value: Record<string, unknown> } }>
    expiration: number
  }
  raw_data_hex: string
  visible?: boolean
}

export interface PlanStep {
  /** unique in the plan, e.g. `activate:T...`; broadcast keeps its state per id */
  id: string
  description: string
  /** ids of the steps that must be confirmed before this one is sent */
  after: string[]
  /**
   * the step whose effect this one takes back (TRON undelegate: its delegation): broadcast sends it
   * once that step landed, whatever happened to the steps between (docs/treasury.md, "Broadcast")
   */
  undoes?: string
  /** what the node said when planning, which broadcast compares with what it says just before sending */
  estimate?: StepEstimate
  /** the refund or payout this step activates or pays (docs/treasury.md, "Refunds and payouts in a plan") */
  outgoing?: OutgoingStepRef
  signers: PlanSigner[]
  tron?: { transaction: TronUnsignedTransaction }
  /**
   * the serialized message (base64), fee payer first, with the blockhash it expires with (last valid
   * block height), or the durable nonce it uses (no expiry until the nonce account advances)
   */
  solana?: { message: string; blockhash: string; lastValidBlockHeight: number | null; nonceAccount?: string }
}

/** the node's figures a step was planned with (decimal strings of the chain's smallest units) */
export interface StepEstimate {
  /** TRON TRC20 transfer: its energy (triggerconstantcontract's energy_used) and getEnergyFee in sun */
  energy?: string
  energyPriceSun?: string
  /** Solana: the message's fee (getFeeForMessage), in lamports */
  fee?: string
}

/**
 * where a sweep's funds are recorded: a payment's address, or a customer's confirmed deposit
 * (docs/treasury.md, "Customers' deposit addresses in a plan"), whose paymentId is null
 */
export interface SweepSource {
  paymentId: string | null
  /** the deposit's id, on a deposit's records only */
  depositId?: string
}

/** the source of a balances row, as a plan file writes it */
export function sweepSourceOf(row: { paymentId: string | null; depositId?: string | null }): SweepSource {
  return row.depositId == null ? { paymentId: row.paymentId } : { paymentId: null, depositId: row.depositId }
}

/** what broadcast records with POST /admin/sweeps once the step that moves the funds is final */
export interface PlannedSweep extends SweepSource {
  address: string
  currency: string
  /** decimal string in whole units, as in the admin API */
  amount: string
  fee: string
  feeCurrency: string
  stepId: string
}

export interface SkippedAddress extends SweepSource {
  address: string
  currency: string
  holds: string
  reason: string
}

export interface SweepPlan {
  format: typeof PLAN_FORMAT
  version: typeof FORMAT_VERSION | typeof OUTGOING_FORMAT_VERSION
  createdAt: string
  /** the id the plan's refunds and payouts were marked with (POST /admin/v1/outgoing/.../plan) */
  planId?: string
  network: string
  chain: Chain
  treasury: PlanSigner
  /** ISO time after which the transactions can no longer land: sign and broadcast before it */
  validUntil: string
  validity: string
  steps: PlanStep[]
  sweeps: PlannedSweep[]
  /** the refunds and payouts the plan pays, each marked `sending` in this plan */
  outgoing?: PlannedOutgoing[]
  /** addresses the plan leaves alone, and ready refunds and payouts it leaves out (with `kind`) */
  skipped: Array<SkippedAddress | SkippedOutgoing>
  /** per currency: what reaches the treasury, and the native coin the treasury spends or gets back */
  totals: {
    moved: Record<string, string>
    /** per currency, what the treasury pays to refunds and payouts */
    paid?: Record<string, string>
    treasuryNativeChange: string
    feeCurrency: string
    /** what the plan set aside beyond the node's estimates, and where it goes if unused */
    headroom?: string
  }
}

export interface SignedStep {
  id: string
  description: string
  after: string[]
  undoes?: string
  estimate?: StepEstimate
  outgoing?: OutgoingStepRef
  /** TRON txID (hex) or Solana first signature (base58): what the chain is asked about */
  txId: string
  tron?: Record<string, unknown>
  /** base64 wire transaction */
  solana?: {
    transaction: string
    blockhash: string
    lastValidBlockHeight: number | null
    nonceAccount?: string
  }
}

export interface SignedSweep {
  format: typeof SIGNED_FORMAT
  version: typeof FORMAT_VERSION | typeof OUTGOING_FORMAT_VERSION
  /** sha256 of the plan file the steps were signed from */
  planSha256: string
  network: string
  chain: Chain
  treasury: string
  validUntil: string
  steps: SignedStep[]
  sweeps: PlannedSweep[]
  planId?: string
  /** the refunds and payouts to check, send and record (docs/treasury.md, "Refunds and payouts in a plan") */
  outgoing?: PlannedOutgoing[]
}

export function writeJsonFile(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o644 })
}

export function readPlanFile(path: string): { plan: SweepPlan; sha256: string } {
  const text = readText(path)
  const plan = parseJson(text, path) as SweepPlan
  if (plan.format !== PLAN_FORMAT || !READABLE_VERSIONS.includes(plan.version)) {
    throw new CommandError(`${path} is not a ${PLAN_FORMAT} version ${READABLE_VERSIONS.join(' or ')} file`)
  }
  return { plan, sha256: bytesToHex(sha256(new TextEncoder().encode(text))) }
}

export function readSignedFile(path: string): SignedSweep {
  const signed = parseJson(readText(path), path) as SignedSweep
  if (signed.format !== SIGNED_FORMAT || !READABLE_VERSIONS.includes(signed.version)) {
    throw new CommandError(`${path} is not a ${SIGNED_FORMAT} version ${READABLE_VERSIONS.join(' or ')} file`)
  }
  return signed
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new CommandError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`)
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new CommandError(`${path} is not JSON`)
  }
}
