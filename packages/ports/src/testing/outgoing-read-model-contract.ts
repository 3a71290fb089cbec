// What every OutgoingReadModel adapter must do (docs/architecture.md, "The refunds and payouts read
// model"); run against a fresh, empty store per test.

import type { Outgoing, OutgoingKind, OutgoingStatus } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../failures.js'
import type { OutgoingDocument, OutgoingReadModel } from '../outgoing-read-model.js'

export interface OutgoingReadModelFixture {
  store: OutgoingReadModel
  loseDatabase(): Promise<void>
  teardown(): Promise<void>
}

/** a refund's or payout's fold at `revision`, with payout metadata keys a store must escape */
export function sampleOutgoingDocument(
  id: string,
  revision: number,
  options: {
    kind?: OutgoingKind
    merchantId?: string
    paymentId?: string
    network?: string
    walletId?: string
    status?: OutgoingStatus
    createdAt?: string
  } = {},
): OutgoingDocument {
  const kind = options.kind ?? 'refund'
  const createdAt = options.createdAt ?? '2030-01-15T12:00:00.000Z'
  const item: Outgoing = {
    kind,
    id,
    merchantId: options.merchantId ?? 'mer_a',
    paymentId: kind === 'refund' ? (options.paymentId ?? 'pay_1') : null,
    network: options.network ?? 'TRON',
    currency: 'USDT',
    decimals: 6,
    amount: '1.5',
    amountUnits: '1500000',
    address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
    claimable: false,
    reason: null,
    metadata: kind === 'payout' ? { $where: 'kept', 'a.b': 1, 'percent%': true } : null,
    walletId: options.walletId ?? 'operator',
    idempotencyKey: `key-${id}`,
    requestFingerprint: 'f'.repeat(64),
    status: options.status ?? 'ready',
    planId: null,
    txHash: null,
    networkFee: null,
    failureReason: null,
    createdAt,
    updatedAt: createdAt,
  }
  return { item, revision }
}

export function describeOutgoingReadModelContract(
  adapterName: string,
  setup: () => Promise<OutgoingReadModelFixture>,
): void {
  describe(`OutgoingReadModel contract: ${adapterName}`, () => {
    let fixture: OutgoingReadModelFixture
    let store: OutgoingReadModel
    const at = (minute: number) => `2030-01-15T12:${String(minute).padStart(2, '0')}:00.000Z`
    const ids = (documents: OutgoingDocument[]) => documents.map((document) => document.item.id)

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture.teardown())

    it('keeps the newest revision, whatever order saves come in, with merchant keys as sent', async () => {
      expect(await store.get('payout', 'po_1')).toBeNull()
      const sent = sampleOutgoingDocument('po_1', 2, { kind: 'payout', status: 'sent' })
      expect(await store.save(sent)).toBe('applied')
      expect(await store.save(sampleOutgoingDocument('po_1', 0, { kind: 'payout' }))).toBe('stale')
      expect(await store.save(sampleOutgoingDocument('po_1', 2, { kind: 'payout' }))).toBe('stale')
      expect(await store.get('payout', 'po_1')).toEqual(sent)
      // a refund and a payout are apart even under one id
      expect(await store.get('refund', 'po_1')).toBeNull()
      const completed = sampleOutgoingDocument('po_1', 3, { kind: 'payout', status: 'completed' })
      expect(await store.save(completed)).toBe('applied')
      expect(await store.get('payout', 'po_1')).toEqual(completed)
    })

    it("lists a merchant's refunds or payouts newest first, a page at a time, by status and payment", async () => {
      for (const [id, minute, status, paymentId] of [
        ['re_a', 1, 'ready', 'pay_1'],
        ['re_b', 2, 'canceled', 'pay_2'],
        ['re_c', 3, 'ready', 'pay_1'],
        ['re_d', 3, 'awaiting_address', 'pay_2'],
      ] as const) {
        await store.save(sampleOutgoingDocument(id, 0, { createdAt: at(minute), status, paymentId }))
      }
      await store.save(sampleOutgoingDocument('re_other', 0, { merchantId: 'mer_b', createdAt: at(4) }))
      await store.save(sampleOutgoingDocument('po_a', 0, { kind: 'payout', createdAt: at(5) }))
      const mine = { merchantId: 'mer_a', kind: 'refund' as const }
      expect(ids(await store.listForMerchant({ ...mine, limit: 10 }))).toEqual([
        're_d',
        're_c',
        're_b',
        're_a',
      ])
      expect(ids(await store.listForMerchant({ ...mine, limit: 2 }))).toEqual(['re_d', 're_c'])
      const after = { createdAt: at(3), id: 're_c' }
      expect(ids(await store.listForMerchant({ ...mine, limit: 2, after }))).toEqual(['re_b', 're_a'])
      expect(ids(await store.listForMerchant({ ...mine, limit: 10, statuses: ['ready'] }))).toEqual([
        're_c',
        're_a',
      ])
      expect(
        ids(await store.listForMerchant({ ...mine, limit: 10, statuses: ['ready', 'canceled'], after })),
      ).toEqual(['re_b', 're_a'])
      expect(ids(await store.listForMerchant({ ...mine, limit: 10, paymentId: 'pay_2' }))).toEqual([
        're_d',
        're_b',
      ])
      expect(ids(await store.listForMerchant({ merchantId: 'mer_a', kind: 'payout', limit: 10 }))).toEqual([
        'po_a',
      ])
      const [payout] = await store.listForMerchant({ merchantId: 'mer_a', kind: 'payout', limit: 1 })
      expect(payout?.item.metadata).toEqual({ $where: 'kept', 'a.b': 1, 'percent%': true })
    })

    it("lists a network's refunds and payouts oldest first, across merchants, by status and wallet", async () => {
      for (const [id, kind, minute, merchantId, status, walletId, network] of [
        ['re_1', 'refund', 1, 'mer_a', 'ready', 'operator', 'TRON'],
        ['po_2', 'payout', 2, 'mer_b', 'ready', 'wal_b', 'TRON'],
        ['re_3', 'refund', 3, 'mer_b', 'sending', 'operator', 'TRON'],
        ['po_4', 'payout', 3, 'mer_a', 'ready', 'operator', 'TRON'],
        ['po_5', 'payout', 4, 'mer_a', 'ready', 'operator', 'SOLANA'],
        ['re_6', 'refund', 5, 'mer_a', 'completed', 'operator', 'TRON'],
      ] as const) {
        await store.save(
          sampleOutgoingDocument(id, 0, {
            kind,
            createdAt: at(minute),
            merchantId,
            status,
            walletId,
            network,
          }),
        )
      }
      const ready = { network: 'TRON', statuses: ['ready'] as OutgoingStatus[] }
      expect(ids(await store.listForNetwork({ ...ready, limit: 10 }))).toEqual(['re_1', 'po_2', 'po_4'])
      expect(ids(await store.listForNetwork({ ...ready, limit: 2 }))).toEqual(['re_1', 'po_2'])
      const after = { createdAt: at(2), id: 'po_2' }
      expect(ids(await store.listForNetwork({ ...ready, limit: 2, after }))).toEqual(['po_4'])
      expect(ids(await store.listForNetwork({ ...ready, limit: 10, walletId: 'operator' }))).toEqual([
        're_1',
        'po_4',
      ])
      expect(
        ids(await store.listForNetwork({ network: 'TRON', statuses: ['sending', 'completed'], limit: 10 })),
      ).toEqual(['re_3', 're_6'])
      expect(ids(await store.listForNetwork({ network: 'SOLANA', statuses: ['ready'], limit: 10 }))).toEqual([
        'po_5',
      ])
    })

    it('fails with StoreUnavailableError once its database is gone', async () => {
      await store.save(sampleOutgoingDocument('re_1', 0))
      await fixture.loseDatabase()
      await expect(store.get('refund', 're_1')).rejects.toBeInstanceOf(StoreUnavailableError)
    })
  })
}
