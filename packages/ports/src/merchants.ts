import type { FeePolicy } from '@chainpay/domain'

// Merchants and their API keys. Secrets are stored sealed (encrypted at rest); the store never sees
// a plain secret.

export interface MerchantRecord {
  merchantId: string
  name: string
  webhookUrl: string | null
  /** sealed webhook secret */
  webhookSecret: string
  feePolicy: FeePolicy
  createdAt: string
  updatedAt: string
}

export interface ApiKeyRecord {
  /** public key id sent in X-Service-Key */
  apiKey: string
  merchantId: string
  /** sealed API secret */
  secret: string
  createdAt: string
  revokedAt: string | null
}

export type MerchantPatch = Partial<
  Pick<MerchantRecord, 'name' | 'webhookUrl' | 'webhookSecret' | 'feePolicy'>
>

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
  listApiKeys(merchantId: string): Promise<ApiKeyRecord[]>
}
