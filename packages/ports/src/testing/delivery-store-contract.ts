import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  type ClaimBounds,
  DELIVERY_ATTEMPTS_KEPT,
  type DeliveryAttempt,
  type WebhookDelivery,
  type WebhookDeliveryStore,
} from '../deliveries.js'

const lease = 60_000

/** a claim of up to `limit` deliveries, each leased for a minute; no bound per host unless given */
function upTo(limit: number, perTargetHost = 1_000): ClaimBounds {
  return { limit, leaseMs: lease, perTargetHost }
}

/** What every WebhookDeliveryStore adapter must do; run it against a fresh, empty store per test. */
export function describeWebhookDeliveryStoreContract(
  adapterName: string,
  setup: () => Promise<{ store: WebhookDeliveryStore; teardown(): Promise<void> }>,
): void {
  describe(`WebhookDeliveryStore contract: ${adapterName}`, () => {
    let store: WebhookDeliveryStore
    let teardown: () => Promise<void> = async () => {}

    beforeEach(async () => {
      const fixture = await setup()
      store = fixture.store
      teardown = () => fixture.teardown()
    })
    afterEach(() => teardown())

    const claimedIds = async (now: string, limit = 10, perTargetHost?: number) =>
      (await store.claimDue(now, upTo(limit, perTargetHost))).map((delivery) => delivery.deliveryId)

    it('enqueues a delivery once per id and round-trips it', async () => {
      const first = delivery('evt_1', 'pay_1', 0)
      expect(await store.enqueue(first)).toBe(true)
      expect(await store.enqueue({ ...first, eventType: 'payment.expired', targetUrl: null })).toBe(false)
      expect(await store.get('evt_1')).toEqual(first)
      expect(await store.get('evt_unknown')).toBeNull()
    })

    it('lists the deliveries of one payment in sequence order', async () => {
      for (const sequence of [2, 0, 1]) await store.enqueue(delivery(`evt_${sequence}`, 'pay_1', sequence))
      await store.enqueue(delivery('evt_other', 'pay_2', 0))
      const listed = await store.listByPayment('pay_1')
      expect(listed.map((item) => item.sequence)).toEqual([0, 1, 2])
      expect(await store.listByPayment('pay_none')).toEqual([])
    })

    it('claims only pending deliveries that are due, and returns them whole', async () => {
      const due = delivery('evt_due', 'pay_1', 0)
      await store.enqueue(due)
      await store.enqueue(delivery('evt_later', 'pay_2', 0, { nextAttemptAt: at(10) }))
      await store.enqueue(delivery('evt_no_target', 'pay_3', 0, { status: 'no_target', nextAttemptAt: null }))
      await store.enqueue(delivery('evt_done', 'pay_4', 0, { status: 'delivered', nextAttemptAt: null }))
      await store.enqueue(delivery('evt_failed', 'pay_5', 0, { status: 'failed', nextAttemptAt: null }))
      expect(await store.claimDue(at(1), upTo(10))).toEqual([due])
    })

    it('holds back a delivery while a lower sequence of its payment is still pending', async () => {
      await store.enqueue(delivery('evt_p0', 'pay_p', 0, { nextAttemptAt: at(30) }))
      await store.enqueue(delivery('evt_p1', 'pay_p', 1))
      await store.enqueue(delivery('evt_q0', 'pay_q', 0, { status: 'delivered', nextAttemptAt: null }))
      await store.enqueue(delivery('evt_q1', 'pay_q', 1, { status: 'failed', nextAttemptAt: null }))
      await store.enqueue(delivery('evt_q2', 'pay_q', 2, { status: 'no_target', nextAttemptAt: null }))
      await store.enqueue(delivery('evt_q3', 'pay_q', 3))
      expect(await claimedIds(at(1))).toEqual(['evt_q3'])
    })

    it('keeps each target of a payment in a line of its own, and round-trips event and target', async () => {
      const toEndpoint = (sequence: number, endpointId: string, fields: Partial<WebhookDelivery> = {}) =>
        delivery(`evt_${sequence}.${endpointId}`, 'pay_1', sequence, {
          eventId: `evt_${sequence}`,
          endpointId,
          ...fields,
        })
      // the callbackUrl's line waits for its retry; endpoint A's line too; endpoint B's goes on
      await store.enqueue(delivery('evt_0', 'pay_1', 0, { nextAttemptAt: at(30) }))
      await store.enqueue(delivery('evt_1', 'pay_1', 1))
      await store.enqueue(toEndpoint(0, 'ep_a', { nextAttemptAt: at(30) }))
      await store.enqueue(toEndpoint(1, 'ep_a'))
      await store.enqueue(toEndpoint(0, 'ep_b', { status: 'delivered', nextAttemptAt: null }))
      const b1 = toEndpoint(1, 'ep_b')
      await store.enqueue(b1)
      expect(await store.claimDue(at(1), upTo(10))).toEqual([b1])
      expect(await store.get('evt_1.ep_b')).toEqual({ ...b1 })
    })

    it("pages a merchant's deliveries newest first, stable while new ones come, filtered by payment and status", async () => {
      const made: WebhookDelivery[] = []
      for (let index = 0; index < 5; index++) {
        // two at the same time: the id breaks the tie
        const createdAt = at(Math.floor(index / 2))
        const item = delivery(`evt_${index}`, `pay_${index % 2}`, index, { merchantId: 'mer_1', createdAt })
        made.push(item)
        await store.enqueue(item)
      }
      await store.enqueue(delivery('evt_other', 'pay_9', 0, { merchantId: 'mer_2' }))
      const newestFirst = [...made].reverse().map((item) => item.deliveryId)
      const first = await store.listByMerchant('mer_1', { limit: 2 })
      expect(first.map((item) => item.deliveryId)).toEqual(newestFirst.slice(0, 2))
      // a newer delivery does not shift the next page
      await store.enqueue(delivery('evt_new', 'pay_0', 9, { merchantId: 'mer_1', createdAt: at(9) }))
      const last = first.at(-1) as WebhookDelivery
      const second = await store.listByMerchant('mer_1', {
        limit: 10,
        after: { createdAt: last.createdAt, deliveryId: last.deliveryId },
      })
      expect(second.map((item) => item.deliveryId)).toEqual(newestFirst.slice(2))
      expect(
        (await store.listByMerchant('mer_1', { limit: 10, paymentId: 'pay_1' })).map(
          (item) => item.deliveryId,
        ),
      ).toEqual(['evt_3', 'evt_1'])
      await store.recordAttempt(attempt('evt_2', 1, 500), { status: 'failed' })
      expect(
        (await store.listByMerchant('mer_1', { limit: 10, status: 'failed' })).map((item) => item.deliveryId),
      ).toEqual(['evt_2'])
      expect(await store.listByMerchant('mer_unknown', { limit: 10 })).toEqual([])
    })

    it('releases the next delivery of a payment once the one before it is delivered', async () => {
      await store.enqueue(delivery('evt_0', 'pay_1', 0))
      await store.enqueue(delivery('evt_1', 'pay_1', 1))
      expect(await claimedIds(at(1))).toEqual(['evt_0'])
      expect(await claimedIds(at(2))).toEqual([])
      await store.recordAttempt(attempt('evt_0', 1, 200), { status: 'delivered', deliveredAt: at(2) })
      expect(await claimedIds(at(3))).toEqual(['evt_1'])
    })

    it('claims at most `limit` deliveries per call', async () => {
      for (const paymentId of ['pay_1', 'pay_2', 'pay_3'])
        await store.enqueue(delivery(`evt_${paymentId}`, paymentId, 0))
      const first = await claimedIds(at(1), 2)
      const second = await claimedIds(at(1), 2)
      expect(first).toHaveLength(2)
      expect(second).toHaveLength(1)
      expect(new Set([...first, ...second]).size).toBe(3)
      expect(await claimedIds(at(1), 2)).toEqual([])
    })

    describe('bounded per target host', () => {
      /** `count` deliveries to `url`, one payment each, recorded `offset`, `offset` + 1... seconds in */
      async function enqueueTo(prefix: string, url: string | null, count: number, offset = 0) {
        for (let number = 0; number < count; number++) {
          const createdAt = at((offset + number) / 60)
          await store.enqueue(
            delivery(`${prefix}${number}`, `pay_${prefix}${number}`, 0, { targetUrl: url, createdAt }),
          )
        }
      }

      it("claims a host's first deliveries up to its bound, and goes on to other hosts' past the rest", async () => {
        await enqueueTo('a', 'https://a.example/hooks', 5)
        await enqueueTo('b', 'https://b.example/hooks', 2, 10)
        expect(await claimedIds(at(1), 10, 2)).toEqual(['a0', 'a1', 'b0', 'b1'])
      })

      it('passes over a host at its bound even for the first place in due order, within `limit`', async () => {
        await enqueueTo('a', 'https://a.example/hooks', 5)
        await enqueueTo('b', 'https://b.example/hooks', 2, 10)
        expect(await claimedIds(at(1), 2, 2)).toEqual(['a0', 'a1'])
        // a's two leases are in flight: the next claim takes b's, though a's come first
        expect(await claimedIds(at(1), 1, 2)).toEqual(['b0'])
      })

      it('counts the unexpired leases of earlier claims until their attempts are recorded', async () => {
        await enqueueTo('a', 'https://a.example/hooks', 4)
        expect(await claimedIds(at(0), 10, 2)).toEqual(['a0', 'a1'])
        expect(await claimedIds(at(0.5), 10, 2)).toEqual([])
        // a failed attempt frees its place, though the delivery waits for its retry
        await store.recordAttempt(attempt('a0', 1, 503, 'HTTP 503'), {
          status: 'pending',
          nextAttemptAt: at(30),
        })
        expect(await claimedIds(at(0.5), 10, 2)).toEqual(['a2'])
        expect(await claimedIds(at(0.5), 10, 2)).toEqual([])
        // a lease that ran out (a worker that died) no longer holds a place
        expect(await claimedIds(at(1.75), 10, 2)).toEqual(['a1', 'a2'])
      })

      it('bounds a host by its name whatever the port, path or letter case of its URLs', async () => {
        await enqueueTo('x', 'https://Hooks.Example:8443/one', 1)
        await enqueueTo('y', 'https://hooks.example/two?token=1', 1, 1)
        await enqueueTo('z', 'https://other.example/three', 1, 2)
        expect(await claimedIds(at(1), 10, 1)).toEqual(['x0', 'z0'])
      })

      it('bounds deliveries recorded without a target per merchant, whose URL they go to', async () => {
        await enqueueTo('m', null, 2)
        await store.enqueue(
          delivery('other', 'pay_other', 0, { targetUrl: null, merchantId: 'mer_2', createdAt: at(1 / 60) }),
        )
        expect(await claimedIds(at(1), 10, 1)).toEqual(['m0', 'other'])
      })

      it("keeps a payment's order: a later delivery waits behind an earlier one held back by its host's bound", async () => {
        await enqueueTo('a', 'https://a.example/hooks', 1)
        await store.enqueue(
          delivery('p0', 'pay_p', 0, { targetUrl: 'https://a.example/p', createdAt: at(1 / 60) }),
        )
        await store.enqueue(
          delivery('p1', 'pay_p', 1, { targetUrl: 'https://c.example/p', createdAt: at(2 / 60) }),
        )
        expect(await claimedIds(at(1), 10, 1)).toEqual(['a0'])
      })
    })

    describe('claiming the deliveries named (among)', () => {
      const claimAmong = async (among: string[], now = at(1), limit = 10, perTargetHost?: number) =>
        (await store.claimDue(now, { ...upTo(limit, perTargetHost), among })).map((item) => item.deliveryId)

      it('claims the named deliveries that are due and first in line, and no other', async () => {
        await store.enqueue(delivery('evt_a', 'pay_a', 0))
        await store.enqueue(delivery('evt_b', 'pay_b', 0))
        await store.enqueue(delivery('evt_c0', 'pay_c', 0, { nextAttemptAt: at(30) }))
        await store.enqueue(delivery('evt_c1', 'pay_c', 1))
        await store.enqueue(delivery('evt_later', 'pay_d', 0, { nextAttemptAt: at(10) }))
        expect(await claimAmong(['evt_b', 'evt_c1', 'evt_later', 'evt_unknown'])).toEqual(['evt_b'])
        // claimed once: leased now
        expect(await claimAmong(['evt_b'])).toEqual([])
        expect(await claimedIds(at(1))).toEqual(['evt_a'])
      })

      it("holds to the host's bound, counting the leases of every claim", async () => {
        for (const name of ['h0', 'h1', 'h2'])
          await store.enqueue(delivery(name, `pay_${name}`, 0, { targetUrl: 'https://h.example/hooks' }))
        expect(await claimedIds(at(1), 1, 2)).toEqual(['h0'])
        expect(await claimAmong(['h1', 'h2'], at(1), 10, 2)).toEqual(['h1'])
      })
    })

    it('does not claim a leased delivery again until its lease has run out', async () => {
      await store.enqueue(delivery('evt_1', 'pay_1', 0))
      expect(await claimedIds(at(0))).toEqual(['evt_1'])
      expect(await claimedIds(at(0.5))).toEqual([])
      expect(await claimedIds(at(2))).toEqual(['evt_1'])
    })

    it('records a failed attempt, schedules the retry and releases the lease', async () => {
      await store.enqueue(delivery('evt_1', 'pay_1', 0))
      await store.claimDue(at(0), upTo(10))
      await store.recordAttempt(attempt('evt_1', 1, 500, 'HTTP 500'), {
        status: 'pending',
        nextAttemptAt: at(0.5),
      })
      expect(await store.get('evt_1')).toMatchObject({
        status: 'pending',
        attempts: 1,
        nextAttemptAt: at(0.5),
        lastError: 'HTTP 500',
        deliveredAt: null,
      })
      expect(await claimedIds(at(0.25))).toEqual([])
      expect(await claimedIds(at(0.5))).toEqual(['evt_1'])
    })

    it('records a successful attempt and lists every attempt in order', async () => {
      await store.enqueue(delivery('evt_1', 'pay_1', 0))
      await store.claimDue(at(0), upTo(10))
      const timeout = attempt('evt_1', 1, null, 'timeout after 10000 ms')
      await store.recordAttempt(timeout, { status: 'pending', nextAttemptAt: at(1) })
      await store.claimDue(at(1), upTo(10))
      // each attempt with the URL it went to, which may differ (an endpoint's URL changed)
      const success = { ...attempt('evt_1', 2, 204), url: 'https://shop.example/moved?token=t' }
      await store.recordAttempt(success, { status: 'delivered', deliveredAt: at(1.1) })
      expect(await store.get('evt_1')).toMatchObject({
        status: 'delivered',
        attempts: 2,
        deliveredAt: at(1.1),
      })
      expect(await store.listAttempts('evt_1')).toEqual([timeout, success])
      expect(await store.listAttempts('evt_unknown')).toEqual([])
      expect(await claimedIds(at(100))).toEqual([])
    })

    it('marks a delivery failed and puts it back in line on redeliver', async () => {
      await store.enqueue(delivery('evt_1', 'pay_1', 0))
      await store.claimDue(at(0), upTo(10))
      await store.recordAttempt(attempt('evt_1', 1, 410, 'HTTP 410'), { status: 'failed' })
      expect(await store.get('evt_1')).toMatchObject({ status: 'failed', attempts: 1, lastError: 'HTTP 410' })
      expect(await claimedIds(at(100))).toEqual([])
      expect(await store.redeliver('evt_1', at(200))).toBe(true)
      expect(await store.get('evt_1')).toMatchObject({ status: 'pending', nextAttemptAt: at(200) })
      expect(await claimedIds(at(200))).toEqual(['evt_1'])
      expect(await store.redeliver('evt_unknown', at(200))).toBe(false)
    })

    it('starts the attempts over on redeliver, and lists every attempt in the order made', async () => {
      await store.enqueue(delivery('evt_1', 'pay_1', 0))
      for (const number of [1, 2]) {
        await store.claimDue(at(number), upTo(10))
        const outcome =
          number === 2 ? { status: 'failed' as const } : { status: 'pending' as const, nextAttemptAt: at(2) }
        await store.recordAttempt(attempt('evt_1', number, 500, 'HTTP 500'), outcome)
      }
      expect(await store.get('evt_1')).toMatchObject({ status: 'failed', attempts: 2 })
      await store.redeliver('evt_1', at(300))
      expect(await store.get('evt_1')).toMatchObject({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: at(300),
      })
      await store.claimDue(at(300), upTo(10))
      const again = { ...attempt('evt_1', 1, 503, 'HTTP 503'), at: at(300) }
      await store.recordAttempt(again, { status: 'pending', nextAttemptAt: at(301) })
      expect(await store.get('evt_1')).toMatchObject({ status: 'pending', attempts: 1 })
      expect(await store.listAttempts('evt_1')).toEqual([
        attempt('evt_1', 1, 500, 'HTTP 500'),
        attempt('evt_1', 2, 500, 'HTTP 500'),
        again,
      ])
    })

    it('keeps the latest DELIVERY_ATTEMPTS_KEPT attempts of a delivery, however often it is redelivered', async () => {
      await store.enqueue(delivery('evt_1', 'pay_1', 0))
      await store.enqueue(delivery('evt_2', 'pay_2', 0))
      await store.claimDue(at(0), upTo(10))
      await store.recordAttempt(attempt('evt_2', 1, 500, 'HTTP 500'), { status: 'failed' })
      const made: DeliveryAttempt[] = []
      for (let number = 1; number <= DELIVERY_ATTEMPTS_KEPT + 3; number++) {
        await store.redeliver('evt_1', at(number))
        await store.claimDue(at(number), upTo(10))
        const made1 = { ...attempt('evt_1', 1, 503, 'HTTP 503'), at: at(number) }
        made.push(made1)
        await store.recordAttempt(made1, { status: 'failed' })
      }
      expect(await store.listAttempts('evt_1')).toEqual(made.slice(-DELIVERY_ATTEMPTS_KEPT))
      // another delivery's are its own
      expect(await store.listAttempts('evt_2')).toHaveLength(1)
    })

    describe('retention (pruneFinished)', () => {
      /** prunes in batches of `limit` until a call deletes nothing; the number deleted per call */
      const pruneAll = async (finishedBefore: string, limit: number) => {
        const batches: number[] = []
        for (;;) {
          const deleted = await store.pruneFinished(finishedBefore, limit)
          if (deleted === 0) return batches
          expect(deleted).toBeLessThanOrEqual(2 * limit)
          batches.push(deleted)
        }
      }
      const finish = async (deliveryId: string, minutes: number, outcome: 'delivered' | 'failed') => {
        await store.claimDue(at(minutes), upTo(100))
        const made = { ...attempt(deliveryId, 1, outcome === 'delivered' ? 204 : 410), at: at(minutes) }
        await store.recordAttempt(
          made,
          outcome === 'delivered' ? { status: 'delivered', deliveredAt: at(minutes) } : { status: 'failed' },
        )
      }

      it('deletes the deliveries finished before the cutoff with their attempts, and nothing else', async () => {
        await store.enqueue(delivery('evt_old_delivered', 'pay_1', 0))
        await finish('evt_old_delivered', 1, 'delivered')
        await store.enqueue(
          delivery('evt_old_failed', 'pay_2', 0, { createdAt: at(2), nextAttemptAt: at(2) }),
        )
        await finish('evt_old_failed', 2, 'failed')
        await store.enqueue(
          delivery('evt_old_no_target', 'pay_3', 0, { status: 'no_target', nextAttemptAt: null }),
        )
        // pending, however old: it still has to go out, and holds back the rest of its payment
        await store.enqueue(delivery('evt_old_pending', 'pay_4', 0, { nextAttemptAt: at(500) }))
        await store.enqueue(delivery('evt_next_pending', 'pay_4', 1))
        await store.enqueue(delivery('evt_recent', 'pay_5', 0, { createdAt: at(5), nextAttemptAt: at(5) }))
        await finish('evt_recent', 20, 'delivered')

        expect(await store.pruneFinished(at(3), 10)).toBeGreaterThanOrEqual(3)
        await pruneAll(at(3), 10)
        for (const gone of ['evt_old_delivered', 'evt_old_failed', 'evt_old_no_target']) {
          expect(await store.get(gone)).toBeNull()
          expect(await store.listAttempts(gone)).toEqual([])
        }
        expect(await store.listByPayment('pay_1')).toEqual([])
        expect((await store.get('evt_old_pending'))?.status).toBe('pending')
        expect((await store.get('evt_recent'))?.status).toBe('delivered')
        expect(await store.listAttempts('evt_recent')).toHaveLength(1)
        // the order of pay_4 still holds: its later delivery waits behind the pending earlier one
        expect(await claimedIds(at(30))).toEqual([])
        expect(await claimedIds(at(500))).toEqual(['evt_old_pending'])
      })

      it('deletes at most `limit` deliveries per call, oldest finish first', async () => {
        for (let number = 0; number < 5; number += 1) {
          const id = `evt_${number}`
          await store.enqueue(
            delivery(id, `pay_${number}`, 0, { createdAt: at(number), nextAttemptAt: at(number) }),
          )
          // finished in the reverse order of their creation
          await finish(id, 10 - number, 'delivered')
        }
        await store.pruneFinished(at(100), 2)
        const left = []
        for (let number = 0; number < 5; number += 1) {
          if ((await store.get(`evt_${number}`)) !== null) left.push(number)
        }
        expect(left).toEqual([0, 1, 2])
        expect((await pruneAll(at(100), 2)).length).toBeGreaterThanOrEqual(2)
        expect(await store.listByPayment('pay_0')).toEqual([])
      })

      it('goes by the latest finish: a redelivered delivery is kept while pending, and counts from its next finish', async () => {
        await store.enqueue(delivery('evt_1', 'pay_1', 0))
        await finish('evt_1', 1, 'failed')
        await store.redeliver('evt_1', at(50))
        await pruneAll(at(60), 10)
        expect((await store.get('evt_1'))?.status).toBe('pending')
        await finish('evt_1', 70, 'delivered')
        await pruneAll(at(60), 10)
        expect((await store.get('evt_1'))?.status).toBe('delivered')
        expect(await store.listAttempts('evt_1')).toHaveLength(2)
        await pruneAll(at(71), 10)
        expect(await store.get('evt_1')).toBeNull()
        expect(await store.listAttempts('evt_1')).toEqual([])
      })
    })
  })
}

/** an instant `minutes` after a fixed origin, as the ISO string the ports use */
function at(minutes: number): string {
  return new Date(Date.UTC(2030, 0, 1) + minutes * 60_000).toISOString()
}

function delivery(
  deliveryId: string,
  paymentId: string,
  sequence: number,
  changes: Partial<WebhookDelivery> = {},
): WebhookDelivery {
  return {
    deliveryId,
    paymentId,
    merchantId: 'mer_1',
    eventType: 'payment.confirmed',
    sequence,
    payload: { paymentId, status: 'confirmed', amount: '12.5', metadata: { 'a.b': 'Grüße ✓', $where: null } },
    targetUrl: 'https://shop.example/hooks',
    status: 'pending',
    attempts: 0,
    nextAttemptAt: at(0),
    createdAt: at(0),
    deliveredAt: null,
    lastError: null,
    ...changes,
  }
}

function attempt(
  deliveryId: string,
  number: number,
  statusCode: number | null,
  error: string | null = null,
): DeliveryAttempt {
  return { deliveryId, attempt: number, at: at(number), statusCode, durationMs: 40 + number, error }
}
