// Fee policy (docs/api.md, "Fees"): basis points plus an optional fixed fee per asset.

import { assetKey } from './assets.js'
import { toUnits } from './money.js'

export interface FeePolicy {
  /** 100 = 1 % */
  feeBps: number
  /** fixed fee per asset as a decimal string, keyed `${network}:${currency}` */
  fixedFees: Record<string, string>
}

export const defaultFeePolicy: FeePolicy = { feeBps: 100, fixedFees: {} }

/**
 * feeUnits = roundHalfUp(amountUnits * feeBps / 10000) + fixed fee of the asset, capped at
 * amountUnits; netUnits = amountUnits - feeUnits. Both are integers of the asset's smallest unit.
 */
export function computeFee(
  amountUnits: bigint,
  asset: { network: string; currency: string; decimals: number },
  policy: FeePolicy,
): { feeUnits: bigint; netUnits: bigint } {
  if (amountUnits < 0n) throw new RangeError('computeFee: amountUnits must not be negative')
  if (!Number.isSafeInteger(policy.feeBps) || policy.feeBps < 0) {
    throw new RangeError(`computeFee: feeBps must be a non-negative integer, got ${policy.feeBps}`)
  }
  // Adding half of the divisor before the integer division rounds a non-negative quotient half up.
  const proportional = (amountUnits * BigInt(policy.feeBps) + 5_000n) / 10_000n
  const fixedFee = policy.fixedFees[assetKey(asset)]
  const fixed = fixedFee === undefined ? 0n : toUnits(fixedFee, asset.decimals)
  const fee = proportional + fixed
  const feeUnits = fee < amountUnits ? fee : amountUnits
  return { feeUnits, netUnits: amountUnits - feeUnits }
}
