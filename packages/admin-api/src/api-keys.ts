// A merchant's API keys as the operator (the admin API, chainpay-admin keys) and the merchant's
// owners (the dashboard) manage them (docs/operations.md, "API keys"): list, create, roll with an
// overlap, revoke. A secret is shown once, when its key is made, and stored sealed to its key and
// merchant (apiSecretContext), like every merchant secret (docs/security.md).

import type { ApiKeyView } from '@chainpay/contracts'
import { noActiveKey, rolledKeyExpiry, rollOverlapHours, toApiKeyView } from './api-key-rules.js'
import { issueApiKey, type MerchantAdminDeps, newApiKey, requireMerchant, revokeApiKey } from './merchants.js'

/** a new key and, once, its secret */
export interface IssuedApiKey {
  apiKey: string
  apiSecret: string
}

/** a roll's answer: the new key with its secret, and until when the old one still works */
export interface RolledApiKey extends IssuedApiKey {
  rolled: { apiKey: string; expiresAt: string }
}

/** every key of the merchant, oldest first, none with its secret */
export async function listApiKeys(deps: MerchantAdminDeps, merchantId: string): Promise<ApiKeyView[]> {
  await requireMerchant(deps, merchantId)
  const now = deps.clock.now()
  return (await deps.merchants.listApiKeys(merchantId)).map((key) => toApiKeyView(key, now))
}

/**
 * Rolls a key: a new key for the merchant, and the old one working on for `overlapHours` (default
 * 24), so that requests the shop still signs with it are accepted until it has moved to the new one.
 */
export async function rollApiKey(
  deps: MerchantAdminDeps,
  merchantId: string,
  apiKey: string,
  options: { overlapHours?: number } = {},
): Promise<RolledApiKey> {
  const overlapHours = rollOverlapHours(options.overlapHours)
  const old = await deps.merchants.findApiKey(apiKey)
  if (old === null || old.merchantId !== merchantId) throw noActiveKey(merchantId, apiKey)
  const now = deps.clock.now()
  const expiresAt = rolledKeyExpiry(old, now, overlapHours)
  const fresh = newApiKey(deps, merchantId, now.toISOString())
  await deps.merchants.addApiKey(fresh.record)
  // revoked meanwhile: the new key stands, the old one stays revoked
  if (!(await deps.merchants.setApiKeyExpiry(merchantId, apiKey, expiresAt))) {
    throw noActiveKey(merchantId, apiKey)
  }
  return { apiKey: fresh.apiKey, apiSecret: fresh.apiSecret, rolled: { apiKey, expiresAt } }
}

/** the use cases above and in merchants.ts bound to their stores: what the dashboard's owners call */
export function merchantApiKeys(deps: MerchantAdminDeps) {
  return {
    list: (merchantId: string) => listApiKeys(deps, merchantId),
    issue: (merchantId: string) => issueApiKey(deps, merchantId),
    roll: (merchantId: string, apiKey: string, options?: { overlapHours?: number }) =>
      rollApiKey(deps, merchantId, apiKey, options),
    revoke: (merchantId: string, apiKey: string) => revokeApiKey(deps, merchantId, apiKey),
  }
}
