// The few admin API calls scripts/up and the tests make: create a merchant, check that one exists;
// through the admin API's one client (@chainpay/admin-client).

import { AdminClientError, createAdminClient } from '@chainpay/admin-client'
import type { CreatedMerchant } from '@chainpay/contracts'

export type { CreatedMerchant }

export async function createMerchant(
  adminUrl: string,
  adminToken: string,
  body: { name: string; webhookUrl?: string },
): Promise<CreatedMerchant> {
  return createAdminClient({ url: adminUrl, token: adminToken }).merchants.create(body)
}

export async function merchantExists(
  adminUrl: string,
  adminToken: string,
  merchantId: string,
): Promise<boolean> {
  try {
    await createAdminClient({ url: adminUrl, token: adminToken }).merchants.show(merchantId)
    return true
  } catch (error) {
    if (error instanceof AdminClientError && error.failure.status === 404) return false
    throw error
  }
}
