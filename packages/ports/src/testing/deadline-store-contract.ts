import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PaymentDeadline, PaymentDeadlineStore } from '../deadlines.js'

/** What every PaymentDeadlineStore adapter must do; run it against a fresh, empty store per test. */
export function describePaymentDeadlineStoreContract(
  adapterName: string,
  setup: () => Promise<{ store: PaymentDeadlineStore; teardown(): Promise<void> }>,
): void {
  describe(`PaymentDeadlineStore contract: ${adapterName}`, () => {
    let store: PaymentDeadlineStore
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    it('returns the deadlines that have passed, earliest first', async () => {
      await store.upsert(deadline('pay_late', 20))
      await store.upsert(deadline('pay_early', 5))
      await store.upsert(deadline('pay_future', 90))
      await store.upsert(deadline('pay_exact', 30))
      expect(await store.due(at(30), 10)).toEqual([
        deadline('pay_early', 5),
        deadline('pay_late', 20),
        deadline('pay_exact', 30),
      ])
      expect(await store.due(at(4), 10)).toEqual([])
    })

    it('returns at most `limit` deadlines, the earliest ones', async () => {
      for (const minute of [7, 3, 5, 1]) await store.upsert(deadline(`pay_${minute}`, minute))
      expect(await store.due(at(10), 2)).toEqual([deadline('pay_1', 1), deadline('pay_3', 3)])
    })

    it('returns only the deadlines of the network asked for, earliest first and at most `limit`', async () => {
      await store.upsert(deadline('pay_tron_1', 1))
      await store.upsert(deadline('pay_tron_2', 2))
      await store.upsert(deadline('pay_sol_9', 9, 'SOLANA'))
      await store.upsert(deadline('pay_sol_4', 4, 'SOLANA'))
      await store.upsert(deadline('pay_sol_late', 50, 'SOLANA'))
      expect(await store.due(at(10), 1, 'TRON')).toEqual([deadline('pay_tron_1', 1)])
      expect(await store.due(at(10), 10, 'SOLANA')).toEqual([
        deadline('pay_sol_4', 4, 'SOLANA'),
        deadline('pay_sol_9', 9, 'SOLANA'),
      ])
      expect(await store.due(at(10), 10, 'TRON_NILE')).toEqual([])
      expect(await store.due(at(10), 2)).toEqual([deadline('pay_tron_1', 1), deadline('pay_tron_2', 2)])
    })

    it('keeps one deadline per payment: upserting again moves it', async () => {
      await store.upsert(deadline('pay_1', 5))
      await store.upsert(deadline('pay_1', 5))
      expect(await store.due(at(10), 10)).toEqual([deadline('pay_1', 5)])
      await store.upsert(deadline('pay_1', 60))
      expect(await store.due(at(10), 10)).toEqual([])
      expect(await store.due(at(60), 10)).toEqual([deadline('pay_1', 60)])
    })

    it('removes a deadline, and removing twice or an unknown one is harmless', async () => {
      await store.upsert(deadline('pay_1', 5))
      await store.upsert(deadline('pay_2', 6, 'SOLANA'))
      await store.remove('pay_1')
      await store.remove('pay_1')
      await store.remove('pay_unknown')
      expect(await store.due(at(10), 10)).toEqual([deadline('pay_2', 6, 'SOLANA')])
    })
  })
}

function at(minutes: number): string {
  return new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()
}

function deadline(paymentId: string, minutes: number, network = 'TRON'): PaymentDeadline {
  return { paymentId, network, expiresAt: at(minutes) }
}
