// A merchant's own wallet (docs/security.md, "Merchant wallets"): the TRON account xpub and the
// Solana seed addresses are derived from. Only the service that derives addresses keeps this store;
// the seed is stored sealed (bound to the merchant, see merchantWalletSeedContext), never in plain.

export interface MerchantWalletRecord {
  merchantId: string
  /** public fingerprint of both keys (`w_` + 20 hex), recorded in each payment derived from it */
  walletId: string
  /** extended public key of m/44'/195'/0' */
  tronAccountXpub: string
  /** hex of sha256 over the account's public key and chain code: the same key gives the same text */
  tronAccountKeyFingerprint: string
  /** the Solana address at m/44'/501'/0'/0': identifies the seed in public */
  solanaAddress0: string
  /** the sealed Solana seed */
  sealedSolanaSeed: string
  setAt: string
}

/** the SecretBox context a merchant's seed is sealed under: moved to another row, it does not open */
export function merchantWalletSeedContext(merchantId: string): string {
  return `merchant-wallet:${merchantId}:solanaSeed`
}

/** Another merchant's wallet already uses this TRON account key or Solana seed. */
export class WalletKeyInUseError extends Error {
  override readonly name = 'WalletKeyInUseError'
}

export interface MerchantWalletStore {
  /**
   * sets (or replaces) the merchant's wallet; throws WalletKeyInUseError, and changes nothing, when
   * another merchant's wallet has the same TRON account key or Solana seed
   */
  setWallet(wallet: MerchantWalletRecord): Promise<void>
  getWallet(merchantId: string): Promise<MerchantWalletRecord | null>
  /** false when the merchant had no wallet of its own */
  removeWallet(merchantId: string): Promise<boolean>
  /** every merchant's wallet, ordered by merchant id */
  listWallets(): Promise<MerchantWalletRecord[]>
}
