// The asset registry (decisions.md section 3) as data. Operators extend it through configuration;
// the defaults below are the v1 registry.

export type Chain = 'TRON' | 'SOLANA'
export type TokenStandard = 'NATIVE' | 'TRC20' | 'SPL'

export interface NetworkDefinition {
  /** canonical upper-case name, e.g. TRON, TRON_NILE, SOLANA, SOLANA_DEVNET */
  network: string
  chain: Chain
  /** confirmations at which a transfer counts as final: TRON 20, SOLANA 32 (finalized) */
  requiredConfirmations: number
  testnet: boolean
}

export interface Asset {
  network: string
  chain: Chain
  currency: string
  tokenStandard: TokenStandard
  decimals: number
  /** TRC20 contract or SPL mint; null for the native coin */
  contract: string | null
  /** largest accepted amount, in smallest units (default 1,000,000,000 whole units) */
  maxAmountUnits: string
}

export interface AssetRegistry {
  readonly networks: readonly NetworkDefinition[]
  readonly assets: readonly Asset[]
}
