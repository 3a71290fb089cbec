import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DueDeadline, DueDeadlinesQuery, PaymentDeadline, PaymentDeadlineStore } from '../deadlines.js'

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

    /** the deadline, then the watcher's mark */
    const watched = async (deadline: PaymentDeadline) => {
      await store.upsert(deadline)
      await store.markWatched(deadline.paymentId, at(0))
    }
    const due = (expiredBy: string, limit: number, rest: Partial<DueDeadlinesQuery> = {}) =>
      store.due({ expiredBy, now: expiredBy, limit, ...rest })

    it('returns the watched deadlines that have passed, earliest first', async () => {
      await watched(deadline('pay_late', 20))
      await watched(deadline('pay_early', 5))
      await watched(deadline('pay_future', 90))
      await watched(deadline('pay_exact', 30))
      expect(await due(at(30), 10)).toEqual([
        dueDeadline('pay_early', 5),
        dueDeadline('pay_late', 20),
        dueDeadline('pay_exact', 30),
      ])
      expect(await due(at(4), 10)).toEqual([])
    })

    it('returns at most `limit` deadlines, the earliest ones', async () => {
      for (const minute of [7, 3, 5, 1]) await watched(deadline(`pay_${minute}`, minute))
      expect(await due(at(10), 2)).toEqual([dueDeadline('pay_1', 1), dueDeadline('pay_3', 3)])
    })

    it('returns only the deadlines of the network asked for, earliest first and at most `limit`', async () => {
      await watched(deadline('pay_tron_1', 1))
      await watched(deadline('pay_tron_2', 2))
      await watched(deadline('pay_sol_9', 9, 'SOLANA'))
      await watched(deadline('pay_sol_4', 4, 'SOLANA'))
      await watched(deadline('pay_sol_late', 50, 'SOLANA'))
      expect(await due(at(10), 1, { network: 'TRON' })).toEqual([dueDeadline('pay_tron_1', 1)])
      expect(await due(at(10), 10, { network: 'SOLANA' })).toEqual([
        dueDeadline('pay_sol_4', 4, 'SOLANA'),
        dueDeadline('pay_sol_9', 9, 'SOLANA'),
      ])
      expect(await due(at(10), 10, { network: 'TRON_NILE' })).toEqual([])
      expect(await due(at(10), 2)).toEqual([dueDeadline('pay_tron_1', 1), dueDeadline('pay_tron_2', 2)])
    })

    it('keeps one deadline per payment: upserting again moves it and keeps the watch mark', async () => {
      await watched(deadline('pay_1', 5))
      await store.upsert(deadline('pay_1', 5))
      expect(await due(at(10), 10)).toEqual([dueDeadline('pay_1', 5)])
      await store.upsert(deadline('pay_1', 60))
      expect(await due(at(10), 10)).toEqual([])
      expect(await due(at(60), 10)).toEqual([dueDeadline('pay_1', 60)])
    })

    it('removes a deadline, and removing twice or an unknown one is harmless', async () => {
      await watched(deadline('pay_1', 5))
      await watched(deadline('pay_2', 6, 'SOLANA'))
      await store.remove('pay_1')
      await store.remove('pay_1')
      await store.remove('pay_unknown')
      expect(await due(at(10), 10)).toEqual([dueDeadline('pay_2', 6, 'SOLANA')])
    })

    describe('watch marks', () => {
      it('leaves out a deadline the watcher has not marked yet, however late it is', async () => {
        await store.upsert(deadline('pay_unwatched', 1))
        await watched(deadline('pay_watched', 2))
        expect(await due(at(1000), 10)).toEqual([dueDeadline('pay_watched', 2)])
        await store.markWatched('pay_unwatched', at(3))
        expect(await due(at(1000), 10)).toEqual([
          dueDeadline('pay_unwatched', 1),
          dueDeadline('pay_watched', 2),
        ])
      })

      it('keeps a mark made before the deadline is known', async () => {
        await store.markWatched('pay_1', at(0))
        expect(await due(at(1000), 10)).toEqual([])
        await store.upsert(deadline('pay_1', 5))
        expect(await due(at(10), 10)).toEqual([dueDeadline('pay_1', 5)])
      })

      it('takes a repeated mark as one', async () => {
        await store.upsert(deadline('pay_1', 5))
        await store.markWatched('pay_1', at(1))
        await store.markWatched('pay_1', at(2))
        expect(await due(at(10), 10)).toEqual([dueDeadline('pay_1', 5)])
      })

      it('drops the mark with the deadline: a payment created again under the id waits for a new mark', async () => {
        await watched(deadline('pay_1', 5))
        await store.remove('pay_1')
        await store.upsert(deadline('pay_1', 5))
        expect(await due(at(10), 10)).toEqual([])
      })
    })

    describe('retries', () => {
      it('leaves a deadline out until its retry time and counts the failed attempts', async () => {
        await watched(deadline('pay_failing', 1))
        await watched(deadline('pay_next', 2))
        await store.retryLater('pay_failing', at(20))
        expect(await due(at(10), 1, { now: at(19) })).toEqual([dueDeadline('pay_next', 2)])
        expect(await due(at(10), 10, { now: at(20) })).toEqual([
          { ...dueDeadline('pay_failing', 1), attempts: 1 },
          dueDeadline('pay_next', 2),
        ])
        await store.retryLater('pay_failing', at(40))
        expect(await due(at(10), 10, { now: at(40) })).toEqual([
          { ...dueDeadline('pay_failing', 1), attempts: 2 },
          dueDeadline('pay_next', 2),
        ])
      })

      it('ignores a retry of an unknown deadline, and forgets the retry state with the deadline', async () => {
        await store.retryLater('pay_unknown', at(20))
        await watched(deadline('pay_1', 1))
        await store.retryLater('pay_1', at(50))
        await store.remove('pay_1')
        await watched(deadline('pay_1', 1))
        expect(await due(at(10), 10)).toEqual([dueDeadline('pay_1', 1)])
      })
    })
  })
}

function at(minutes: number): string {
  return new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()
}

function deadline(paymentId: string, minutes: number, network = 'TRON'): PaymentDeadline {
  return { paymentId, network, expiresAt: at(minutes) }
}

function dueDeadline(paymentId: string, minutes: number, network = 'TRON'): DueDeadline {
  return { ...deadline(paymentId, minutes, network), attempts: 0 }
}
