// Every rule of POST /invoices (docs/api.md, "POST /invoices"). The fields an invoice shares with a
// payment priced in fiat (priceAmount, priceCurrency, description, metadata, the URLs,
// expiresInMinutes, idempotencyKey) are checked by the payment's own rules, with the same messages:
// the invoice's payments are created from them. `accepted` is the invoice's own.

import { type Asset, type AssetRegistry, resolveAsset } from './assets.js'
import { type CreateRequestPolicy, validateCreatePaymentRequest } from './create-request.js'
import { DomainError } from './errors.js'
import type { AcceptedAsset, CreateInvoiceRequest } from './invoice-types.js'

export interface ValidCreateInvoiceRequest {
  request: CreateInvoiceRequest
  /** the assets the customer may pick, resolved; every asset of the registry when none were sent */
  accepted: AcceptedAsset[]
}

const INVOICE_FIELDS = [
  'priceAmount',
  'priceCurrency',
  'accepted',
  'description',
  'metadata',
  'callbackUrl',
  'successRedirectUrl',
  'cancelRedirectUrl',
  'expiresInMinutes',
  'idempotencyKey',
] as const

/** at most this many accepted assets: more than the registry holds is a mistake */
const MAX_ACCEPTED = 50

/**
 * Checks every rule and resolves the accepted assets. Throws DomainError VALIDATION_ERROR naming the
 * field, or UNSUPPORTED_ASSET (listing what is supported).
 */
export function validateCreateInvoiceRequest(
  body: unknown,
  registry: AssetRegistry,
  policy: CreateRequestPolicy,
): ValidCreateInvoiceRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) invalid('body', 'must be an object')
  const fields = body as Record<string, unknown>
  for (const field of ['priceAmount', 'priceCurrency', 'idempotencyKey'] as const) {
    if (!(field in fields)) invalid(field, 'is required')
  }
  for (const field of Object.keys(fields)) {
    if (!(INVOICE_FIELDS as readonly string[]).includes(field)) invalid('body', `unknown field '${field}'`)
  }
  const accepted = 'accepted' in fields ? acceptedAssets(fields.accepted, registry) : everyAsset(registry)
  const first = accepted[0]
  if (first === undefined) {
    throw new DomainError('UNSUPPORTED_ASSET', 'no asset is enabled on this installation')
  }
  // the shared fields, by the rules of a payment priced in fiat in the first accepted asset
  const { accepted: _accepted, ...shared } = fields
  validateCreatePaymentRequest(
    { ...shared, currency: first.currency, network: first.network },
    registry,
    policy,
  )
  return { request: fields as unknown as CreateInvoiceRequest, accepted }
}

function acceptedAssets(value: unknown, registry: AssetRegistry): AcceptedAsset[] {
  if (!Array.isArray(value)) invalid('accepted', 'must be an array of {"currency","network"}')
  if (value.length === 0) invalid('accepted', 'must list at least one asset (or be left out for every asset)')
  if (value.length > MAX_ACCEPTED) invalid('accepted', `must list at most ${MAX_ACCEPTED} assets`)
  const seen = new Set<string>()
  return value.map((item, index) => {
    const field = `accepted[${index}]`
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      invalid(field, 'must be an object {"currency","network"}')
    }
    const entry = item as Record<string, unknown>
    for (const key of Object.keys(entry)) {
      if (key !== 'currency' && key !== 'network') invalid(field, `unknown field '${key}'`)
    }
    if (typeof entry.currency !== 'string') invalid(`${field}.currency`, 'must be a string')
    if (typeof entry.network !== 'string') invalid(`${field}.network`, 'must be a string')
    const asset = resolveAsset(registry, { currency: entry.currency, network: entry.network })
    const key = `${asset.network}:${asset.currency}`
    if (seen.has(key)) invalid(field, `${asset.currency} on ${asset.network} is listed twice`)
    seen.add(key)
    return acceptedOf(asset)
  })
}

function everyAsset(registry: AssetRegistry): AcceptedAsset[] {
  return registry.assets.map(acceptedOf)
}

function acceptedOf(asset: Asset): AcceptedAsset {
  return { currency: asset.currency, network: asset.network, tokenStandard: asset.tokenStandard }
}

function invalid(field: string, rule: string): never {
  throw new DomainError('VALIDATION_ERROR', `${field}: ${rule}`)
}
