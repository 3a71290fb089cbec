// Re-sealing webhook endpoint secrets (docs/operations.md, "Rotating the encryption key"): an
// endpoint's secret and, during a rotation's overlap, its previous one, sealed under the old key,
// open with the new key alone after a re-seal; a second run changes nothing.

import { createSecretBox, generateSecretKey } from '@chainpay/platform'
import { type WebhookEndpointRecord, webhookEndpointSecretContext } from '@chainpay/ports'
import {
  createSqliteMerchantStore,
  createSqliteWebhookEndpointStore,
  openSqliteDatabase,
} from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { resealMerchantSecrets } from './reseal.js'

const NOW = '2030-03-01T00:00:00.000Z'

describe('resealMerchantSecrets: webhook endpoints', () => {
  it('re-seals the secret and the previous one together under the current key', async () => {
    const db = openSqliteDatabase(':memory:')
    const merchants = createSqliteMerchantStore(db)
    const webhookEndpoints = createSqliteWebhookEndpointStore(db)
    const oldKey = generateSecretKey()
    const newKey = generateSecretKey()
    const oldBox = createSecretBox(oldKey)
    await merchants.createMerchant(
      {
        merchantId: 'mer_1',
        name: 'Shop',
        webhookUrl: null,
        webhookSecret: oldBox.seal('whsec_merchant', '["merchant","mer_1","webhookSecret"]'),
        feePolicy: { feeBps: 100, fixedFees: {} },
        createdAt: NOW,
        updatedAt: NOW,
      },
      {
        apiKey: 'ck_1',
        merchantId: 'mer_1',
        secret: oldBox.seal('cs_1', '["api-key","mer_1","ck_1","secret"]'),
        createdAt: NOW,
        revokedAt: null,
      },
    )
    const endpoint = (endpointId: string, previous: string | null): WebhookEndpointRecord => {
      const context = webhookEndpointSecretContext({ merchantId: 'mer_1', endpointId })
      return {
        endpointId,
        merchantId: 'mer_1',
        url: 'https://shop.example/hooks',
        events: null,
        description: null,
        enabled: true,
        secret: oldBox.seal(`whsec_${endpointId}`, context),
        previousSecret: previous === null ? null : oldBox.seal(previous, context),
        previousSecretExpiresAt: previous === null ? null : '2030-03-02T00:00:00.000Z',
        createdAt: NOW,
        updatedAt: NOW,
      }
    }
    await webhookEndpoints.create(endpoint('ep_rotated', 'whsec_old'), 16)
    await webhookEndpoints.create(endpoint('ep_plain', null), 16)

    const box = createSecretBox({ current: newKey, previous: [oldKey] })
    const report = await resealMerchantSecrets({ merchants, secretBox: box, webhookEndpoints })
    expect(report.webhookEndpointSecrets).toEqual({ total: 2, resealed: 2, alreadyCurrent: 0 })
    expect(report.unopenable).toEqual([])

    // the old key can go
    const newOnly = createSecretBox(newKey)
    const rotated = await webhookEndpoints.get('mer_1', 'ep_rotated')
    const context = webhookEndpointSecretContext({ merchantId: 'mer_1', endpointId: 'ep_rotated' })
    expect(newOnly.open(rotated?.secret ?? '', context)).toBe('whsec_ep_rotated')
    expect(newOnly.open(rotated?.previousSecret ?? '', context)).toBe('whsec_old')
    expect(rotated?.updatedAt).toBe(NOW)
    expect((await webhookEndpoints.get('mer_1', 'ep_plain'))?.previousSecret).toBeNull()

    const again = await resealMerchantSecrets({ merchants, secretBox: box, webhookEndpoints })
    expect(again.webhookEndpointSecrets).toEqual({ total: 2, resealed: 0, alreadyCurrent: 2 })
    db.close()
  })
})
