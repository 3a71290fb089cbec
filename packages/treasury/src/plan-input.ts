// What both chains' planners take and give: the operator's choices in, steps and figures out.

import { defaultAssetRegistry, formatUnits, toUnits } from '@chainpay/domain'
import type { BalanceRow } from './admin-api.js'
import { CommandError } from './command-error.js'
import {
  type PlannedSweep,
  type PlanSigner,
  type PlanStep,
  type SkippedAddress,
  sweepSourceOf,
} from './sweep-plan.js'
import { recordableUnits } from './sweep-rules.js'

export interface PlanInput {
  rpcUrl: string
  /** TRON: the node serving /walletsolidity (default: rpcUrl) */
  solidityUrl?: string
  apiKey?: string
  network: string
  treasury: Omit<PlanSigner, 'role'>
  /** TRON: delegate staked energy from the treasury, or send TRX for the address to burn */
  energy: 'burn' | 'delegate'
  /** smallest units below which an address is left alone (--min CURRENCY=AMOUNT) */
  minimums: Map<string, bigint>
  /** native coins per whole token (--rate USDT=3.6), scaled: value = nativePerTokenUnits / rateScale */
  rates: Map<string, { nativePerTokenUnits: bigint; rateScale: bigint }>
  allowLoss: boolean
  /** Solana: the treasury's durable nonce accounts, one per message (--nonce-account) */
  nonceAccounts: string[]
  decimals(currency: string): number
  /** the tokens of the network's registry (TRC20 contracts, SPL mints): what a sweep moves besides the coin */
  tokens: RegistryToken[]
  now: Date
}

export interface RegistryToken {
  currency: string
  contract: string
  decimals: number
}

/** the registry's assets of a network, as a plan reads them (chainpay-wallet knows the default registry) */
export function networkAssets(network: string): Pick<PlanInput, 'decimals' | 'tokens'> {
  const assets = defaultAssetRegistry.assets.filter((asset) => asset.network === network)
  return {
    decimals(currency) {
      const asset = assets.find((candidate) => candidate.currency === currency)
      if (asset === undefined) throw new CommandError(`no asset ${currency} on ${network}`)
      return asset.decimals
    },
    tokens: assets.flatMap(({ currency, contract, decimals }) =>
      contract === null ? [] : [{ currency, contract, decimals }],
    ),
  }
}

export interface PlanOutput {
  steps: PlanStep[]
  sweeps: PlannedSweep[]
  skipped: SkippedAddress[]
  moved: Map<string, bigint>
  /** what the treasury's native balance changes by once every step landed (negative: it pays) */
  treasuryNativeChange: bigint
  /**
   * what the treasury pays of its coin before anything comes back (top-ups, fees, rent, with their
   * headroom): the plan's refunds and payouts are paid from what is left (outgoing-planner.ts)
   */
  treasurySpentUnits: bigint
  nativeCurrency: string
  nativeDecimals: number
  /** what the plan set aside beyond the node's estimates, and where it goes if unused (docs/treasury.md) */
  headroom?: string
  validUntil: Date
  validity: string
}

/**
 * The record of a planned sweep for POST /admin/sweeps, or undefined when it moves nothing of the
 * payment's funds (only the treasury's own coin coming back; see recordableUnits).
 */
export function plannedSweep(
  row: BalanceRow,
  moved: { units: bigint; decimals: number },
  fee: { units: bigint; currency: string; decimals: number },
  stepId: string,
): PlannedSweep | undefined {
  const units = recordableUnits(
    moved.units,
    toUnits(row.received, moved.decimals),
    toUnits(row.swept, moved.decimals),
  )
  if (units === 0n) return undefined
  return {
    ...sweepSourceOf(row),
    address: row.address,
    currency: row.currency,
    amount: formatUnits(units, moved.decimals),
    fee: formatUnits(fee.units, fee.decimals),
    feeCurrency: fee.currency,
    stepId,
  }
}
