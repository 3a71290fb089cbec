// The merchants as the notifier reads them: each looked up at most once per few seconds. A payment's
// webhook looks its merchant up twice (the targets when it is recorded, the URL and secret when it is
// sent), and a paid payment sends two: four MongoDB finds per payment for a record the operator
// rarely changes (docs/capacity.md, "Per payment"). An operator's change to a merchant's webhook URL
// or secret reaches the notifier within the cache's time (docs/operations.md, "Webhooks").

import type { Clock } from '@chainpay/platform'
import type { MerchantRecord, MerchantStore } from '@chainpay/ports'

export interface CachedMerchantsOptions {
  /** how long a lookup, found or not, is reused; default 5 s */
  ttlMs?: number
  /** merchants remembered at most; default 10,000 */
  maxEntries?: number
}

export function cachedMerchants(
  merchants: Pick<MerchantStore, 'getMerchant'>,
  clock: Clock,
  options: CachedMerchantsOptions = {},
): Pick<MerchantStore, 'getMerchant'> {
  const ttlMs = options.ttlMs ?? 5_000
  const maxEntries = options.maxEntries ?? 10_000
  const cache = new Map<string, { merchant: MerchantRecord | null; expiresAtMs: number }>()
  return {
    async getMerchant(merchantId) {
      const nowMs = clock.now().getTime()
      const cached = cache.get(merchantId)
      if (cached !== undefined && cached.expiresAtMs > nowMs) return cached.merchant
      const merchant = await merchants.getMerchant(merchantId)
      cache.delete(merchantId)
      if (cache.size >= maxEntries) {
        const oldest = cache.keys().next()
        if (!oldest.done) cache.delete(oldest.value)
      }
      cache.set(merchantId, { merchant, expiresAtMs: nowMs + ttlMs })
      return merchant
    },
  }
}
