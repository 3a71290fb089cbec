// The API keys of merchants as authentication reads them (docs/api.md, "Authentication"): a key's
// merchant and its opened secret, looked up in the merchant store and cached for a few seconds to keep
// authentication off the storage hot path (docs/architecture.md); the admin API invalidates the cache
// when it revokes a key or changes a merchant. The gateway's merchantAuthentication checks requests
// with it.

import type { Clock, SecretBox } from '@chainpay/platform'
import { apiSecretContext, type MerchantRecord, type MerchantStore } from '@chainpay/ports'
import { apiKeyWorks } from './api-key-rules.js'

export interface AuthenticatedKey {
  merchant: MerchantRecord
  /** the plain API secret, opened from its sealed form; never logged */
  apiSecret: string
  /** a rolled key's end of overlap, after which it is refused; absent: until revoked */
  expiresAt?: string
}

export interface ApiKeyAuthenticator {
  /** the key's merchant and secret; null for an unknown, revoked or expired key */
  authenticate(apiKey: string): Promise<AuthenticatedKey | null>
  /** forgets what is cached about `apiKey`, or about every key */
  invalidate(apiKey?: string): void
}

export interface ApiKeyAuthenticatorDeps {
  merchants: MerchantStore
  secretBox: SecretBox
  clock: Clock
  /** how long a lookup, found or not, is reused; default 5 s */
  cacheTtlMs?: number
  /** bound on cached keys, so that a flood of made-up keys cannot grow memory; default 10,000 */
  maxCachedKeys?: number
}

/**
 * Looks API keys up in the merchant store and caches the answer, negative ones included, for
 * cacheTtlMs. A lookup that raced an invalidate() is not cached, so a revoked key stops working at
 * once in this process (and within cacheTtlMs in any other).
 */
export function createApiKeyAuthenticator(deps: ApiKeyAuthenticatorDeps): ApiKeyAuthenticator {
  const { merchants, secretBox, clock } = deps
  const ttlMs = deps.cacheTtlMs ?? 5_000
  const maxCachedKeys = deps.maxCachedKeys ?? 10_000
  const cache = new Map<string, { found: AuthenticatedKey | null; expiresAtMs: number }>()
  let generation = 0

  const lookUp = async (apiKey: string): Promise<AuthenticatedKey | null> => {
    // by its id, the primary key: one lookup however many keys there are
    const key = await merchants.findApiKey(apiKey)
    if (key === null || key.revokedAt !== null) return null
    const merchant = await merchants.getMerchant(key.merchantId)
    if (merchant === null) return null
    const apiSecret = secretBox.open(key.secret, apiSecretContext(key))
    return { merchant, apiSecret, ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }) }
  }

  // a rolled key is refused from its end of overlap on, cached or not (docs/operations.md, "API keys")
  const unexpired = (found: AuthenticatedKey | null, now: Date) =>
    found !== null && apiKeyWorks({ revokedAt: null, ...found }, now) ? found : null

  return {
    async authenticate(apiKey) {
      const now = clock.now()
      const nowMs = now.getTime()
      const cached = cache.get(apiKey)
      if (cached !== undefined && cached.expiresAtMs > nowMs) return unexpired(cached.found, now)
      const startedIn = generation
      const found = await lookUp(apiKey)
      if (startedIn === generation) {
        cache.delete(apiKey)
        if (cache.size >= maxCachedKeys) {
          const oldest = cache.keys().next()
          if (!oldest.done) cache.delete(oldest.value)
        }
        cache.set(apiKey, { found, expiresAtMs: nowMs + ttlMs })
      }
      return unexpired(found, now)
    },

    invalidate(apiKey) {
      generation += 1
      if (apiKey === undefined) cache.clear()
      else cache.delete(apiKey)
    },
  }
}
