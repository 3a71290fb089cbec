// The query parameters the merchant API's lists share (docs/api.md, "Lists"): the page size, and a
// customer's id where a list filters by it. The one wording of their VALIDATION_ERRORs.

import { DomainError, MERCHANT_USER_ID_MAX_LENGTH } from '@chainpay/domain'

/** a list's page size: 20 unless asked, at most 100 */
export const PAGE_LIMIT = { default: 20, max: 100 } as const

/** the page size a list's `limit` asks for, or VALIDATION_ERROR */
export function readPageLimit(limit: string | undefined): number {
  const value = limit === undefined ? PAGE_LIMIT.default : Number(limit)
  if (!Number.isInteger(value) || value < 1 || value > PAGE_LIMIT.max) {
    throw new DomainError('VALIDATION_ERROR', `limit: must be an integer from 1 to ${PAGE_LIMIT.max}`)
  }
  return value
}

/** a list's `merchantUserId` filter, or VALIDATION_ERROR */
export function readMerchantUserIdFilter(merchantUserId: string): string {
  if (merchantUserId.length < 1 || merchantUserId.length > MERCHANT_USER_ID_MAX_LENGTH) {
    throw new DomainError(
      'VALIDATION_ERROR',
      `merchantUserId: must be 1 to ${MERCHANT_USER_ID_MAX_LENGTH} characters`,
    )
  }
  return merchantUserId
}
