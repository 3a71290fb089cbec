import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ApiKeyRecord, MerchantRecord, MerchantStore } from '../merchants.js'

/** What every MerchantStore adapter must do; run it against a fresh, empty store per test. */
export function describeMerchantStoreContract(
  adapterName: string,
  setup: () => Promise<{ store: MerchantStore; teardown(): Promise<void> }>,
): void {
  describe(`MerchantStore contract: ${adapterName}`, () => {
    let store: MerchantStore
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    it('creates a merchant with its first API key', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      expect(await store.getMerchant('mer_1')).toEqual(merchant('mer_1'))
      expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1'))
      expect(await store.listApiKeys('mer_1')).toEqual([apiKey('key_1', 'mer_1')])
    })

    it('returns null or nothing for what does not exist', async () => {
      expect(await store.getMerchant('mer_unknown')).toBeNull()
      expect(await store.findApiKey('key_unknown')).toBeNull()
      expect(await store.listApiKeys('mer_unknown')).toEqual([])
      expect(await store.listMerchants()).toEqual([])
    })

    it('lists every merchant', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.createMerchant(merchant('mer_2', { webhookUrl: null }), apiKey('key_2', 'mer_2'))
      const listed = await store.listMerchants()
      expect(sortBy(listed, (item) => item.merchantId)).toEqual([
        merchant('mer_1'),
        merchant('mer_2', { webhookUrl: null }),
      ])
    })

    it('patches only the given fields and round-trips the fee policy', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      const feePolicy = { feeBps: 250, fixedFees: { 'TRON:USDT': '0.5', 'SOLANA:SOL': '0.000001' } }
      const updatedAt = '2030-02-01T00:00:00.000Z'
      expect(await store.updateMerchant('mer_1', { feePolicy, webhookUrl: null }, updatedAt)).toBe(true)
      expect(await store.getMerchant('mer_1')).toEqual(
        merchant('mer_1', { feePolicy, webhookUrl: null, updatedAt }),
      )
      expect(await store.updateMerchant('mer_1', { name: 'Renamed Shop' }, updatedAt)).toBe(true)
      expect(await store.getMerchant('mer_1')).toMatchObject({ name: 'Renamed Shop', feePolicy })
    })

    it('keeps a display name and a logo URL, and removes them when patched with null', async () => {
      const logoUrl = 'https://cdn.example/acme.png'
      await store.createMerchant(
        { ...merchant('mer_1'), displayName: 'Acme Store', logoUrl },
        apiKey('key_1', 'mer_1'),
      )
      expect(await store.getMerchant('mer_1')).toMatchObject({ displayName: 'Acme Store', logoUrl })
      const updatedAt = '2030-02-01T00:00:00.000Z'
      expect(await store.updateMerchant('mer_1', { displayName: 'Acme GmbH' }, updatedAt)).toBe(true)
      expect(await store.getMerchant('mer_1')).toMatchObject({
        displayName: 'Acme GmbH',
        name: merchant('mer_1').name,
      })
      expect(await store.updateMerchant('mer_1', { displayName: null, logoUrl: null }, updatedAt)).toBe(true)
      expect(await store.getMerchant('mer_1')).toEqual(merchant('mer_1', { updatedAt }))
    })

    it('keeps the underpayment tolerance the operator sets, none until then', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      expect((await store.getMerchant('mer_1'))?.underpaymentTolerancePercent).toBeUndefined()
      const updatedAt = '2030-02-01T00:00:00.000Z'
      expect(await store.updateMerchant('mer_1', { underpaymentTolerancePercent: '2.5' }, updatedAt)).toBe(
        true,
      )
      expect(await store.getMerchant('mer_1')).toEqual({
        ...merchant('mer_1', { updatedAt }),
        underpaymentTolerancePercent: '2.5',
      })
      await store.updateMerchant('mer_1', { displayName: 'Acme' }, updatedAt)
      expect((await store.getMerchant('mer_1'))?.underpaymentTolerancePercent).toBe('2.5')
    })

    it('reports an update of an unknown merchant', async () => {
      expect(await store.updateMerchant('mer_unknown', { name: 'x' }, '2030-02-01T00:00:00.000Z')).toBe(false)
      expect(await store.getMerchant('mer_unknown')).toBeNull()
    })

    it('adds keys and lists them per merchant', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.createMerchant(merchant('mer_2'), apiKey('key_2', 'mer_2'))
      await store.addApiKey(apiKey('key_3', 'mer_1'))
      const listed = await store.listApiKeys('mer_1')
      expect(sortBy(listed, (key) => key.apiKey)).toEqual([
        apiKey('key_1', 'mer_1'),
        apiKey('key_3', 'mer_1'),
      ])
    })

    it('refuses a second key with an existing API key id', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.createMerchant(merchant('mer_2'), apiKey('key_2', 'mer_2'))
      await expect(store.addApiKey(apiKey('key_1', 'mer_2', { secret: 'sealed:other' }))).rejects.toThrow()
      expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1'))
    })

    it("revokes only the merchant's own active key, and still finds it with revokedAt set", async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.createMerchant(merchant('mer_2'), apiKey('key_2', 'mer_2'))
      const revokedAt = '2030-03-01T00:00:00.000Z'
      expect(await store.revokeApiKey('mer_2', 'key_1', revokedAt)).toBe(false)
      expect(await store.revokeApiKey('mer_1', 'key_unknown', revokedAt)).toBe(false)
      expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1'))

      expect(await store.revokeApiKey('mer_1', 'key_1', revokedAt)).toBe(true)
      expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1', { revokedAt }))
      expect(await store.revokeApiKey('mer_1', 'key_1', '2030-04-01T00:00:00.000Z')).toBe(false)
      expect((await store.findApiKey('key_1'))?.revokedAt).toBe(revokedAt)
      expect(await store.listApiKeys('mer_1')).toEqual([apiKey('key_1', 'mer_1', { revokedAt })])
      expect(await store.findApiKey('key_2')).toEqual(apiKey('key_2', 'mer_2'))
    })

    it('replaces a sealed webhook secret only while it is the one expected, leaving the rest alone', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.createMerchant(merchant('mer_2'), apiKey('key_2', 'mer_2'))
      expect(await store.replaceSealedWebhookSecret('mer_1', 'sealed:stale', 'sealed:resealed')).toBe(false)
      expect(await store.replaceSealedWebhookSecret('mer_unknown', 'sealed:webhook:mer_1', 'x')).toBe(false)
      expect(await store.getMerchant('mer_1')).toEqual(merchant('mer_1'))

      expect(await store.replaceSealedWebhookSecret('mer_1', 'sealed:webhook:mer_1', 'sealed:resealed')).toBe(
        true,
      )
      // the same secret, sealed anew: not a change of the merchant (updatedAt stays)
      expect(await store.getMerchant('mer_1')).toEqual(
        merchant('mer_1', { webhookSecret: 'sealed:resealed' }),
      )
      expect(await store.getMerchant('mer_2')).toEqual(merchant('mer_2'))
      expect(await store.replaceSealedWebhookSecret('mer_1', 'sealed:webhook:mer_1', 'sealed:again')).toBe(
        false,
      )
    })

    it('replaces a sealed API secret only while it is the one expected, revoked keys included', async () => {
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.addApiKey(apiKey('key_2', 'mer_1'))
      const revokedAt = '2030-03-01T00:00:00.000Z'
      await store.revokeApiKey('mer_1', 'key_2', revokedAt)
      expect(await store.replaceSealedApiSecret('key_1', 'sealed:stale', 'sealed:resealed')).toBe(false)
      expect(await store.replaceSealedApiSecret('key_unknown', 'sealed:secret:key_1', 'x')).toBe(false)
      expect(await store.replaceSealedApiSecret('key_1', 'sealed:secret:key_1', 'sealed:resealed')).toBe(true)
      expect(await store.replaceSealedApiSecret('key_2', 'sealed:secret:key_2', 'sealed:resealed-2')).toBe(
        true,
      )
      expect(await store.listApiKeys('mer_1')).toEqual([
        apiKey('key_1', 'mer_1', { secret: 'sealed:resealed' }),
        apiKey('key_2', 'mer_1', { secret: 'sealed:resealed-2', revokedAt }),
      ])
      expect(await store.replaceSealedApiSecret('key_1', 'sealed:secret:key_1', 'sealed:again')).toBe(false)
    })

    it('keeps several keys with their own expiry, set on an active key of the merchant only', async () => {
      const expiresAt = '2030-05-01T12:00:00.000Z'
      await store.createMerchant(merchant('mer_1'), apiKey('key_1', 'mer_1'))
      await store.createMerchant(merchant('mer_2'), apiKey('key_2', 'mer_2'))
      await store.addApiKey(apiKey('key_3', 'mer_1', { expiresAt }))
      expect(await store.findApiKey('key_3')).toEqual(apiKey('key_3', 'mer_1', { expiresAt }))

      expect(await store.setApiKeyExpiry('mer_2', 'key_1', expiresAt)).toBe(false)
      expect(await store.setApiKeyExpiry('mer_1', 'key_unknown', expiresAt)).toBe(false)
      expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1'))
      // a later end never replaces an earlier one (two rolls at once), an earlier one does
      expect(await store.setApiKeyExpiry('mer_1', 'key_1', '2030-05-02T00:00:00.000Z')).toBe(true)
      expect(await store.setApiKeyExpiry('mer_1', 'key_1', expiresAt)).toBe(true)
      expect(await store.setApiKeyExpiry('mer_1', 'key_1', '2030-05-03T00:00:00.000Z')).toBe(true)
      expect(await store.findApiKey('key_1')).toEqual(apiKey('key_1', 'mer_1', { expiresAt }))

      const revokedAt = '2030-04-01T00:00:00.000Z'
      await store.revokeApiKey('mer_1', 'key_3', revokedAt)
      expect(await store.setApiKeyExpiry('mer_1', 'key_3', '2030-06-01T00:00:00.000Z')).toBe(false)
      expect(sortBy(await store.listApiKeys('mer_1'), (key) => key.apiKey)).toEqual([
        apiKey('key_1', 'mer_1', { expiresAt }),
        apiKey('key_3', 'mer_1', { expiresAt, revokedAt }),
      ])
      expect(await store.findApiKey('key_2')).toEqual(apiKey('key_2', 'mer_2'))
    })
  })
}

function merchant(merchantId: string, changes: Partial<MerchantRecord> = {}): MerchantRecord {
  return {
    merchantId,
    name: `Shop ${merchantId} — Bäckerei 🥨`,
    webhookUrl: `https://${merchantId}.example/hooks`,
    webhookSecret: `sealed:webhook:${merchantId}`,
    feePolicy: { feeBps: 100, fixedFees: {} },
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
    ...changes,
  }
}

function apiKey(key: string, merchantId: string, changes: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    apiKey: key,
    merchantId,
    secret: `sealed:secret:${key}`,
    createdAt: '2030-01-01T00:00:00.000Z',
    revokedAt: null,
    ...changes,
  }
}

function sortBy<T>(items: T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => key(a).localeCompare(key(b)))
}
