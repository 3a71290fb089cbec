// The rules of a merchant's API keys (docs/operations.md, "API keys"): a merchant holds several; a
// key works from its creation until it is revoked or, once rolled, until the end of its overlap, so
// that the shop can move to the new key without a moment when neither works. Pure: the time comes in.

import type { ApiKeyView } from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import type { ApiKeyRecord } from '@chainpay/ports'

export type ApiKeyStatus = 'active' | 'expiring' | 'expired' | 'revoked'

/** a roll's overlap when none is given: a day, time for a shop to deploy the new key */
export const DEFAULT_ROLL_OVERLAP_HOURS = 24
/** the longest overlap: a rolled key that lives on for longer is a second key, not a roll */
export const MAX_ROLL_OVERLAP_HOURS = 30 * 24

const HOUR_MS = 3_600_000

/** revoked, expired (its end of overlap has come), expiring (rolled, still working) or active */
export function apiKeyStatus(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): ApiKeyStatus {
  if (key.revokedAt !== null) return 'revoked'
  if (key.expiresAt === undefined) return 'active'
  return Date.parse(key.expiresAt) <= now.getTime() ? 'expired' : 'expiring'
}

/** whether a request signed with the key is accepted at `now` */
export function apiKeyWorks(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, now: Date): boolean {
  const status = apiKeyStatus(key, now)
  return status === 'active' || status === 'expiring'
}

/** the overlap of a roll in hours, a whole number from 0 to MAX_ROLL_OVERLAP_HOURS */
export function rollOverlapHours(given: number | undefined): number {
  const hours = given ?? DEFAULT_ROLL_OVERLAP_HOURS
  if (!Number.isInteger(hours) || hours < 0 || hours > MAX_ROLL_OVERLAP_HOURS) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `overlapHours: must be a whole number of hours from 0 to ${MAX_ROLL_OVERLAP_HOURS}`,
    )
  }
  return hours
}

/**
 * When a rolled key stops working: `overlapHours` from now, or sooner when it was already rolled to
 * stop sooner (a roll never lengthens a key's life). Refused for a key that no longer works.
 */
export function rolledKeyExpiry(
  key: Pick<ApiKeyRecord, 'apiKey' | 'merchantId' | 'revokedAt' | 'expiresAt'>,
  now: Date,
  overlapHours: number,
): string {
  if (!apiKeyWorks(key, now)) throw noActiveKey(key.merchantId, key.apiKey)
  const end = now.getTime() + overlapHours * HOUR_MS
  const current = key.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(key.expiresAt)
  return new Date(Math.min(end, current)).toISOString()
}

export function noActiveKey(merchantId: string, apiKey: string): DomainError {
  return new DomainError('NOT_FOUND', `no active API key ${apiKey} for merchant ${merchantId}`)
}

/** a key as the admin API and the dashboard show it: never its secret */
export function toApiKeyView(key: ApiKeyRecord, now: Date): ApiKeyView {
  const { apiKey, createdAt, revokedAt } = key
  return { apiKey, createdAt, revokedAt, expiresAt: key.expiresAt ?? null, status: apiKeyStatus(key, now) }
}
