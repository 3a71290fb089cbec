// What every DepositReadModel adapter must do (docs/api.md, "Deposits"); run against a fresh, empty
// store per test.

import type { DepositStatus, OpenDeposit } from '@chainpay/domain'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DepositReadModel, DepositRecord } from '../deposits.js'

export interface DepositReadModelFixture {
  store: DepositReadModel
  teardown(): Promise<void>
}

/** a deposit's state at `revision` */
export function sampleDepositRecord(
  depositId: string,
  revision: number,
  options: {
    merchantId?: string
    merchantUserId?: string
    status?: DepositStatus
    detectedAt?: string
    network?: string
  } = {},
): DepositRecord {
  const detectedAt = options.detectedAt ?? '2030-01-15T12:00:00.000Z'
  const state: OpenDeposit = {
    status: options.status ?? 'detected',
    detected: {
      depositId,
      merchantId: options.merchantId ?? 'mer_a',
      merchantUserId: options.merchantUserId ?? 'user-1',
      network: options.network ?? 'TRON',
      currency: 'USDT',
      decimals: 6,
      address: 'TDeposit1',
      txHash: `tx-${depositId}`,
      transferIndex: 0,
      amountUnits: '10000000',
      feeUnits: '100000',
      netUnits: '9900000',
      feeBps: 100,
      fixedFeeUnits: '0',
      blockHeight: 100,
      blockTime: detectedAt,
      confirmations: 1,
      requiredConfirmations: 20,
      detectedAt,
    },
    confirmations: revision + 1,
    blockHeight: 100,
    confirmedAt: options.status === 'confirmed' ? detectedAt : null,
    dropReason: options.status === 'dropped' ? 'EXPIRED' : null,
    updatedAt: detectedAt,
  }
  return { depositId, revision, state }
}

export function describeDepositReadModelContract(
  adapterName: string,
  setup: () => Promise<DepositReadModelFixture>,
): void {
  describe(`DepositReadModel contract: ${adapterName}`, () => {
    let fixture: DepositReadModelFixture
    let store: DepositReadModel
    const at = (minute: number) => `2030-01-15T12:${String(minute).padStart(2, '0')}:00.000Z`
    const ids = (records: DepositRecord[]) => records.map((record) => record.depositId)

    beforeEach(async () => {
      fixture = await setup()
      store = fixture.store
    })
    afterEach(() => fixture.teardown())

    it('keeps the newest revision, whatever order saves come in', async () => {
      expect(await store.get('d1')).toBeNull()
      const confirmed = sampleDepositRecord('d1', 2, { status: 'confirmed' })
      await store.save(confirmed)
      await store.save(sampleDepositRecord('d1', 0))
      await store.save(sampleDepositRecord('d1', 2))
      expect(await store.get('d1')).toEqual(confirmed)
      const dropped = sampleDepositRecord('d1', 3, { status: 'dropped' })
      await store.save(dropped)
      expect(await store.get('d1')).toEqual(dropped)
    })

    it("lists every merchant's confirmed deposits in id order, page after page, by merchant and network", async () => {
      await store.save(sampleDepositRecord('d3', 2, { status: 'confirmed', merchantId: 'mer_b' }))
      await store.save(sampleDepositRecord('d1', 2, { status: 'confirmed' }))
      await store.save(sampleDepositRecord('d2', 0))
      await store.save(sampleDepositRecord('d4', 3, { status: 'dropped' }))
      await store.save(sampleDepositRecord('d5', 2, { status: 'confirmed', network: 'SOLANA' }))
      expect(ids(await store.listConfirmed({ limit: 10 }))).toEqual(['d1', 'd3', 'd5'])
      expect(ids(await store.listConfirmed({ limit: 2 }))).toEqual(['d1', 'd3'])
      expect(ids(await store.listConfirmed({ limit: 2, afterDepositId: 'd3' }))).toEqual(['d5'])
      expect(ids(await store.listConfirmed({ limit: 10, merchantId: 'mer_b' }))).toEqual(['d3'])
      expect(ids(await store.listConfirmed({ limit: 10, network: 'TRON' }))).toEqual(['d1', 'd3'])
      // a deposit confirmed later joins the list
      await store.save(sampleDepositRecord('d2', 2, { status: 'confirmed' }))
      expect(ids(await store.listConfirmed({ limit: 10, network: 'TRON' }))).toEqual(['d1', 'd2', 'd3'])
    })

    it("lists a merchant's deposits newest first, page after page, by user and by status", async () => {
      await store.save(sampleDepositRecord('d1', 0, { detectedAt: at(1) }))
      await store.save(sampleDepositRecord('d2', 1, { detectedAt: at(2), status: 'confirmed' }))
      await store.save(sampleDepositRecord('d3', 0, { detectedAt: at(2), merchantUserId: 'user-2' }))
      await store.save(sampleDepositRecord('d4', 0, { detectedAt: at(3), merchantId: 'mer_b' }))

      const first = await store.list({ merchantId: 'mer_a', limit: 2 })
      expect(ids(first)).toEqual(['d3', 'd2'])
      const last = first.at(-1)?.state.detected
      const next = await store.list({
        merchantId: 'mer_a',
        limit: 2,
        after: { detectedAt: last?.detectedAt ?? '', depositId: last?.depositId ?? '' },
      })
      expect(ids(next)).toEqual(['d1'])
      expect(ids(await store.list({ merchantId: 'mer_a', limit: 10, merchantUserId: 'user-1' }))).toEqual([
        'd2',
        'd1',
      ])
      expect(ids(await store.list({ merchantId: 'mer_a', limit: 10, status: 'confirmed' }))).toEqual(['d2'])
      expect(
        ids(
          await store.list({ merchantId: 'mer_a', limit: 10, merchantUserId: 'user-2', status: 'detected' }),
        ),
      ).toEqual(['d3'])
      expect(ids(await store.list({ merchantId: 'mer_b', limit: 10 }))).toEqual(['d4'])
    })
  })
}
