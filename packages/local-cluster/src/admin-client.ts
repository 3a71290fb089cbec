// The few admin API calls scripts/up and the tests make: create a merchant, check that one exists.

export interface CreatedMerchant {
  merchant: { merchantId: string }
  apiKey: string
  apiSecret: string
  webhookSecret: string
}

export async function createMerchant(
  adminUrl: string,
  adminToken: string,
  body: { name: string; webhookUrl?: string },
): Promise<CreatedMerchant> {
  const response = await fetch(`${adminUrl}/admin/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (response.status !== 201) {
    throw new Error(`creating a merchant answered ${response.status}: ${await response.text()}`)
  }
  return (await response.json()) as CreatedMerchant
}

export async function merchantExists(
  adminUrl: string,
  adminToken: string,
  merchantId: string,
): Promise<boolean> {
  const response = await fetch(`${adminUrl}/admin/v1/merchants/${encodeURIComponent(merchantId)}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  })
  await response.body?.cancel()
  if (response.status === 200) return true
  if (response.status === 404) return false
  throw new Error(`looking up merchant ${merchantId} answered ${response.status}`)
}
