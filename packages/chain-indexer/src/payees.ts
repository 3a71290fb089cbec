// Which payment a transfer in a block concerns: its own asset to a watched address pays it; another
// asset of the registry to that address, or TRX a contract sent there, is foreign funds for it
// (docs/api.md, "Foreign funds"). A token outside the registry (a counterfeit) concerns no one.

import type { AssetRegistry } from '@chainpay/domain'
import type { ChainTransfer, ForeignAsset } from '@chainpay/ports'
import type { Payee } from './confirmations.js'
import type { WatchSet } from './watch-set.js'

export type PayeeOf = (transfer: ChainTransfer) => Payee | undefined

export function createPayeeOf(network: string, registry: AssetRegistry, watchSet: WatchSet): PayeeOf {
  const assets = registry.assets.filter((asset) => asset.network === network)
  const foreignAsset = (transfer: ChainTransfer): ForeignAsset | undefined => {
    const contract = transfer.asset.kind === 'native' ? null : transfer.asset.contract
    const asset = assets.find((candidate) => candidate.contract === contract)
    return asset && { currency: asset.currency, decimals: asset.decimals }
  }
  return (transfer) => {
    const own = watchSet.match(transfer)
    if (own !== undefined) return { ...own, foreign: null }
    if (!transfer.success) return undefined
    const watched = watchSet.get(transfer.to)
    const foreign = watched && foreignAsset(transfer)
    return watched && foreign && { ...watched, foreign }
  }
}
