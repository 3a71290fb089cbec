// One receiving address per payment: the chain decides the scheme, an SPL token adds the token
// account the payer's wallet actually sends to.
import { type Asset, OPERATOR_WALLET_ID, type ReceivingAddress } from '@chainpay/domain'
import { associatedTokenAccount } from './associated-token-account.js'
import { createSolanaAddressDeriver } from './solana-address.js'
import { createTronAddressDeriver } from './tron-address.js'

export interface AddressDeriver {
  derive(asset: Asset, index: number): ReceivingAddress
}

/** `walletId` names the wallet the keys are: the operator's unless a merchant's (docs/api.md) */
export function createAddressDeriver(
  keys: {
    tronAccountXpub: string
    solanaSeed: Uint8Array | string
  },
  walletId = OPERATOR_WALLET_ID,
): AddressDeriver {
  const tron = createTronAddressDeriver(keys.tronAccountXpub)
  const solana = createSolanaAddressDeriver(keys.solanaSeed)
  return {
    derive(asset, index) {
      switch (asset.chain) {
        case 'TRON': {
          const { address, derivationPath } = tron(index)
          return { address, tokenAccount: null, derivationPath, walletId }
        }
        case 'SOLANA': {
          const { address, derivationPath } = solana(index)
          const tokenAccount =
            asset.tokenStandard === 'SPL' ? associatedTokenAccount(address, mint(asset)) : null
          return { address, tokenAccount, derivationPath, walletId }
        }
      }
    },
  }
}

function mint(asset: Asset): string {
  if (!asset.contract) throw new Error(`the SPL asset ${asset.network}:${asset.currency} has no mint`)
  return asset.contract
}
