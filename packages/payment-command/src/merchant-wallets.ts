// A merchant's own wallet, kept where addresses are derived (docs/security.md, "Merchant wallets"):
// the keys are validated, refused when another wallet (the operator's included) uses one of them,
// and the Solana seed is sealed before it reaches the store. It is opened only to derive a payment's
// address and to re-seal it. Nothing here returns or logs the seed.

import { type Chain, DomainError } from '@chainpay/domain'
import type { Clock, SecretBox } from '@chainpay/platform'
import { isoNow } from '@chainpay/platform'
import {
  type MerchantStore,
  type MerchantWalletRecord,
  type MerchantWalletStore,
  type MerchantWallets,
  type MerchantWalletView,
  merchantWalletSeedContext,
  type SeedResealReport,
  UnavailableError,
  WalletKeyInUseError,
} from '@chainpay/ports'
import {
  type AddressDeriver,
  assertWalletNotInUse,
  createAddressDeriver,
  MerchantWalletError,
  merchantWalletPublicParts,
  walletKeyIdOf,
} from '@chainpay/wallet'

/** a wallet's deriver and the id recorded in each payment derived from it */
export interface WalletDeriver extends AddressDeriver {
  walletId: string
  /**
   * the public identity of the wallet's key for a chain, which its indexes are counted by
   * (AddressIndexAllocator): the TRON account key fingerprint, the Solana address 0
   */
  keyIdOf(chain: Chain): string
}

export interface MerchantWalletKeeper extends MerchantWallets {
  /** the merchant's own wallet's deriver; null when its payments derive from the operator's */
  deriverFor(merchantId: string): Promise<WalletDeriver | null>
}

/** attempts per row when its seed keeps changing under a re-seal (each change is the operator's set) */
const RESEAL_ATTEMPTS_PER_ROW = 5

export function createMerchantWallets(deps: {
  store: MerchantWalletStore
  /** a wallet is set for a merchant that exists only */
  merchants: Pick<MerchantStore, 'getMerchant'>
  secretBox: SecretBox
  /** the operator's wallet: no merchant may be given one of its keys */
  operatorWallet: { tronAccountXpub: string; solanaSeed: string }
  clock: Clock
}): MerchantWalletKeeper {
  const { store, secretBox } = deps
  const operator = merchantWalletPublicParts(deps.operatorWallet)

  const resealOne = async (
    listed: MerchantWalletRecord,
  ): Promise<'resealed' | 'alreadyCurrent' | 'gone' | { problem: string }> => {
    const context = merchantWalletSeedContext(listed.merchantId)
    for (let attempt = 1; ; attempt += 1) {
      const record = await store.getWallet(listed.merchantId)
      if (record === null) return 'gone'
      let seed: string
      try {
        seed = secretBox.open(record.sealedSolanaSeed, context)
      } catch (error) {
        return { problem: (error as Error).message }
      }
      if (secretBox.isSealedWithCurrentKey(record.sealedSolanaSeed)) return 'alreadyCurrent'
      const resealed = secretBox.seal(seed, context)
      if (await store.replaceSealedSeed(record.merchantId, record.sealedSolanaSeed, resealed))
        return 'resealed'
      if (attempt === RESEAL_ATTEMPTS_PER_ROW) {
        throw new Error(`re-seal: the wallet of ${record.merchantId} kept changing; run it again`)
      }
    }
  }

  return {
    async set(merchantId, keys) {
      if ((await deps.merchants.getMerchant(merchantId)) === null) {
        throw new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
      }
      const solanaSeed = keys.solanaSeed.trim().toLowerCase()
      const record = {
        merchantId,
        ...validWallet(keys.tronAccountXpub, solanaSeed, operator),
        sealedSolanaSeed: secretBox.seal(solanaSeed, merchantWalletSeedContext(merchantId)),
        setAt: isoNow(deps.clock),
      }
      try {
        // the store refuses another merchant's keys itself, atomically
        await store.setWallet(record)
      } catch (error) {
        if (error instanceof WalletKeyInUseError)
          throw new DomainError('WALLET_ALREADY_IN_USE', error.message)
        throw error
      }
      return view(record)
    },
    async show(merchantId) {
      const record = await store.getWallet(merchantId)
      return record === null ? null : view(record)
    },
    remove: (merchantId) => store.removeWallet(merchantId),
    async resealSeeds() {
      const report: SeedResealReport = { total: 0, resealed: 0, alreadyCurrent: 0, unopenable: [] }
      for (const listed of await store.listWallets()) {
        const outcome = await resealOne(listed)
        if (outcome === 'gone') continue
        report.total += 1
        if (outcome === 'resealed') report.resealed += 1
        else if (outcome === 'alreadyCurrent') report.alreadyCurrent += 1
        else report.unopenable.push({ merchantId: listed.merchantId, problem: outcome.problem })
      }
      return report
    },
    async deriverFor(merchantId) {
      const record = await store.getWallet(merchantId)
      if (record === null) return null
      let solanaSeed: string
      try {
        solanaSeed = secretBox.open(record.sealedSolanaSeed, merchantWalletSeedContext(merchantId))
      } catch (error) {
        // the merchant's payments wait (503) rather than derive from another wallet than its own
        throw new UnavailableError(
          `the wallet seed of merchant ${merchantId} opens with no configured key: give payment-command the key that sealed it in CHAINPAY_ENCRYPTION_KEY_PREVIOUS (docs/operations.md, "Rotating the encryption key")`,
          { cause: error },
        )
      }
      const deriver = createAddressDeriver(
        { tronAccountXpub: record.tronAccountXpub, solanaSeed },
        record.walletId,
      )
      return {
        ...deriver,
        walletId: record.walletId,
        keyIdOf: (chain) => walletKeyIdOf(record, chain),
      }
    },
  }
}

/** the wallet's public parts, or the DomainError that says what is wrong with its keys */
function validWallet(
  tronAccountXpub: string,
  solanaSeed: string,
  operator: ReturnType<typeof merchantWalletPublicParts>,
): ReturnType<typeof merchantWalletPublicParts> {
  try {
    const parts = merchantWalletPublicParts({ tronAccountXpub, solanaSeed })
    // assertWalletNotInUse passes a wallet's own keys (to allow replacing it): the operator's, whole, here
    if (parts.walletId === operator.walletId) {
      throw new MerchantWalletError('WALLET_ALREADY_IN_USE', "these keys are already the operator's wallet")
    }
    assertWalletNotInUse(parts, [{ owner: "the operator's wallet", wallet: operator }])
    return parts
  } catch (error) {
    if (error instanceof MerchantWalletError) throw new DomainError(error.code, error.message)
    throw error
  }
}

function view(record: MerchantWalletRecord): MerchantWalletView {
  return {
    merchantId: record.merchantId,
    walletId: record.walletId,
    tronAccountXpub: record.tronAccountXpub,
    solanaAddress0: record.solanaAddress0,
    setAt: record.setAt,
  }
}
