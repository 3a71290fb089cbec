import type { FeePolicy } from '@chainpay/domain'

// Merchants and their API keys. Secrets are stored sealed (encrypted at rest); the store never sees
// a plain secret. Each sealed value is bound to the record and field it belongs to (the contexts
// below): moved to another row, it no longer opens.

export interface MerchantRecord {
  merchantId: string
  name: string
  webhookUrl: string | null
  /** sealed webhook secret */
  webhookSecret: string
  feePolicy: FeePolicy
  createdAt: string
  updatedAt: string
  /** what the customer's page calls the merchant (docs/api.md, "The customer's page"); absent: `name` */
  displayName?: string
  /** an image the gateway fetches and shows on the customer's page; absent: no logo */
  logoUrl?: string
  /**
   * percent a payment may fall short and still be confirmed, "0".."5" (docs/api.md, "Underpayment
   * tolerance"); set by the operator; absent: "0"
   */
  underpaymentTolerancePercent?: string
}

export interface ApiKeyRecord {
  /** public key id sent in X-Service-Key */
  apiKey: string
  merchantId: string
  /** sealed API secret */
  secret: string
  createdAt: string
  revokedAt: string | null
  /**
   * when the key stops working (docs/operations.md, "API keys"): a rolled key's end of overlap;
   * absent: it works until revoked
   */
  expiresAt?: string
}

export type MerchantPatch = Partial<
  Pick<MerchantRecord, 'name' | 'webhookUrl' | 'webhookSecret' | 'feePolicy'>
> & {
  /** null removes them */
  displayName?: string | null
  logoUrl?: string | null
  underpaymentTolerancePercent?: string
}

export interface MerchantStore {
  createMerchant(merchant: MerchantRecord, firstKey: ApiKeyRecord): Promise<void>
  getMerchant(merchantId: string): Promise<MerchantRecord | null>
  listMerchants(): Promise<MerchantRecord[]>
  /** false when the merchant does not exist */
  updateMerchant(merchantId: string, patch: MerchantPatch, updatedAt: string): Promise<boolean>
  addApiKey(key: ApiKeyRecord): Promise<void>
  /** false when the key does not exist, belongs to another merchant, or is already revoked */
  revokeApiKey(merchantId: string, apiKey: string, revokedAt: string): Promise<boolean>
  findApiKey(apiKey: string): Promise<ApiKeyRecord | null>
  /**
   * Sets when the merchant's key stops working (a roll's end of overlap), never later than an end
   * already set (two rolls at once keep the earlier); false when the key does not exist, belongs to
   * another merchant, or is revoked.
   */
  setApiKeyExpiry(merchantId: string, apiKey: string, expiresAt: string): Promise<boolean>
  listApiKeys(merchantId: string): Promise<ApiKeyRecord[]>
  /**
   * Re-sealing (a new key, or a new format): replaces the merchant's sealed webhook secret by
   * `replacement` only while it is still `expected`, so that a re-seal never undoes a rotation that
   * happened meanwhile; `updatedAt` is left alone (the secret is the same). False when it changed or
   * the merchant does not exist.
   */
  replaceSealedWebhookSecret(merchantId: string, expected: string, replacement: string): Promise<boolean>
  /** the same for an API key's sealed secret */
  replaceSealedApiSecret(apiKey: string, expected: string, replacement: string): Promise<boolean>
}

/** what a merchant's sealed webhook secret is bound to: the context it is sealed and opened with */
export function webhookSecretContext(merchantId: string): string {
  return JSON.stringify(['merchant', merchantId, 'webhookSecret'])
}

/** what an API key's sealed secret is bound to: the key and its merchant, so that neither can be swapped */
export function apiSecretContext(key: Pick<ApiKeyRecord, 'apiKey' | 'merchantId'>): string {
  return JSON.stringify(['api-key', key.merchantId, key.apiKey, 'secret'])
}
