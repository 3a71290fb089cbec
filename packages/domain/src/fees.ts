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
  if (!Number.isSafeInteger(policy.feeBps) || policy.feeBps < 0) {
    throw new RangeError(`computeFee: feeBps must be a non-negative integer, got ${policy.feeBps}`)
  }
  return computeFeeUnits(amountUnits, {
    feeBps: policy.feeBps,
    fixedFeeUnits: fixedFeeUnitsOf(asset, policy),
  })
}

/** the policy's fixed fee for the asset in its smallest unit; 0 when it has none */
export function fixedFeeUnitsOf(
  asset: { network: string; currency: string; decimals: number },
  policy: FeePolicy,
): bigint {
  const fixedFee = policy.fixedFees[assetKey(asset)]
  return fixedFee === undefined ? 0n : toUnits(fixedFee, asset.decimals)
}

/**
 * The fee policy as a payment records it for its asset (PaymentCreated's feeBps and fixedFeeUnits),
 * applied to `amountUnits`: the requested amount at create, what actually arrived at settlement.
 */
export function computeFeeUnits(
  amountUnits: bigint,
  policy: { feeBps: number; fixedFeeUnits: bigint },
): { feeUnits: bigint; netUnits: bigint } {
  if (amountUnits < 0n) throw new RangeError('computeFee: amountUnits must not be negative')
  // Adding half of the divisor before the integer division rounds a non-negative quotient half up.
  const proportional = (amountUnits * BigInt(policy.feeBps) + 5_000n) / 10_000n
  const fee = proportional + policy.fixedFeeUnits
  const feeUnits = fee < amountUnits ? fee : amountUnits
  return { feeUnits, netUnits: amountUnits - feeUnits }
}
