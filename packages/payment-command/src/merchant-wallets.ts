// A merchant's own wallet, kept where addresses are derived (docs/security.md, "Merchant wallets"):
// the keys are validated, refused when another wallet (the operator's included) uses one of them,
// and the Solana seed is sealed before it reaches the store. Nothing here returns or logs the seed.

import type { SecretBox } from '@chainpay/platform'
import { type MerchantWalletStore, merchantWalletSeedContext, WalletKeyInUseError } from '@chainpay/ports'
import {
  assertWalletNotInUse,
  MerchantWalletError,
  type MerchantWalletPublicParts,
  merchantWalletPublicParts,
} from '@chainpay/wallet'

/** what the admin API and CLI may show of a merchant's wallet */
export interface MerchantWalletView {
  merchantId: string
  walletId: string
  tronAccountXpub: string
  solanaAddress0: string
  setAt: string
}

export interface MerchantWallets {
  /** throws MerchantWalletError (INVALID_TRON_XPUB, INVALID_SOLANA_SEED, WALLET_ALREADY_IN_USE) */
  set(
    merchantId: string,
    keys: { tronAccountXpub: string; solanaSeed: string },
    now: string,
  ): Promise<MerchantWalletView>
  show(merchantId: string): Promise<MerchantWalletView | null>
  /** false when the merchant had no wallet of its own: its payments derive from the operator's again */
  remove(merchantId: string): Promise<boolean>
}

export function createMerchantWallets(deps: {
  store: MerchantWalletStore
  secretBox: SecretBox
  /** the operator's wallet: no merchant may be given one of its keys */
  operatorWallet: { tronAccountXpub: string; solanaSeed: string }
}): MerchantWallets {
  const { store, secretBox } = deps
  const operator = merchantWalletPublicParts(deps.operatorWallet)
  return {
    async set(merchantId, keys, now) {
      const solanaSeed = keys.solanaSeed.trim().toLowerCase()
      const parts = merchantWalletPublicParts({ tronAccountXpub: keys.tronAccountXpub, solanaSeed })
      // the store refuses another merchant's keys itself (atomically); the operator's are checked here
      // assertWalletNotInUse passes a wallet's own keys (to allow replacing it): the operator's, whole, here
      if (parts.walletId === operator.walletId)
        throw new MerchantWalletError('WALLET_ALREADY_IN_USE', "these keys are already the operator's wallet")
      assertWalletNotInUse(parts, [{ owner: "the operator's wallet", wallet: operator }])
      const record = {
        merchantId,
        ...parts,
        sealedSolanaSeed: secretBox.seal(solanaSeed, merchantWalletSeedContext(merchantId)),
        setAt: now,
      }
      try {
        await store.setWallet(record)
      } catch (error) {
        if (error instanceof WalletKeyInUseError)
          throw new MerchantWalletError('WALLET_ALREADY_IN_USE', error.message)
        throw error
      }
      return view(record)
    },
    async show(merchantId) {
      const record = await store.getWallet(merchantId)
      return record === null ? null : view(record)
    },
    remove: (merchantId) => store.removeWallet(merchantId),
  }
}

function view(record: MerchantWalletPublicParts & { merchantId: string; setAt: string }): MerchantWalletView {
  return {
    merchantId: record.merchantId,
    walletId: record.walletId,
    tronAccountXpub: record.tronAccountXpub,
    solanaAddress0: record.solanaAddress0,
    setAt: record.setAt,
  }
}
