// What every InvoiceReadModel adapter must do (docs/api.md, "Invoices"); run against a fresh, empty
// store per test.

import type { InvoiceStatus } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../failures.js'
import type { InvoiceDocument, InvoiceReadModel } from '../invoice-read-model.js'

export interface InvoiceReadModelFixture {
  store: InvoiceReadModel
  loseDatabase(): Promise<void>
  teardown(): Promise<void>
}

/** an invoice's fold at `revision`, created at `createdAt`, with merchant keys a store must escape */
export function sampleInvoiceDocument(
  invoiceId: string,
  revision: number,
  options: { merchantId?: string; createdAt?: string; status?: InvoiceStatus } = {},
): InvoiceDocument {
  const merchantId = options.merchantId ?? 'mer_a'
  const createdAt = options.createdAt ?? '2030-01-15T12:00:00.000Z'
  return {
    invoiceId,
    merchantId,
    revision,
    state: {
      status: options.status ?? 'open',
      created: {
        invoiceId,
        merchantId,
        idempotencyKey: `key-${invoiceId}`,
        requestFingerprint: 'f'.repeat(64),
        priceAmount: '19.99',
        priceCurrency: 'EUR',
        accepted: [{ currency: 'USDT', network: 'TRON', tokenStandard: 'TRC20' }],
        description: null,
        metadata: { $where: 'kept', 'a.b': 1, 'percent%': true },
        callbackUrl: null,
        successRedirectUrl: null,
        cancelRedirectUrl: null,
        createdAt,
        expiresAt: '2030-01-15T12:30:00.000Z',
      },
      picks: [],
      paidBy: null,
      closedAt: null,
    },
  }
}

export function describeInvoiceReadModelContract(
  adapterName: string,
  setup: () => Promise<InvoiceReadModelFixture>,
): void {
  describe(`InvoiceReadModel contract: ${adapterName}`, () => {
    let fixture: InvoiceReadModelFixture
    let store: InvoiceReadModel

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture.teardown())

    it('keeps the newest revision, whatever order saves come in, with merchant keys as sent', async () => {
      expect(await store.get('inv_1')).toBeNull()
      expect(await store.save(sampleInvoiceDocument('inv_1', 1, { status: 'paid' }))).toBe('applied')
      expect(await store.save(sampleInvoiceDocument('inv_1', 0))).toBe('stale')
      expect(await store.save(sampleInvoiceDocument('inv_1', 1))).toBe('stale')
      expect(await store.get('inv_1')).toEqual(sampleInvoiceDocument('inv_1', 1, { status: 'paid' }))
    })

    it("lists a merchant's invoices newest first, a page at a time, by status and creation time", async () => {
      const at = (minute: number) => `2030-01-15T12:${String(minute).padStart(2, '0')}:00.000Z`
      for (const [id, minute, status] of [
        ['inv_a', 1, 'open'],
        ['inv_b', 2, 'paid'],
        ['inv_c', 3, 'open'],
        ['inv_d', 3, 'expired'],
      ] as const) {
        await store.save(sampleInvoiceDocument(id, 0, { createdAt: at(minute), status }))
      }
      await store.save(sampleInvoiceDocument('inv_other', 0, { merchantId: 'mer_b', createdAt: at(4) }))
      const ids = (documents: InvoiceDocument[]) => documents.map((document) => document.invoiceId)
      expect(ids(await store.list({ merchantId: 'mer_a', limit: 10 }))).toEqual([
        'inv_d',
        'inv_c',
        'inv_b',
        'inv_a',
      ])
      const first = await store.list({ merchantId: 'mer_a', limit: 2 })
      expect(ids(first)).toEqual(['inv_d', 'inv_c'])
      const after = { createdAt: at(3), invoiceId: 'inv_c' }
      expect(ids(await store.list({ merchantId: 'mer_a', limit: 2, after }))).toEqual(['inv_b', 'inv_a'])
      expect(ids(await store.list({ merchantId: 'mer_a', limit: 10, statuses: ['open'] }))).toEqual([
        'inv_c',
        'inv_a',
      ])
      expect(
        ids(await store.list({ merchantId: 'mer_a', limit: 10, createdFrom: at(2), createdTo: at(3) })),
      ).toEqual(['inv_b'])
    })

    it('fails with StoreUnavailableError once its database is gone', async () => {
      await store.save(sampleInvoiceDocument('inv_1', 0))
      await fixture.loseDatabase()
      await expect(store.get('inv_1')).rejects.toBeInstanceOf(StoreUnavailableError)
    })
  })
}
