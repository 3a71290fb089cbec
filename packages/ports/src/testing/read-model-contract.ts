import type { OpenPayment } from '@chainpay/domain'
import { paymentCreatedData } from '@chainpay/domain/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../failures.js'
import type { PaymentDocument, PaymentReadModel } from '../read-model.js'

export interface PaymentReadModelFixture {
  store: PaymentReadModel
  /** takes the store's database away (closes it, or its client); teardown still cleans up after it */
  loseDatabase(): Promise<void>
  teardown(): Promise<void>
}

/** What every PaymentReadModel adapter must do; run it against a fresh, empty store per test. */
export function describePaymentReadModelContract(
  adapterName: string,
  setup: () => Promise<PaymentReadModelFixture>,
): void {
  describe(`PaymentReadModel contract: ${adapterName}`, () => {
    let fixture: PaymentReadModelFixture
    let store: PaymentReadModel

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture.teardown())

    it('fails with StoreUnavailableError once its database is gone, never with its driver’s error', async () => {
      await store.save(samplePaymentDocument('pay_1', 0))
      await fixture.loseDatabase()
      await expect(store.get('pay_1')).rejects.toBeInstanceOf(StoreUnavailableError)
      await expect(store.save(samplePaymentDocument('pay_1', 1))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      )
    })

    it('returns null for an unknown payment', async () => {
      expect(await store.get('pay_unknown')).toBeNull()
    })

    it('round-trips the document, including awkward metadata keys and unicode', async () => {
      const document = samplePaymentDocument('pay_1', 0)
      expect(await store.save(document)).toBe('applied')
      expect(await store.get('pay_1')).toEqual(document)
    })

    it('applies a newer revision and replaces the whole state', async () => {
      await store.save(samplePaymentDocument('pay_1', 0))
      const newer = samplePaymentDocument('pay_1', 3, { status: 'confirmed', receivedUnits: '12500000' })
      expect(await store.save(newer)).toBe('applied')
      expect(await store.get('pay_1')).toEqual(newer)
    })

    it('ignores an older or equal revision as stale and keeps the stored document', async () => {
      const stored = samplePaymentDocument('pay_1', 2, { status: 'expired' })
      await store.save(stored)
      expect(await store.save(samplePaymentDocument('pay_1', 1, { status: 'canceled' }))).toBe('stale')
      expect(await store.save(samplePaymentDocument('pay_1', 2, { status: 'canceled' }))).toBe('stale')
      expect(await store.get('pay_1')).toEqual(stored)
    })

    it('keeps payments apart', async () => {
      const first = samplePaymentDocument('pay_1', 4)
      const second = samplePaymentDocument('pay_2', 0, { status: 'canceled' })
      await store.save(first)
      await store.save(second)
      expect(await store.get('pay_1')).toEqual(first)
      expect(await store.get('pay_2')).toEqual(second)
    })

    it('ends at the highest revision when saves of several revisions race', async () => {
      const revisions = [3, 0, 7, 1, 5, 2, 6, 4]
      await Promise.all(revisions.map((revision) => store.save(samplePaymentDocument('pay_1', revision))))
      expect((await store.get('pay_1'))?.revision).toBe(7)
      expect(await store.get('pay_1')).toEqual(samplePaymentDocument('pay_1', 7))
    })
  })
}

/** A full document of a TRON USDT payment whose metadata carries keys that trip up document stores. */
export function samplePaymentDocument(
  paymentId: string,
  revision: number,
  changes: Partial<OpenPayment> = {},
): PaymentDocument {
  const state: OpenPayment = {
    status: 'pending',
    created: paymentCreatedData({
      paymentId,
      merchantId: 'mer_1',
      amount: '12.5',
      amountUnits: '12500000',
      feeUnits: '125000',
      netUnits: '12375000',
      address: 'TXYZabcdefghijkmnopqrstuvwxyz12345',
      requiredConfirmations: 19,
      description: 'Café crème ☕ für 2 — 注文 #7',
      metadata: { $where: 'sleep(1000)', 'a.b': 'dotted', 'emoji 💸': true, count: 3, none: null },
      callbackUrl: 'https://shop.example/hooks',
      createdAt: '2030-01-01T00:00:00.000Z',
    }),
    transfers: [
      {
        txHash: 'a1'.repeat(32),
        transferIndex: 0,
        amountUnits: '12500000',
        blockHeight: 100,
        blockTime: '2030-01-01T00:05:00.000Z',
        confirmations: revision,
        withdrawn: false,
      },
    ],
    lateTransfers: [],
    foreignFunds: [],
    txHash: 'a1'.repeat(32),
    receivedUnits: null,
    confirmedAt: null,
    closedAt: null,
    failureReason: null,
    ...changes,
  }
  return {
    paymentId,
    merchantId: 'mer_1',
    revision,
    state,
    updatedAt: new Date(Date.UTC(2030, 0, 1, 0, 0, revision)).toISOString(),
  }
}
