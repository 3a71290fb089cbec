// Every field rule of POST /payments (decisions.md section 4) that goes beyond JSON types.

import type { Asset, AssetRegistry } from './assets.js'
import type { CreatePaymentRequest } from './payment.js'

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

/**
 * Checks every rule and resolves the asset. Throws DomainError VALIDATION_ERROR (message names the
 * field and what was wrong) or UNSUPPORTED_ASSET.
 */
export declare function validateCreatePaymentRequest(
  request: CreatePaymentRequest,
  registry: AssetRegistry,
  policy: CreateRequestPolicy,
): { asset: Asset; amountUnits: bigint }
