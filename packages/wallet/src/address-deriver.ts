// One receiving address per payment: the chain decides the scheme, an SPL token adds the token
// account the payer's wallet actually sends to.
import { type Asset, type Chain, OPERATOR_WALLET_ID, type ReceivingAddress } from '@chainpay/domain'
import { associatedTokenAccount } from './associated-token-account.js'
import { createDepositAddressDeriver } from './deposit-address-deriver.js'
import { createSolanaAddressDeriver } from './solana-address.js'
import { createTronAddressDeriver, type DerivedAddress } from './tron-address.js'

export interface AddressDeriver {
  derive(asset: Asset, index: number): ReceivingAddress
  /**
   * the costly part of derive, what an index of a chain derives to whatever the asset (TRON's
   * address, a Solana owner): for an address pool (docs/capacity.md, "Addresses derived ahead")
   */
  deriveChainAddress(chain: Chain, index: number): DerivedAddress
  /** the rest of derive: the asset's receiving address from its chain's address of the same index */
  receivingAddressOf(asset: Asset, chainAddress: DerivedAddress): ReceivingAddress
  /** a customer's deposit address of the chain at the family's deposit index (deposit-address-deriver.ts) */
  deriveDepositAddress(chain: Chain, index: number): DerivedAddress
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
  const deriveChainAddress = (chain: Chain, index: number): DerivedAddress => {
    switch (chain) {
      case 'TRON':
        return tron(index)
      case 'SOLANA':
        return solana(index)
    }
  }
  const receivingAddressOf = (
    asset: Asset,
    { address, derivationPath }: DerivedAddress,
  ): ReceivingAddress => {
    const tokenAccount =
      asset.chain === 'SOLANA' && asset.tokenStandard === 'SPL'
        ? associatedTokenAccount(address, mint(asset))
        : null
    return { address, tokenAccount, derivationPath, walletId }
  }
  return {
    derive: (asset, index) => receivingAddressOf(asset, deriveChainAddress(asset.chain, index)),
    deriveChainAddress,
    receivingAddressOf,
    deriveDepositAddress: createDepositAddressDeriver(keys),
  }
}

function mint(asset: Asset): string {
  if (!asset.contract) throw new Error(`the SPL asset ${asset.network}:${asset.currency} has no mint`)
  return asset.contract
}
