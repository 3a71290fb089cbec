import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { WebhookEndpointRecord, WebhookEndpointStore } from '../webhook-endpoints.js'

/** What every WebhookEndpointStore adapter must do; run it against a fresh, empty store per test. */
export function describeWebhookEndpointStoreContract(
  adapterName: string,
  setup: () => Promise<{ store: WebhookEndpointStore; teardown(): Promise<void> }>,
): void {
  describe(`WebhookEndpointStore contract: ${adapterName}`, () => {
    let store: WebhookEndpointStore
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    it('creates, gets and lists endpoints per merchant, oldest first', async () => {
      const first = endpoint('ep_1', 'mer_1', { events: ['payment.confirmed'], description: 'orders' })
      const second = endpoint('ep_2', 'mer_1', { createdAt: '2030-01-02T00:00:00.000Z' })
      expect(await store.create(second, 16)).toBe(true)
      expect(await store.create(first, 16)).toBe(true)
      expect(await store.create(endpoint('ep_3', 'mer_2'), 16)).toBe(true)
      expect(await store.get('mer_1', 'ep_1')).toEqual(first)
      expect(await store.list('mer_1')).toEqual([first, second])
      expect(await store.list('mer_unknown')).toEqual([])
    })

    it("keeps one merchant's endpoints from another", async () => {
      await store.create(endpoint('ep_1', 'mer_1'), 16)
      expect(await store.get('mer_2', 'ep_1')).toBeNull()
      expect(await store.update('mer_2', 'ep_1', { enabled: false }, later)).toBeNull()
      expect(await store.delete('mer_2', 'ep_1')).toBe(false)
      expect(await store.get('mer_1', 'ep_1')).toEqual(endpoint('ep_1', 'mer_1'))
    })

    it('refuses an endpoint over the per-merchant bound, also when created at once', async () => {
      const created = await Promise.all(
        Array.from({ length: 6 }, (_, index) => store.create(endpoint(`ep_${index}`, 'mer_1'), 4)),
      )
      expect(created.filter(Boolean).length).toBeLessThanOrEqual(4)
      expect((await store.list('mer_1')).length).toBe(created.filter(Boolean).length)
      // sequentially the bound is reached exactly
      for (let index = 6; (await store.list('mer_1')).length < 4; index++) {
        expect(await store.create(endpoint(`ep_${index}`, 'mer_1'), 4)).toBe(true)
      }
      expect(await store.create(endpoint('ep_over', 'mer_1'), 4)).toBe(false)
      expect(await store.get('mer_1', 'ep_over')).toBeNull()
      // another merchant has its own bound
      expect(await store.create(endpoint('ep_other', 'mer_2'), 4)).toBe(true)
    })

    it('patches only the given fields, events back to every kind with null', async () => {
      await store.create(endpoint('ep_1', 'mer_1', { events: ['payment.confirmed'] }), 16)
      const rotated = {
        secret: 'sealed:new',
        previousSecret: 'sealed:ep_1',
        previousSecretExpiresAt: '2030-01-03T00:00:00.000Z',
      }
      expect(await store.update('mer_1', 'ep_1', rotated, later)).toEqual(
        endpoint('ep_1', 'mer_1', { events: ['payment.confirmed'], ...rotated, updatedAt: later }),
      )
      const changed = await store.update(
        'mer_1',
        'ep_1',
        { url: 'https://shop.example/new', events: null, enabled: false, description: 'moved' },
        later,
      )
      expect(changed).toEqual(
        endpoint('ep_1', 'mer_1', {
          ...rotated,
          url: 'https://shop.example/new',
          events: null,
          enabled: false,
          description: 'moved',
          updatedAt: later,
        }),
      )
      expect(await store.get('mer_1', 'ep_1')).toEqual(changed)
    })

    it('replaces the sealed secrets only while they are as expected, leaving updatedAt', async () => {
      await store.create(
        endpoint('ep_1', 'mer_1', { previousSecret: 'sealed:old', previousSecretExpiresAt: later }),
        16,
      )
      const expected = { secret: 'sealed:ep_1', previousSecret: 'sealed:old' }
      const resealed = { secret: 'resealed:ep_1', previousSecret: 'resealed:old' }
      expect(await store.replaceSealedSecrets('mer_2', 'ep_1', expected, resealed)).toBe(false)
      expect(
        await store.replaceSealedSecrets('mer_1', 'ep_1', { ...expected, previousSecret: null }, resealed),
      ).toBe(false)
      expect(await store.replaceSealedSecrets('mer_1', 'ep_1', expected, resealed)).toBe(true)
      expect(await store.get('mer_1', 'ep_1')).toEqual(
        endpoint('ep_1', 'mer_1', { ...resealed, previousSecretExpiresAt: later }),
      )
      // a rotation in between: the re-seal of what was read before it changes nothing
      expect(await store.replaceSealedSecrets('mer_1', 'ep_1', expected, resealed)).toBe(false)
      await store.create(endpoint('ep_2', 'mer_1'), 16)
      const noPrevious = { secret: 'sealed:ep_2', previousSecret: null }
      expect(
        await store.replaceSealedSecrets('mer_1', 'ep_2', noPrevious, { secret: 'x', previousSecret: null }),
      ).toBe(true)
      expect(await store.replaceSealedSecrets('mer_1', 'ep_unknown', noPrevious, noPrevious)).toBe(false)
    })

    it('updates with expected secrets only while they are still those, one of two at once', async () => {
      await store.create(endpoint('ep_1', 'mer_1'), 16)
      const expected = { secret: 'sealed:ep_1', previousSecret: null }
      const rotation = (secret: string) => ({
        secret,
        previousSecret: 'sealed:ep_1',
        previousSecretExpiresAt: later,
      })
      const [first, second] = await Promise.all([
        store.update('mer_1', 'ep_1', rotation('sealed:a'), later, expected),
        store.update('mer_1', 'ep_1', rotation('sealed:b'), later, expected),
      ])
      const won = first ?? second
      expect([first, second].filter((result) => result === null)).toHaveLength(1)
      expect(await store.get('mer_1', 'ep_1')).toEqual(won)
      expect(await store.update('mer_1', 'ep_1', { enabled: false }, later, expected)).toBeNull()
      expect(await store.update('mer_2', 'ep_1', { enabled: false }, later, expected)).toBeNull()
      const now = { secret: won?.secret ?? '', previousSecret: 'sealed:ep_1' }
      expect(await store.update('mer_1', 'ep_1', { enabled: false }, later, now)).toMatchObject({
        enabled: false,
      })
    })

    it('deletes an endpoint, which frees its place under the bound', async () => {
      await store.create(endpoint('ep_1', 'mer_1'), 1)
      expect(await store.create(endpoint('ep_2', 'mer_1'), 1)).toBe(false)
      expect(await store.delete('mer_1', 'ep_1')).toBe(true)
      expect(await store.delete('mer_1', 'ep_1')).toBe(false)
      expect(await store.get('mer_1', 'ep_1')).toBeNull()
      expect(await store.create(endpoint('ep_2', 'mer_1'), 1)).toBe(true)
    })
  })
}

const later = '2030-01-05T00:00:00.000Z'

function endpoint(
  endpointId: string,
  merchantId: string,
  fields: Partial<WebhookEndpointRecord> = {},
): WebhookEndpointRecord {
  return {
    endpointId,
    merchantId,
    url: `https://shop.example/hooks/${endpointId}`,
    events: null,
    description: null,
    enabled: true,
    secret: `sealed:${endpointId}`,
    previousSecret: null,
    previousSecretExpiresAt: null,
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
    ...fields,
  }
}
