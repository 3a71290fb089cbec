// Merchant administration use cases (docs/api.md, "Authentication": keys are issued by an operator, secrets
// are shown once and stored sealed). The admin API and standalone's demo merchant both use them.

import { type ApiKeyView, type CreatedMerchant, type MerchantView, merchantLimits } from '@chainpay/contracts'
import {
  type AssetRegistry,
  assetKey,
  type CreateRequestPolicy,
  callbackUrlProblem,
  canonicalDecimal,
  DomainError,
  defaultAssetRegistry,
  defaultFeePolicy,
  displayTextProblem,
  type FeePolicy,
  fractionDigits,
  isDecimalAmount,
  underpaymentToleranceProblem,
} from '@chainpay/domain'
import { type Clock, isoNow, randomToken, type SecretBox } from '@chainpay/platform'
import {
  type ApiKeyRecord,
  apiSecretContext,
  type MerchantRecord,
  type MerchantStore,
  webhookSecretContext,
} from '@chainpay/ports'
import { noActiveKey, toApiKeyView } from './api-key-rules.js'

export interface MerchantAdminDeps {
  merchants: MerchantStore
  secretBox: SecretBox
  clock: Clock
  /** the assets fixed fees may name; the default v1 registry when absent */
  registry?: AssetRegistry
  /** the rules a merchant's default webhook URL follows; production rules (https, public host) when absent */
  webhookUrlPolicy?: CreateRequestPolicy
}

export interface CreateMerchantInput {
  name: string
  webhookUrl?: string | null
  /** default 100 (1 %) */
  feeBps?: number
}

export type { ApiKeyView, CreatedMerchant, MerchantView }

export { merchantLimits }

export async function createMerchant(
  deps: MerchantAdminDeps,
  input: CreateMerchantInput,
): Promise<CreatedMerchant> {
  const name = validName(input.name)
  const webhookUrl = validWebhookUrl(deps, input.webhookUrl ?? null)
  const feeBps = validFeeBps(input.feeBps ?? defaultFeePolicy.feeBps)
  const now = isoNow(deps.clock)
  const webhookSecret = newWebhookSecret()
  const merchantId = randomToken('mer', 12)
  const record: MerchantRecord = {
    merchantId,
    name,
    webhookUrl,
    webhookSecret: deps.secretBox.seal(webhookSecret, webhookSecretContext(merchantId)),
    feePolicy: { feeBps, fixedFees: {} },
    createdAt: now,
    updatedAt: now,
  }
  const key = newApiKey(deps, record.merchantId, now)
  await deps.merchants.createMerchant(record, key.record)
  return { merchant: toMerchantView(record), apiKey: key.apiKey, apiSecret: key.apiSecret, webhookSecret }
}

export async function listMerchants(deps: MerchantAdminDeps): Promise<MerchantView[]> {
  return (await deps.merchants.listMerchants()).map(toMerchantView)
}

export async function describeMerchant(
  deps: MerchantAdminDeps,
  merchantId: string,
): Promise<{ merchant: MerchantView; apiKeys: ApiKeyView[] }> {
  const merchant = await requireMerchant(deps, merchantId)
  const keys = await deps.merchants.listApiKeys(merchantId)
  return {
    merchant: toMerchantView(merchant),
    apiKeys: keys.map((key) => toApiKeyView(key, deps.clock.now())),
  }
}

/** another active key for the merchant (rotation: issue the new one, then revoke the old one) */
export async function issueApiKey(
  deps: MerchantAdminDeps,
  merchantId: string,
): Promise<{ apiKey: string; apiSecret: string }> {
  await requireMerchant(deps, merchantId)
  const key = newApiKey(deps, merchantId, isoNow(deps.clock))
  await deps.merchants.addApiKey(key.record)
  return { apiKey: key.apiKey, apiSecret: key.apiSecret }
}

export async function revokeApiKey(
  deps: MerchantAdminDeps,
  merchantId: string,
  apiKey: string,
): Promise<{ apiKey: string; revokedAt: string }> {
  const revokedAt = isoNow(deps.clock)
  if (!(await deps.merchants.revokeApiKey(merchantId, apiKey, revokedAt)))
    throw noActiveKey(merchantId, apiKey)
  return { apiKey, revokedAt }
}

export async function rotateWebhookSecret(
  deps: MerchantAdminDeps,
  merchantId: string,
): Promise<{ webhookSecret: string }> {
  const webhookSecret = newWebhookSecret()
  await updateMerchant(deps, merchantId, {
    webhookSecret: deps.secretBox.seal(webhookSecret, webhookSecretContext(merchantId)),
  })
  return { webhookSecret }
}

export async function setWebhookUrl(
  deps: MerchantAdminDeps,
  merchantId: string,
  webhookUrl: string | null,
): Promise<MerchantView> {
  return updateMerchant(deps, merchantId, { webhookUrl: validWebhookUrl(deps, webhookUrl) })
}

export async function setFeePolicy(
  deps: MerchantAdminDeps,
  merchantId: string,
  policy: FeePolicy,
): Promise<MerchantView> {
  return updateMerchant(deps, merchantId, { feePolicy: validFeePolicy(deps, policy) })
}

/** the customer's page shows it instead of `name` (docs/api.md, "The customer's page") */
export async function setDisplayName(
  deps: MerchantAdminDeps,
  merchantId: string,
  displayName: string | null,
): Promise<MerchantView> {
  const valid = displayName === null ? null : validName(displayName, 'displayName')
  return updateMerchant(deps, merchantId, { displayName: valid })
}

/**
 * the logo the customer's page shows: the gateway fetches it under the URL policy of webhooks and
 * serves it itself (docs/api.md, "The customer's page")
 */
export async function setLogoUrl(
  deps: MerchantAdminDeps,
  merchantId: string,
  logoUrl: string | null,
): Promise<MerchantView> {
  if (logoUrl !== null) {
    const allowInsecure = deps.webhookUrlPolicy?.allowInsecureCallbackUrls ?? false
    const problem = callbackUrlProblem(logoUrl, { allowInsecure })
    if (problem !== null) invalid('logoUrl', problem)
  }
  return updateMerchant(deps, merchantId, { logoUrl })
}

/**
 * a total at or above expected * (1 - tolerance / 100) confirms a payment; recorded with each payment
 * when it is created, so a change applies to payments created after it (docs/api.md, "Underpayment tolerance")
 */
export async function setUnderpaymentTolerance(
  deps: MerchantAdminDeps,
  merchantId: string,
  percent: string,
): Promise<MerchantView> {
  const problem = underpaymentToleranceProblem(percent)
  if (problem !== null) invalid('underpaymentTolerancePercent', problem)
  return updateMerchant(deps, merchantId, { underpaymentTolerancePercent: canonicalDecimal(percent) })
}

export function toMerchantView(record: MerchantRecord): MerchantView {
  const { merchantId, name, webhookUrl, feePolicy, createdAt, updatedAt } = record
  return {
    merchantId,
    name,
    displayName: record.displayName ?? null,
    logoUrl: record.logoUrl ?? null,
    webhookUrl,
    feePolicy,
    underpaymentTolerancePercent: record.underpaymentTolerancePercent ?? '0',
    createdAt,
    updatedAt,
  }
}

//////// Helpers

export async function requireMerchant(deps: MerchantAdminDeps, merchantId: string): Promise<MerchantRecord> {
  const merchant = await deps.merchants.getMerchant(merchantId)
  if (merchant === null) throw merchantNotFound(merchantId)
  return merchant
}

async function updateMerchant(
  deps: MerchantAdminDeps,
  merchantId: string,
  patch: Parameters<MerchantStore['updateMerchant']>[1],
): Promise<MerchantView> {
  if (!(await deps.merchants.updateMerchant(merchantId, patch, isoNow(deps.clock)))) {
    throw merchantNotFound(merchantId)
  }
  return toMerchantView(await requireMerchant(deps, merchantId))
}

/** a fresh key id and secret for the merchant, the secret sealed to them (apiSecretContext) */
export function newApiKey(deps: MerchantAdminDeps, merchantId: string, now: string) {
  const apiKey = randomToken('ck', 24)
  const apiSecret = randomToken('cs', 32)
  const record: ApiKeyRecord = {
    apiKey,
    merchantId,
    secret: deps.secretBox.seal(apiSecret, apiSecretContext({ apiKey, merchantId })),
    createdAt: now,
    revokedAt: null,
  }
  return { apiKey, apiSecret, record }
}

function newWebhookSecret(): string {
  return randomToken('whsec', 32)
}

function merchantNotFound(merchantId: string): DomainError {
  return new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
}

function invalid(field: string, rule: string): never {
  throw new DomainError('VALIDATION_ERROR', `${field}: ${rule}`)
}

function validName(name: unknown, field = 'name'): string {
  if (typeof name !== 'string' || name.trim() === '') invalid(field, 'must be a non-empty string')
  const trimmed = name.trim()
  if ([...trimmed].length > merchantLimits.nameMaxLength) {
    invalid(field, `must be at most ${merchantLimits.nameMaxLength} characters`)
  }
  // the title of the customer's page and the label of Solana Pay requests (docs/api.md, "Text shown to people")
  const problem = displayTextProblem(trimmed)
  if (problem !== null) invalid(field, problem)
  return trimmed
}

function validWebhookUrl(deps: MerchantAdminDeps, url: string | null): string | null {
  if (url === null) return null
  const allowInsecure = deps.webhookUrlPolicy?.allowInsecureCallbackUrls ?? false
  const problem = callbackUrlProblem(url, { allowInsecure })
  if (problem !== null) invalid('webhookUrl', problem)
  return url
}

function validFeeBps(feeBps: unknown): number {
  if (
    typeof feeBps !== 'number' ||
    !Number.isInteger(feeBps) ||
    feeBps < 0 ||
    feeBps > merchantLimits.feeBpsMax
  ) {
    invalid('feeBps', `must be an integer from 0 to ${merchantLimits.feeBpsMax}`)
  }
  return feeBps
}

/** every fixed fee names a registered asset and fits its decimals, so fee computation cannot fail later */
function validFeePolicy(deps: MerchantAdminDeps, policy: FeePolicy): FeePolicy {
  const feeBps = validFeeBps(policy.feeBps)
  const registry = deps.registry ?? defaultAssetRegistry
  const fixedFees: Record<string, string> = {}
  for (const [key, amount] of Object.entries(policy.fixedFees)) {
    const field = `fixedFees.${key}`
    const asset = registry.assets.find((candidate) => assetKey(candidate) === key)
    if (asset === undefined) {
      const known = registry.assets.map(assetKey).join(', ')
      invalid(field, `not a registered asset; expected NETWORK:CURRENCY, one of ${known}`)
    }
    if (typeof amount !== 'string' || !isDecimalAmount(amount)) invalid(field, 'must be a decimal string')
    if (fractionDigits(amount) > asset.decimals) {
      invalid(field, `at most ${asset.decimals} decimal places for ${key}`)
    }
    fixedFees[key] = amount
  }
  return { feeBps, fixedFees }
}
