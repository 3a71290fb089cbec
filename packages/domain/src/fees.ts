// Fee policy (decisions.md section 5): basis points plus an optional fixed fee per asset.

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
export declare function computeFee(
  amountUnits: bigint,
  asset: { network: string; currency: string; decimals: number },
  policy: FeePolicy,
): { feeUnits: bigint; netUnits: bigint }
