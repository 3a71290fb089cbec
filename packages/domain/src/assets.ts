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

export declare const defaultAssetRegistry: AssetRegistry

/** `${network}:${currency}`, the key of per-asset settings such as fixed fees */
export declare function assetKey(asset: Pick<Asset, 'network' | 'currency'>): string

/**
 * The asset for a request; tokenStandard may be omitted (inferred) but must match when sent.
 * Throws DomainError UNSUPPORTED_ASSET with a message listing what is supported.
 */
export declare function resolveAsset(
  registry: AssetRegistry,
  request: { network: string; currency: string; tokenStandard?: string | undefined },
): Asset

export declare function findNetwork(registry: AssetRegistry, network: string): NetworkDefinition | undefined

/** the asset whose contract or mint is `contract` on `network`, or the native coin when null */
export declare function findAssetByContract(
  registry: AssetRegistry,
  network: string,
  contract: string | null,
): Asset | undefined
