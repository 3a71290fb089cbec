// Which payment a transfer concerns: its own asset to a watched payment's address pays it; another
// asset of the registry there, or TRX a contract sent there, is foreign funds for it (docs/api.md,
// "Foreign funds"). On Solana the payment's address is the owner of whichever token account the
// transfer reaches, and SOL to an SPL payment's owner is foreign funds (decisions 19). A token
// outside the registry (a counterfeit) concerns no one, and nor does what chainpay's own treasury
// sends (a sweep's activation or energy top-up: TREASURY_ADDRESSES, docs/treasury.md).

import type { AssetRegistry } from '@chainpay/domain'
import type { ChainTransfer, ForeignAsset, WatchedAddress } from '@chainpay/ports'

/** the payment a transfer pays (or brings foreign funds to): its watch entry and the foreign asset */
export type Payee = WatchedAddress & { foreign: ForeignAsset | null }

export type PayeeOf = (transfer: ChainTransfer) => Payee | undefined

export interface PayeeRules {
  network: string
  registry: AssetRegistry
  /** the addresses whose transfers are never anybody's funds: the operator's treasuries */
  treasuries?: ReadonlySet<string>
}

/** the payee of a transfer among `watched`, the watched entries of payments' addresses */
export function createPayeeOf(
  rules: PayeeRules,
  watched: {
    entryOf(transfer: ChainTransfer): WatchedAddress | undefined
    match(transfer: ChainTransfer): WatchedAddress | undefined
  },
): PayeeOf {
  const foreignAsset = foreignAssetOf(rules)
  const treasuries = rules.treasuries ?? new Set<string>()
  return (transfer) => {
    if (transfer.from !== null && treasuries.has(transfer.from)) return undefined
    const own = watched.match(transfer)
    if (own !== undefined) return { ...own, foreign: null }
    if (!transfer.success) return undefined
    const entry = watched.entryOf(transfer)
    const foreign = entry && foreignAsset(transfer)
    return entry && foreign && { ...entry, foreign }
  }
}

/** the registry asset of a transfer on the network, as foreign funds are recorded; undefined outside the registry */
export function foreignAssetOf(rules: PayeeRules): (transfer: ChainTransfer) => ForeignAsset | undefined {
  const assets = rules.registry.assets.filter((asset) => asset.network === rules.network)
  return (transfer) => {
    const contract = transfer.asset.kind === 'native' ? null : transfer.asset.contract
    const asset = assets.find((candidate) => candidate.contract === contract)
    return asset && { currency: asset.currency, decimals: asset.decimals }
  }
}
