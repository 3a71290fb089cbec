// Every rule of POST /payments (docs/api.md, "POST /payments"), in one place: the body exactly as the
// merchant sent it goes in, a request the decider can act on (with its asset and amount in smallest
// units) comes out, or a DomainError naming the field. Nothing before it validates the body: the
// gateway only parses the JSON, payment-command's API only carries it (docs/api.md, "Validation").
//
// The checks run in two rounds, in the order a caller has always seen them: first the shape of each
// field, field by field in the order of the specification's table (required fields, unknown fields,
// then types, lengths and bounds), then the rules that need the asset registry or the URL policy.

import { fullFormats } from 'ajv-formats/dist/formats.js'
import { type Asset, type AssetRegistry, resolveAsset } from './assets.js'
import { MERCHANT_USER_ID_MAX_LENGTH } from './deposit-address.js'
import { displayTextProblem } from './display-text.js'
import { DomainError } from './errors.js'
import { formatUnits, fractionDigits, isDecimalAmount, toUnits } from './money.js'
import { callbackUrlProblem } from './url-policy.js'

export type MetadataValue = string | number | boolean | null
export type Metadata = Record<string, MetadataValue>

/** the body of POST /payments, as the merchant sends it */
export interface CreatePaymentRequest {
  /** absent when the payment is priced in fiat (priceAmount and priceCurrency) */
  amount?: string
  currency: string
  network: string
  tokenStandard?: string
  addressMode?: string
  /** the merchant's customer, with addressMode PER_USER (docs/api.md, "Deposit addresses") */
  merchantUserId?: string
  description?: string
  metadata?: Metadata
  callbackUrl?: string
  successRedirectUrl?: string
  cancelRedirectUrl?: string
  expiresInMinutes?: number
  idempotencyKey?: string
  /** a price in fiat instead of `amount` (docs/api.md, "Prices in fiat"): both or neither */
  priceAmount?: string
  /** ISO 4217, one of the operator's price currencies */
  priceCurrency?: string
}

export interface CreateRequestPolicy {
  /** standalone development mode: http and loopback callback URLs are allowed */
  allowInsecureCallbackUrls: boolean
  /** the fiat currencies a price may be in (ISO 4217, PRICE_CURRENCIES); default USD and EUR */
  priceCurrencies?: readonly string[]
}

export const defaultPriceCurrencies: readonly string[] = ['USD', 'EUR']

/** a fiat price, validated: the amount as sent and its currency */
export interface FiatPrice {
  amount: string
  currency: string
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

/** a request that passed every rule, with what the decider needs of it */
export interface ValidCreatePaymentRequest {
  request: CreatePaymentRequest
  asset: Asset
  /** null when the payment is priced in fiat: the amount follows from the rate locked at creation */
  amountUnits: bigint | null
  /** the fiat price, or null when the merchant sent an amount */
  price: FiatPrice | null
}

const REQUIRED_FIELDS = ['amount', 'currency', 'network'] as const
/** the largest fiat price: 18 integer digits, as an amount */
const PRICE_PATTERN = /^(0|[1-9][0-9]{0,17})(\.[0-9]+)?$/
/** RFC 3986's grammar of a URI, as the JSON Schema format "uri" has always checked it here */
const isUri = fullFormats.uri as (text: string) => boolean
const ADDRESS_MODES = ['PER_PAYMENT', 'PER_USER'] as const
/** in a u-mode pattern a surrogate pair is one code point, so only an unpaired surrogate is \p{Cs} */
const UNPAIRED_SURROGATE = /\p{Cs}/u
type UrlField = 'callbackUrl' | 'successRedirectUrl' | 'cancelRedirectUrl'

/** each field's shape, in the order of docs/api.md, "POST /payments" */
const fieldShapes: { [Field in keyof CreatePaymentRequest]-?: (value: unknown) => void } = {
  amount: (value) => {
    requireString('amount', value)
    if (!isDecimalAmount(value)) {
      invalid('amount', 'must be a decimal string such as "10.5" (no sign, exponent or leading zeros)')
    }
  },
  currency: (value) => requireString('currency', value),
  network: (value) => requireString('network', value),
  tokenStandard: (value) => requireString('tokenStandard', value),
  addressMode: (value) => {
    requireString('addressMode', value)
    if (!(ADDRESS_MODES as readonly string[]).includes(value)) {
      invalid('addressMode', `must be one of ${ADDRESS_MODES.join(', ')}`)
    }
  },
  merchantUserId: (value) => {
    requireString('merchantUserId', value)
    if (characters(value) < 1 || value.length > MERCHANT_USER_ID_MAX_LENGTH) {
      invalid('merchantUserId', `must be 1 to ${MERCHANT_USER_ID_MAX_LENGTH} characters`)
    }
  },
  description: (value) => {
    requireString('description', value)
    requireAtMost('description', value, createRequestLimits.descriptionMaxLength)
    requireDisplayable('description', value)
  },
  metadata: (value) => validateMetadata(value),
  callbackUrl: (value) => urlShape('callbackUrl', value),
  successRedirectUrl: (value) => urlShape('successRedirectUrl', value),
  cancelRedirectUrl: (value) => urlShape('cancelRedirectUrl', value),
  expiresInMinutes: (value) => {
    const { min, max } = createRequestLimits.expiresInMinutes
    if (typeof value !== 'number' || !Number.isInteger(value))
      invalid('expiresInMinutes', 'must be an integer')
    if (value < min) invalid('expiresInMinutes', `must be at least ${min}`)
    if (value > max) invalid('expiresInMinutes', `must be at most ${max}`)
  },
  priceAmount: (value) => {
    requireString('priceAmount', value)
    if (!PRICE_PATTERN.test(value)) {
      invalid('priceAmount', 'must be a decimal string such as "19.99" (no sign, exponent or leading zeros)')
    }
  },
  priceCurrency: (value) => {
    requireString('priceCurrency', value)
    if (!/^[A-Z]{3}$/.test(value)) invalid('priceCurrency', 'must be an ISO 4217 code such as "USD"')
  },
  idempotencyKey: (value) => {
    requireString('idempotencyKey', value)
    requireAtMost('idempotencyKey', value, createRequestLimits.idempotencyKeyMaxLength)
    if (characters(value) < 1) invalid('idempotencyKey', 'must be at least 1 characters')
    // The key becomes a payment id through its UTF-8 bytes (identity.ts), where every unpaired
    // surrogate ("\ud800", "\udbff"...) turns into the same U+FFFD: two different keys would then
    // name one payment. Checked after the length, so the recorded answers keep their order.
    if (UNPAIRED_SURROGATE.test(value)) {
      invalid('idempotencyKey', 'must be well-formed Unicode (it holds an unpaired surrogate)')
    }
  },
}

/**
 * Checks every rule and resolves the asset. Throws DomainError VALIDATION_ERROR (the message names
 * the field and what was wrong) or UNSUPPORTED_ASSET (listing what is supported).
 */
export function validateCreatePaymentRequest(
  body: unknown,
  registry: AssetRegistry,
  policy: CreateRequestPolicy,
): ValidCreatePaymentRequest {
  const request = validateShape(body)
  const asset = resolveAsset(registry, request)
  const price = validatePrice(request, policy.priceCurrencies ?? defaultPriceCurrencies)
  const amountUnits = request.amount === undefined ? null : validateAmount(request.amount, asset)
  validateUrlPolicy('callbackUrl', request, policy.allowInsecureCallbackUrls)
  // where the customer goes back to is the merchant's choice: any absolute http(s) URL
  validateUrlPolicy('successRedirectUrl', request, true)
  validateUrlPolicy('cancelRedirectUrl', request, true)
  return { request, asset, amountUnits, price }
}

/** a fiat price's currency is one of the operator's list and its amount has at most its minor units */
function validatePrice(request: CreatePaymentRequest, currencies: readonly string[]): FiatPrice | null {
  const { priceAmount, priceCurrency } = request
  if (priceAmount === undefined || priceCurrency === undefined) return null
  if (!currencies.includes(priceCurrency)) {
    invalid('priceCurrency', `must be one of ${currencies.join(', ')}`)
  }
  const minorUnits = fiatMinorUnits(priceCurrency)
  if (fractionDigits(priceAmount) > minorUnits) {
    invalid('priceAmount', `at most ${minorUnits} decimal places for ${priceCurrency}`)
  }
  if (toUnits(priceAmount, minorUnits) <= 0n) invalid('priceAmount', 'must be greater than 0')
  return { amount: priceAmount, currency: priceCurrency }
}

/** the currency's minor units as ISO 4217 gives them (USD 2, JPY 0), from the runtime's ICU data */
export function fiatMinorUnits(currency: string): number {
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
  )
}

/** the checks of an amount computed from a fiat price: more than 0, within the asset's floor and maximum */
export function validateFiatAmountUnits(amountUnits: bigint, asset: Asset): void {
  checkAmountBounds(amountUnits, asset, 'priceAmount', 'the price at the current rate is ')
}

/** the rules of `metadata`: an object of at most 50 keys (1..64 characters) with flat values */
export function validateMetadata(metadata: unknown): asserts metadata is Metadata {
  const limits = createRequestLimits
  if (!isPlainObject(metadata)) invalid('metadata', 'must be an object')
  const entries = Object.entries(metadata)
  if (entries.length > limits.metadataMaxKeys) {
    invalid('metadata', `must have at most ${limits.metadataMaxKeys} keys`)
  }
  for (const [key] of entries) {
    if (characters(key) < 1) {
      invalid('metadata', `key '${key}' is not allowed (keys must be at least 1 characters)`)
    }
    if (characters(key) > limits.metadataKeyMaxLength) {
      invalid(
        'metadata',
        `key '${key}' is not allowed (keys must be at most ${limits.metadataKeyMaxLength} characters)`,
      )
    }
  }
  for (const [key, value] of entries) {
    const field = `metadata.${key}`
    if (typeof value === 'string') {
      requireAtMost(field, value, limits.metadataStringMaxLength)
      requireDisplayable(field, value)
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) invalid(field, 'must be a finite number')
    } else if (typeof value !== 'boolean' && value !== null) {
      invalid(field, 'must be a string, a number, a boolean or null')
    }
  }
}

function validateShape(body: unknown): CreatePaymentRequest {
  if (!isPlainObject(body)) invalid('body', 'must be an object')
  const priced = 'priceAmount' in body || 'priceCurrency' in body
  for (const field of REQUIRED_FIELDS) {
    if (field === 'amount' && priced) continue
    if (!(field in body)) invalid(field, 'is required')
  }
  if (priced) {
    // docs/api.md, "Prices in fiat": a price instead of an amount, both of its fields or neither
    if ('amount' in body)
      invalid('amount', 'must not be sent with priceAmount and priceCurrency (send one or the other)')
    if (!('priceAmount' in body)) invalid('priceAmount', 'is required with priceCurrency')
    if (!('priceCurrency' in body)) invalid('priceCurrency', 'is required with priceAmount')
  }
  for (const field of Object.keys(body)) {
    if (!Object.hasOwn(fieldShapes, field)) invalid('body', `unknown field '${field}'`)
  }
  for (const [field, checkShape] of Object.entries(fieldShapes)) {
    if (field in body) checkShape(body[field])
  }
  // decisions.md section 22: a customer's address for PER_USER, and a customer only with it
  if (body.addressMode === 'PER_USER' && !('merchantUserId' in body)) {
    invalid('merchantUserId', 'is required with addressMode PER_USER')
  }
  if ('merchantUserId' in body && body.addressMode !== 'PER_USER') {
    invalid('merchantUserId', 'is sent only with addressMode PER_USER')
  }
  return body as unknown as CreatePaymentRequest
}

function validateAmount(amount: string, asset: Asset): bigint {
  const where = `${asset.currency} on ${asset.network}`
  if (fractionDigits(amount) > asset.decimals) {
    invalid('amount', `at most ${asset.decimals} decimal places for ${where}`)
  }
  const amountUnits = toUnits(amount, asset.decimals)
  checkAmountBounds(amountUnits, asset, 'amount', '')
  return amountUnits
}

function checkAmountBounds(amountUnits: bigint, asset: Asset, field: string, prefix: string): void {
  const where = `${asset.currency} on ${asset.network}`
  if (amountUnits <= 0n) invalid(field, `${prefix}must be greater than 0`)
  if (asset.minAmountUnits !== undefined && amountUnits < BigInt(asset.minAmountUnits)) {
    invalid(
      field,
      `${prefix}at least ${formatUnits(asset.minAmountUnits, asset.decimals)} for ${where}${floorReason(asset)}`,
    )
  }
  if (amountUnits > BigInt(asset.maxAmountUnits)) {
    invalid(field, `${prefix}at most ${formatUnits(asset.maxAmountUnits, asset.decimals)} for ${where}`)
  }
}

/** why the floor is there, when the chain sets it (docs/api.md, "Amount floors") */
function floorReason(asset: Asset): string {
  if (asset.chain === 'SOLANA' && asset.tokenStandard === 'NATIVE') {
    return ' (the rent-exempt minimum of a Solana account: a first transfer of less to a fresh address fails on chain)'
  }
  return ''
}

/** a string of at most 2048 characters that is an absolute URI (RFC 3986) */
function urlShape(field: UrlField, value: unknown): void {
  requireString(field, value)
  requireAtMost(field, value, createRequestLimits.urlMaxLength)
  if (!isUri(value)) invalid(field, 'must be an absolute http(s) URL')
}

function validateUrlPolicy(field: UrlField, request: CreatePaymentRequest, allowInsecure: boolean): void {
  const url = request[field]
  if (url === undefined) return
  const problem = callbackUrlProblem(url, { allowInsecure })
  if (problem !== null) invalid(field, problem)
}

function requireString(field: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') invalid(field, 'must be a string')
}

function requireAtMost(field: string, value: string, max: number): void {
  if (characters(value) > max) invalid(field, `must be at most ${max} characters`)
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** length in Unicode code points, so that an emoji counts once */
function characters(text: string): number {
  return [...text].length
}

function invalid(field: string, rule: string): never {
  throw new DomainError('VALIDATION_ERROR', `${field}: ${rule}`)
}

/** text people read (docs/api.md, "Text shown to people"): no control or bidirectional override */
function requireDisplayable(field: string, value: string): void {
  const problem = displayTextProblem(value)
  if (problem !== null) invalid(field, problem)
}
