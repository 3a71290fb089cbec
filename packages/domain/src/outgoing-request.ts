// The bodies of POST /payments/{paymentId}/refunds and POST /payouts (docs/api.md, "Refunds and
// payouts"): checked here, in payment-command, and nowhere before (as a payment's create).

import type { Asset, AssetRegistry } from './assets.js'
import { resolveAsset } from './assets.js'
import { createRequestLimits, type Metadata, validateMetadata } from './create-request.js'
import { DomainError } from './errors.js'
import { fractionDigits, isDecimalAmount, toUnits } from './money.js'
import { recipientAddressProblem } from './recipient-address.js'

export interface RefundRequest {
  amount: string
  address?: string
  reason?: string
  idempotencyKey: string
}

export interface PayoutRequest {
  network: string
  currency: string
  amount: string
  address: string
  idempotencyKey: string
  metadata?: Metadata
}

export const refundRequestLimits = { reasonMaxLength: 500 } as const

const UNPAIRED_SURROGATE = /\p{Cs}/u

function invalid(field: string, message: string): never {
  throw new DomainError('VALIDATION_ERROR', `${field}: ${message}`)
}

function objectWith(body: unknown, fields: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    invalid('body', 'must be a JSON object')
  const record = body as Record<string, unknown>
  const unknown = Object.keys(record).find((key) => !fields.includes(key))
  if (unknown !== undefined) invalid(unknown, `unknown field; allowed: ${fields.join(', ')}`)
  return record
}

function requiredString(record: Record<string, unknown>, field: string): string {
  const value = record[field]
  if (value === undefined) invalid(field, 'is required')
  if (typeof value !== 'string') invalid(field, 'must be a string')
  return value
}

function idempotencyKeyOf(record: Record<string, unknown>): string {
  const key = requiredString(record, 'idempotencyKey')
  const length = [...key].length
  if (length < 1 || length > createRequestLimits.idempotencyKeyMaxLength)
    invalid('idempotencyKey', `must be 1 to ${createRequestLimits.idempotencyKeyMaxLength} characters`)
  if (UNPAIRED_SURROGATE.test(key))
    invalid('idempotencyKey', 'must be well-formed Unicode (it holds an unpaired surrogate)')
  return key
}

/** a positive amount of the asset, no finer than its decimals; its smallest units */
export function validateOutgoingAmount(amount: string, asset: Pick<Asset, 'decimals' | 'currency'>): bigint {
  if (!isDecimalAmount(amount))
    invalid('amount', 'must be a decimal string such as "10.5" (no sign, exponent or leading zeros)')
  if (fractionDigits(amount) > asset.decimals)
    invalid('amount', `${asset.currency} has ${asset.decimals} decimals; got more fractional digits`)
  const units = toUnits(amount, asset.decimals)
  if (units <= 0n) invalid('amount', 'must be greater than 0')
  return units
}

/** the refund request's rules; the asset is the payment's */
export function validateRefundRequest(body: unknown, asset: Asset): RefundRequest {
  const record = objectWith(body, ['amount', 'address', 'reason', 'idempotencyKey'])
  const amount = requiredString(record, 'amount')
  validateOutgoingAmount(amount, asset)
  const request: RefundRequest = { amount, idempotencyKey: idempotencyKeyOf(record) }
  if (record.address !== undefined && record.address !== null) {
    const problem = recipientAddressProblem(asset.chain, record.address)
    if (problem !== null) invalid('address', problem)
    request.address = record.address as string
  }
  if (record.reason !== undefined && record.reason !== null) {
    if (typeof record.reason !== 'string') invalid('reason', 'must be a string')
    if ([...record.reason].length > refundRequestLimits.reasonMaxLength)
      invalid('reason', `must be at most ${refundRequestLimits.reasonMaxLength} characters`)
    request.reason = record.reason
  }
  return request
}

export function validatePayoutRequest(
  body: unknown,
  registry: AssetRegistry,
): { request: PayoutRequest; asset: Asset } {
  const record = objectWith(body, ['network', 'currency', 'amount', 'address', 'idempotencyKey', 'metadata'])
  const network = requiredString(record, 'network')
  const currency = requiredString(record, 'currency')
  const amount = requiredString(record, 'amount')
  const address = requiredString(record, 'address')
  const idempotencyKey = idempotencyKeyOf(record)
  const asset = resolveAsset(registry, { network, currency })
  validateOutgoingAmount(amount, asset)
  const problem = recipientAddressProblem(asset.chain, address)
  if (problem !== null) invalid('address', problem)
  const request: PayoutRequest = { network, currency, amount, address, idempotencyKey }
  if (record.metadata !== undefined) {
    validateMetadata(record.metadata)
    request.metadata = record.metadata
  }
  return { request, asset }
}
