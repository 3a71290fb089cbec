// Fee policy (decisions.md section 5): basis points plus an optional fixed fee per asset.

export interface FeePolicy {
  /** 100 = 1 % */
  feeBps: number
  /** fixed fee per asset as a decimal string, keyed `${network}:${currency}` */
  fixedFees: Record<string, string>
}

export const defaultFeePolicy: FeePolicy = { feeBps: 100, fixedFees: {} }
