import type { OpenPayment, PaymentCreatedData } from '@chainpay/domain'
import { paymentCreatedData } from '@chainpay/domain/testing'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { StoreUnavailableError } from '../failures.js'
import type { PaymentDocument, PaymentListQuery, PaymentReadModel } from '../read-model.js'

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

    describe('list', () => {
      /** pay_<n> created n minutes after the hour: pay_01 .. pay_<count> */
      const seed = async (
        count: number,
        created: (n: number) => Partial<PaymentCreatedData> = () => ({}),
      ) => {
        for (let n = 1; n <= count; n++) {
          await store.save(
            listedDocument(`pay_${String(n).padStart(2, '0')}`, { createdAt: minute(n), ...created(n) }),
          )
        }
      }
      const idsOf = (documents: PaymentDocument[]) => documents.map((document) => document.paymentId)
      const page = (query: Partial<PaymentListQuery> = {}) =>
        store.list({ merchantId: 'mer_1', limit: 100, ...query }).then(idsOf)

      it('lists a merchant’s payments newest first, whole documents, at most `limit`', async () => {
        await seed(5)
        await store.save(listedDocument('pay_other', { merchantId: 'mer_2', createdAt: minute(3) }))
        expect(await page()).toEqual(['pay_05', 'pay_04', 'pay_03', 'pay_02', 'pay_01'])
        expect(await page({ limit: 2 })).toEqual(['pay_05', 'pay_04'])
        const [newest] = await store.list({ merchantId: 'mer_1', limit: 1 })
        expect(newest).toEqual(await store.get('pay_05'))
        expect(await page({ merchantId: 'mer_2' })).toEqual(['pay_other'])
        expect(await page({ merchantId: 'mer_3' })).toEqual([])
      })

      it('orders payments created in the same millisecond by id, and continues strictly after a position', async () => {
        for (const id of ['pay_b', 'pay_a', 'pay_c']) {
          await store.save(listedDocument(id, { createdAt: minute(1) }))
        }
        await store.save(listedDocument('pay_z', { createdAt: minute(0) }))
        expect(await page()).toEqual(['pay_c', 'pay_b', 'pay_a', 'pay_z'])
        expect(await page({ after: { createdAt: minute(1), paymentId: 'pay_b' } })).toEqual([
          'pay_a',
          'pay_z',
        ])
        expect(await page({ after: { createdAt: minute(0), paymentId: 'pay_z' } })).toEqual([])
      })

      it('pages through everything once while payments are created between the pages', async () => {
        await seed(7)
        const seen: string[] = []
        let after: PaymentListQuery['after']
        for (let round = 0; round < 10; round++) {
          const documents = await store.list({ merchantId: 'mer_1', limit: 3, ...(after ? { after } : {}) })
          seen.push(...idsOf(documents))
          // a newer payment arrives while the merchant pages
          await store.save(listedDocument(`pay_new_${round}`, { createdAt: minute(60 + round) }))
          const last = documents.at(-1)
          if (documents.length < 3 || last === undefined) break
          after = { createdAt: last.state.created.createdAt, paymentId: last.paymentId }
        }
        expect(seen).toEqual(['pay_07', 'pay_06', 'pay_05', 'pay_04', 'pay_03', 'pay_02', 'pay_01'])
      })

      it('filters by statuses, network, currency and a creation window (from inclusive, to exclusive)', async () => {
        await seed(6, (n) => ({
          network: n % 2 === 0 ? 'SOLANA' : 'TRON',
          currency: n <= 3 ? 'USDT' : 'USDC',
        }))
        await store.save(
          listedDocument('pay_02', { createdAt: minute(2), network: 'SOLANA' }, 1, 'confirmed'),
        )
        await store.save(listedDocument('pay_05', { createdAt: minute(5), currency: 'USDC' }, 1, 'expired'))
        expect(await page({ statuses: ['confirmed'] })).toEqual(['pay_02'])
        expect(await page({ statuses: ['expired', 'confirmed'] })).toEqual(['pay_05', 'pay_02'])
        expect(await page({ statuses: ['pending'] })).toEqual(['pay_06', 'pay_04', 'pay_03', 'pay_01'])
        expect(await page({ network: 'SOLANA' })).toEqual(['pay_06', 'pay_04', 'pay_02'])
        expect(await page({ currency: 'USDC' })).toEqual(['pay_06', 'pay_05', 'pay_04'])
        expect(await page({ network: 'TRON', currency: 'USDT' })).toEqual(['pay_03', 'pay_01'])
        expect(await page({ createdFrom: minute(2), createdTo: minute(5) })).toEqual([
          'pay_04',
          'pay_03',
          'pay_02',
        ])
        expect(
          await page({
            createdFrom: minute(2),
            statuses: ['pending'],
            limit: 1,
            after: { createdAt: minute(4), paymentId: 'pay_04' },
          }),
        ).toEqual(['pay_03'])
      })
    })

    describe('listFunded (docs/api.md, "Balances and sweeps")', () => {
      /** the sample's transfer has `revision` confirmations of the 19 required: final from 19 */
      const funded = (paymentId: string, created: Partial<PaymentCreatedData> = {}) => {
        const document = samplePaymentDocument(paymentId, 19)
        const merchantId = created.merchantId ?? document.merchantId
        return {
          ...document,
          merchantId,
          state: { ...document.state, created: { ...document.state.created, paymentId, ...created } },
        }
      }
      const ids = (documents: PaymentDocument[]) => documents.map((document) => document.paymentId)

      it('lists only the payments whose address received final funds, in paymentId order, page by page', async () => {
        await store.save(samplePaymentDocument('pay_0', 3))
        for (const id of ['pay_3', 'pay_1', 'pay_2']) await store.save(funded(id))
        expect(ids(await store.listFunded({ limit: 10 }))).toEqual(['pay_1', 'pay_2', 'pay_3'])
        expect(ids(await store.listFunded({ limit: 2 }))).toEqual(['pay_1', 'pay_2'])
        expect(ids(await store.listFunded({ limit: 2, afterPaymentId: 'pay_2' }))).toEqual(['pay_3'])
        expect(await store.get('pay_2')).toEqual(funded('pay_2'))
      })

      it('lists a payment once a newer revision holds final funds', async () => {
        await store.save(samplePaymentDocument('pay_1', 18))
        expect(await store.listFunded({ limit: 10 })).toEqual([])
        await store.save(samplePaymentDocument('pay_1', 19))
        expect(ids(await store.listFunded({ limit: 10 }))).toEqual(['pay_1'])
      })

      it('filters by merchant, network and wallet (operator unless PaymentCreated names one)', async () => {
        await store.save(funded('pay_1'))
        await store.save(funded('pay_2', { merchantId: 'mer_2' }))
        await store.save(funded('pay_3', { network: 'TRON_NILE' }))
        const ownWallet = { walletId: 'wal_1' } as Partial<PaymentCreatedData>
        await store.save(funded('pay_4', ownWallet))
        expect(ids(await store.listFunded({ limit: 10, merchantId: 'mer_1' }))).toEqual([
          'pay_1',
          'pay_3',
          'pay_4',
        ])
        expect(ids(await store.listFunded({ limit: 10, network: 'TRON_NILE' }))).toEqual(['pay_3'])
        expect(ids(await store.listFunded({ limit: 10, walletId: 'wal_1' }))).toEqual(['pay_4'])
        expect(ids(await store.listFunded({ limit: 10, walletId: 'operator', merchantId: 'mer_2' }))).toEqual(
          ['pay_2'],
        )
      })
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
        // the watcher's word at the requirement (19), as a v1.2 watcher says it
        final: revision >= 19,
        withdrawn: false,
      },
    ],
    lateTransfers: [],
    foreignFunds: [],
    sweeps: [],
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

/** a minimal pending document of `merchantId` (mer_1 by default), created when `created` says */
function listedDocument(
  paymentId: string,
  created: Partial<PaymentCreatedData> & { createdAt: string },
  revision = 0,
  status: OpenPayment['status'] = 'pending',
): PaymentDocument {
  const merchantId = created.merchantId ?? 'mer_1'
  return {
    paymentId,
    merchantId,
    revision,
    state: {
      status,
      created: paymentCreatedData({ paymentId, merchantId, ...created }),
      transfers: [],
      lateTransfers: [],
      txHash: null,
      receivedUnits: null,
      confirmedAt: null,
      closedAt: null,
      failureReason: null,
      foreignFunds: [],
      sweeps: [],
    },
    updatedAt: created.createdAt,
  }
}

function minute(n: number): string {
  return new Date(Date.UTC(2030, 0, 1, 10, n)).toISOString()
}
