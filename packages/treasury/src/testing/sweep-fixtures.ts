// What the planner's and the broadcaster's tests against the simulated nodes share: a wallet's keys
// from one mnemonic, balances rows as the admin API gives them, and plan, sign and broadcast run in
// the test's process with chainpay-wallet's own functions (sign's network guard belongs to the
// command, and is tested with it).

import { createHash, randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Chain, toUnits } from '@chainpay/domain'
import { createSolanaAddressDeriver, createTronAddressDeriver, walletFromMnemonic } from '@chainpay/wallet'
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { Keypair } from '@solana/web3.js'
import { TronWeb } from 'tronweb'
import { AdminRefusal, type BalanceRow } from '../admin-api.js'
import { type BroadcastOptions, broadcastSigned } from '../broadcaster.js'
import { TREASURY_PATHS } from '../commands.js'
import type { OutgoingKind, OutgoingRow } from '../outgoing-plan.js'
import { networkAssets, type PlanInput } from '../plan-input.js'
import { signPlan } from '../plan-signer.js'
import type { SignedSweep, SweepPlan } from '../sweep-plan.js'
import { type OutgoingInput, planSummary, planSweep } from '../sweep-planner.js'
import type { RecordingAdminApi } from './recording-admin-api.js'

export interface DerivedPayment {
  address: string
  derivationPath: string
}

export interface SweepWallet {
  mnemonic: string
  /** m/44'/195'/1'/0/0, the TRON treasury's default */
  tronTreasury: DerivedPayment & { privateKey: string }
  tronPayment(index: number): DerivedPayment
  /** a key of its own, as docs/treasury.md asks of a Solana treasury */
  solanaTreasury: Keypair
  solanaPayment(index: number): DerivedPayment
}

export function sweepWallet(): SweepWallet {
  const mnemonic = generateMnemonic(wordlist, 256)
  const keys = walletFromMnemonic(mnemonic)
  const treasury = TronWeb.fromMnemonic(mnemonic, TREASURY_PATHS.TRON)
  return {
    mnemonic,
    tronTreasury: {
      address: treasury.address,
      derivationPath: TREASURY_PATHS.TRON,
      privateKey: treasury.privateKey.replace(/^0x/, ''),
    },
    tronPayment: createTronAddressDeriver(keys.tronAccountXpub),
    solanaTreasury: Keypair.generate(),
    solanaPayment: createSolanaAddressDeriver(mnemonicToSeedSync(mnemonic)),
  }
}

/** a row of GET /admin/v1/balances for a payment's address */
export function balanceRow(
  network: string,
  payment: DerivedPayment,
  fields: Pick<BalanceRow, 'paymentId' | 'currency' | 'received'> & Partial<BalanceRow>,
): BalanceRow {
  const token = networkAssets(network).tokens.find((candidate) => candidate.currency === fields.currency)
  const standard = network.startsWith('TRON') ? 'TRC20' : 'SPL'
  return {
    merchantId: 'mer_test',
    walletId: 'operator',
    depositId: null,
    network,
    address: payment.address,
    tokenAccount: null,
    derivationPath: payment.derivationPath,
    tokenStandard: token === undefined ? 'NATIVE' : standard,
    contract: token?.contract ?? null,
    swept: '0',
    onChainError: null,
    onChain: null,
    ...fields,
  }
}

/** what commands.ts gives a planner, for a network of the default registry */
export function planInput(
  network: string,
  fields: Pick<PlanInput, 'rpcUrl' | 'treasury'> & Partial<PlanInput>,
): PlanInput {
  return {
    network,
    energy: 'burn',
    minimums: new Map(),
    rates: new Map(),
    allowLoss: false,
    nonceAccounts: [],
    now: new Date(),
    ...networkAssets(network),
    ...fields,
  }
}

export interface PlannedAndSigned {
  plan: SweepPlan
  /** what `plan` prints */
  lines: string[]
  signed: SignedSweep
}

/** a ready refund or payout as GET /admin/v1/outgoing lists it, paid from the operator's wallet */
export function outgoingRow(
  network: string,
  fields: {
    kind: OutgoingKind
    id: string
    currency: string
    amount: string
    address: string
  } & Partial<OutgoingRow>,
): OutgoingRow {
  return {
    merchantId: 'mer_test',
    walletId: null,
    network,
    status: 'ready',
    planId: null,
    txHash: null,
    ...fields,
  }
}

/**
 * what `plan` gives the planner of the admin API's ready items, as commands.ts does; `beforeMark`
 * runs before each item is marked (what a merchant's cancel at that moment would do)
 */
export async function outgoingOf(
  admin: RecordingAdminApi,
  network: string,
  beforeMark: (row: OutgoingRow) => void = () => undefined,
): Promise<OutgoingInput> {
  const planId = randomUUID()
  return {
    rows: await admin.outgoing({ network, status: 'ready', walletId: 'operator' }),
    planId,
    async mark(row) {
      beforeMark(row)
      try {
        await admin.markPlanned(row, planId)
        return undefined
      } catch (error) {
        if (error instanceof AdminRefusal) return error
        throw error
      }
    },
    release: (row) => admin.release(row, planId),
  }
}

/** plan from the rows, then sign with the wallet's mnemonic (and the Solana treasury's own key) */
export async function planAndSign(
  rows: BalanceRow[],
  input: PlanInput,
  chain: Chain,
  wallet: SweepWallet,
  outgoing?: OutgoingInput,
): Promise<PlannedAndSigned> {
  const plan = await planSweep(rows, input, chain, outgoing)
  const text = JSON.stringify(plan)
  const signed = signPlan({
    plan,
    planSha256: createHash('sha256').update(text).digest('hex'),
    mnemonic: wallet.mnemonic,
    ...(chain === 'SOLANA'
      ? { treasuryKey: { chain: 'SOLANA' as const, secretKey: wallet.solanaTreasury.secretKey } }
      : {}),
  })
  return { plan, lines: planSummary(plan, 'plan.json'), signed }
}

export interface BroadcastRun {
  /** the command's error line, undefined when it ended well */
  error: string | undefined
  /** what it printed */
  lines: string[]
}

/** a signed decimal of the plan file (totals.treasuryNativeChange) in smallest units */
export function signedUnits(decimal: string, decimals: number): bigint {
  return decimal.startsWith('-') ? -toUnits(decimal.slice(1), decimals) : toUnits(decimal, decimals)
}

/** a new state file's path: each signed file has its own */
export function statePath(): string {
  return join(mkdtempSync(join(tmpdir(), 'chainpay-broadcast-')), 'signed.json.state.json')
}

/** `broadcast` once; a failure is its message, as the command prints it */
export async function broadcastRun(
  signed: SignedSweep,
  options: Pick<BroadcastOptions, 'rpcUrl' | 'statePath'> &
    Partial<BroadcastOptions> & { admin: RecordingAdminApi },
): Promise<BroadcastRun> {
  const lines: string[] = []
  try {
    await broadcastSigned(signed, {
      pollMs: 10,
      maxPolls: 500,
      ...options,
      log: (line) => {
        lines.push(line)
        options.log?.(line)
      },
    })
    return { error: undefined, lines }
  } catch (error) {
    return { error: (error as Error).message, lines }
  }
}
