// The chain client contract's driver over a simulated network: how the contract suite makes things
// happen on the chain behind whichever client (the simulator's own, tronweb, web3.js) reads it.
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import type { ChainDriver } from '@chainpay/ports/testing'
import { simulatedAddress } from '../chain-format.js'
import type { ChainSimulator } from '../simulator.js'

/** pays `currency` of the default registry on `network`, to fresh addresses of its chain */
export function simulatorChainDriver(
  simulator: ChainSimulator,
  network: string,
  currency: string,
): ChainDriver {
  const asset = resolveAsset(defaultAssetRegistry, { network, currency })
  return {
    currency: {
      code: currency,
      decimals: asset.decimals,
      asset: asset.contract === null ? { kind: 'native' } : { kind: 'token', contract: asset.contract },
    },
    newAddress: () => simulatedAddress(asset.chain),
    submitTransfer: (transfer) => simulator.submitTransfer(network, { ...transfer, currency }),
    mineBlocks: async (count) => {
      await simulator.mineBlocks(network, count)
    },
    dropTransaction: (txHash) => simulator.dropTransaction(network, txHash),
  }
}
