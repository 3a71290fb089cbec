// Every field rule of POST /payments (decisions.md section 4) that goes beyond JSON types.

import { type Asset, type AssetRegistry, resolveAsset } from './assets.js'
import { DomainError } from './errors.js'
import { formatUnits, fractionDigits, isDecimalAmount, toUnits } from './money.js'
import type { CreatePaymentRequest, Metadata } from './payment.js'
import { callbackUrlProblem } from './url-policy.js'

export interface CreateRequestPolicy {
  /** standalone development mode: http and loopback callback URLs are allowed */
  allowInsecureCallbackUrls: boolean
}

export const createRequestLimits = {
  expiresInMinutes: { min: 1, max: 1440, default: 30 },
  descriptionMaxLength: 1000,
  metadataMaxKeys: 50,
  metadataKeyMaxLength: 64,
  metadataStringMaxLength: 500,
  urlMaxLength: 2048,
  idempotencyKeyMaxLength: 255,
} as const

const requestFields: ReadonlySet<string> = new Set<keyof CreatePaymentRequest>([
  'amount',
  'currency',
  'network',
  'tokenStandard',
  'addressMode',
  'description',
  'metadata',
  'callbackUrl',
  'successRedirectUrl',
  'cancelRedirectUrl',
  'expiresInMinutes',
  'idempotencyKey',
])

/**
 * Checks every rule and resolves the asset. Throws DomainError VALIDATION_ERROR (message names the
 * field and what was wrong) or UNSUPPORTED_ASSET.
 */
export function validateCreatePaymentRequest(
  request: CreatePaymentRequest,
  registry: AssetRegistry,
  policy: CreateRequestPolicy,
): { asset: Asset; amountUnits: bigint } {
  if (typeof request.amount !== 'string' || !isDecimalAmount(request.amount)) {
    invalid('amount', 'must be a decimal string such as "10.5" (no sign, exponent or leading zeros)')
  }
  requireString(request, 'currency')
  requireString(request, 'network')
  const asset = resolveAsset(registry, request)
  const amountUnits = validateAmount(request.amount, asset)
  for (const field of Object.keys(request)) {
    if (!requestFields.has(field)) invalid(field, 'unknown field')
  }
  if (request.addressMode !== undefined && request.addressMode !== 'PER_PAYMENT') {
    invalid('addressMode', 'must be PER_PAYMENT, the only address mode')
  }
  validateExpiresInMinutes(request.expiresInMinutes)
  if (request.description !== undefined) {
    if (typeof request.description !== 'string') invalid('description', 'must be a string')
    if (characters(request.description) > createRequestLimits.descriptionMaxLength) {
      invalid('description', `must be at most ${createRequestLimits.descriptionMaxLength} characters`)
    }
  }
  if (request.metadata !== undefined) validateMetadata(request.metadata)
  validateUrl('callbackUrl', request.callbackUrl, policy.allowInsecureCallbackUrls)
  validateUrl('successRedirectUrl', request.successRedirectUrl, true)
  validateUrl('cancelRedirectUrl', request.cancelRedirectUrl, true)
  validateIdempotencyKey(request.idempotencyKey)
  return { asset, amountUnits }
}

/** the rules of `metadata`: an object of at most 50 keys (1..64 characters) with flat values */
export function validateMetadata(metadata: unknown): asserts metadata is Metadata {
  const limits = createRequestLimits
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    invalid('metadata', 'must be an object')
  }
  const entries = Object.entries(metadata)
  if (entries.length > limits.metadataMaxKeys)
    invalid('metadata', `must have at most ${limits.metadataMaxKeys} keys`)
  for (const [key, value] of entries) {
    const length = characters(key)
    if (length < 1 || length > limits.metadataKeyMaxLength) {
      invalid('metadata', `keys must be 1 to ${limits.metadataKeyMaxLength} characters`)
    }
    const field = `metadata.${key}`
    if (typeof value === 'string') {
      if (characters(value) > limits.metadataStringMaxLength) {
        invalid(field, `must be at most ${limits.metadataStringMaxLength} characters`)
      }
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) invalid(field, 'must be a finite number')
    } else if (typeof value !== 'boolean' && value !== null) {
      invalid(field, 'must be a string, number, boolean or null')
    }
  }
}

function validateAmount(amount: string, asset: Asset): bigint {
  const where = `${asset.currency} on ${asset.network}`
  if (fractionDigits(amount) > asset.decimals) {
    invalid('amount', `at most ${asset.decimals} decimal places for ${where}`)
  }
  const amountUnits = toUnits(amount, asset.decimals)
  if (amountUnits <= 0n) invalid('amount', 'must be greater than 0')
  if (amountUnits > BigInt(asset.maxAmountUnits)) {
    invalid('amount', `at most ${formatUnits(asset.maxAmountUnits, asset.decimals)} for ${where}`)
  }
  return amountUnits
}

function validateExpiresInMinutes(minutes: number | undefined): void {
  if (minutes === undefined) return
  const { min, max } = createRequestLimits.expiresInMinutes
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < min || minutes > max) {
    invalid('expiresInMinutes', `must be an integer from ${min} to ${max}`)
  }
}

function validateUrl(field: string, url: string | undefined, allowInsecure: boolean): void {
  if (url === undefined) return
  // With insecure allowed, callbackUrlProblem checks exactly the rules every URL field shares.
  const problem = callbackUrlProblem(url, { allowInsecure })
  if (problem !== null) invalid(field, problem)
}

function validateIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return
  const max = createRequestLimits.idempotencyKeyMaxLength
  if (typeof key !== 'string' || characters(key) < 1 || characters(key) > max) {
    invalid('idempotencyKey', `must be a string of 1 to ${max} characters`)
  }
}

function requireString(request: CreatePaymentRequest, field: 'currency' | 'network'): void {
  if (typeof request[field] !== 'string') invalid(field, 'is required and must be a string')
}

/** length in Unicode characters, so that an emoji counts once */
function characters(text: string): number {
  return [...text].length
}

function invalid(field: string, rule: string): never {
  throw new DomainError('VALIDATION_ERROR', `${field}: ${rule}`)
}
