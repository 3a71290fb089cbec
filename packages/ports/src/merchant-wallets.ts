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
  /**
   * replaces the sealed seed only if it is still `expected` (a re-seal's compare-and-set); false when
   * the merchant has no wallet any more or its seed changed meanwhile
   */
  replaceSealedSeed(merchantId: string, expected: string, replacement: string): Promise<boolean>
}

/** what the admin API and CLI may show of a merchant's wallet: never the seed */
export interface MerchantWalletView {
  merchantId: string
  walletId: string
  tronAccountXpub: string
  solanaAddress0: string
  setAt: string
}

/** a `secrets reseal` run over the merchants' wallet seeds */
export interface SeedResealReport {
  /** seeds looked at */
  total: number
  /** sealed again under the current key */
  resealed: number
  /** already in the current format under the current key, and opened fine */
  alreadyCurrent: number
  /** seeds no configured key opens, left as they are; the problem never quotes the value */
  unopenable: Array<{ merchantId: string; problem: string }>
}

/**
 * Merchants' own wallets as the operator manages them (docs/api.md, "Merchant wallets"), kept by the
 * service that derives addresses (payment-command); the gateway reaches it in process or over the
 * command API.
 */
export interface MerchantWallets {
  /**
   * sets or replaces the merchant's wallet; throws DomainError NOT_FOUND (no such merchant),
   * INVALID_TRON_XPUB, INVALID_SOLANA_SEED or WALLET_ALREADY_IN_USE
   */
  set(merchantId: string, keys: { tronAccountXpub: string; solanaSeed: string }): Promise<MerchantWalletView>
  /** null when the merchant has no wallet of its own */
  show(merchantId: string): Promise<MerchantWalletView | null>
  /** false when the merchant had no wallet of its own: its payments derive from the operator's again */
  remove(merchantId: string): Promise<boolean>
  /** every seed sealed again under the current encryption key (docs/operations.md) */
  resealSeeds(): Promise<SeedResealReport>
}
