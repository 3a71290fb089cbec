import { paymentEventMessages } from '@chainpay/contracts/testing'
import {
  type WebhookDelivery,
  type WebhookDeliveryStore,
  webhookEndpointSecretContext,
  webhookSecretContext,
} from '@chainpay/ports'
import { verifyWebhook } from '@chainpay/signing'
import { createSqliteDeliveryStore } from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createDeliveryRecorder } from './delivery-recorder.js'
import {
  createWebhookDispatcher,
  DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST,
  type WebhookAttemptOutcome,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
} from './dispatcher.js'
import {
  consumed,
  createNotifierHarness,
  type NotifierHarness,
  newPaymentData,
  pendingDelivery,
  startReceiver,
  testCheckoutLinks,
  testLogger,
  type WebhookReceiver,
} from './testing/notifier-harness.js'

let harness: NotifierHarness
let receiver: WebhookReceiver
let merchantId: string
let merchantSecret: string
const dispatchers: WebhookDispatcher[] = []

beforeEach(async () => {
  harness = createNotifierHarness()
  const merchant = await harness.addMerchant({ webhookUrl: null })
  merchantId = merchant.merchantId
  merchantSecret = merchant.secret
  receiver = await startReceiver(merchant.secret)
})

afterEach(async () => {
  for (const dispatcher of dispatchers.splice(0)) await dispatcher.stop()
  await receiver.close()
  await harness.close()
})

function dispatcherWith(overrides: Partial<WebhookDispatcherOptions> = {}): WebhookDispatcher {
  const dispatcher = createWebhookDispatcher({
    deliveries: harness.deliveries,
    merchants: harness.merchants,
    webhookEndpoints: harness.webhookEndpoints,
    secretBox: harness.secretBox,
    clock: harness.clock,
    logger: testLogger,
    allowPrivateTargets: true,
    schedule: [10, 20, 40],
    // the middle of the jitter range: every delay exactly as scheduled
    random: () => 0.5,
    ...overrides,
  })
  dispatchers.push(dispatcher)
  return dispatcher
}

/** deliveries of one new payment, one per sequence number, targeted at `path` of the receiver */
async function enqueue(count: number, path = '/hooks', fields: Partial<WebhookDelivery> = {}) {
  const created = newPaymentData({ merchantId })
  const queued: WebhookDelivery[] = []
  for (let sequence = 0; sequence < count; sequence++) {
    const delivery = pendingDelivery(created, {
      sequence,
      targetUrl: `${receiver.origin}${path}`,
      createdAt: harness.clock.now().toISOString(),
      ...fields,
    })
    await harness.deliveries.enqueue(delivery)
    queued.push(delivery)
  }
  return queued
}

/** dispatches, lets the clock run past every retry delay, and again, `rounds` times */
async function drive(dispatcher: WebhookDispatcher, rounds: number) {
  for (let round = 0; round < rounds; round++) {
    await dispatcher.dispatchOnce()
    harness.clock.advance(1_000)
  }
}

const statusOf = async (delivery: WebhookDelivery) =>
  (await harness.deliveries.get(delivery.deliveryId))?.status

describe('createWebhookDispatcher', () => {
  it('retries a failing receiver with the same event id until each event is acknowledged once, in order', async () => {
    const queued = await enqueue(3)
    let failures = 3
    receiver.answer = () => (failures-- > 0 ? { status: 500 } : { status: 200 })
    const dispatcher = dispatcherWith()

    const firstAt = harness.clock.now().getTime()
    expect(await dispatcher.dispatchOnce()).toBe(1)
    expect(await harness.deliveries.get(queued[0]?.deliveryId ?? '')).toMatchObject({
      status: 'pending',
      attempts: 1,
      lastError: 'HTTP 500',
      nextAttemptAt: new Date(firstAt + 10).toISOString(),
    })
    await drive(dispatcher, 8)

    const ids = queued.map((delivery) => delivery.deliveryId)
    expect(receiver.received.map((webhook) => webhook.eventId)).toEqual([
      ids[0],
      ids[0],
      ids[0],
      ids[0],
      ids[1],
      ids[2],
    ])
    expect(
      receiver.received.filter((webhook) => webhook.answered === 200).map((webhook) => webhook.eventId),
    ).toEqual(ids)
    expect(receiver.received.every((webhook) => webhook.verified)).toBe(true)
    for (const delivery of queued) expect(await statusOf(delivery)).toBe('delivered')
    const attempts = await harness.deliveries.listAttempts(ids[0] ?? '')
    expect(attempts.map(({ attempt, statusCode, error }) => [attempt, statusCode, error])).toEqual([
      [1, 500, 'HTTP 500'],
      [2, 500, 'HTTP 500'],
      [3, 500, 'HTTP 500'],
      [4, 200, null],
    ])
    expect(attempts.every((attempt) => attempt.durationMs >= 0)).toBe(true)
  })

  it('sends a signed JSON body with the headers of docs/api.md, "Webhooks"', async () => {
    const [delivery] = await enqueue(1)
    await dispatcherWith().dispatchOnce()

    const [webhook] = receiver.received
    expect(webhook).toMatchObject({
      path: '/hooks',
      eventId: delivery?.deliveryId,
      eventType: 'payment.pending',
      contentType: 'application/json',
      userAgent: 'chainpay-webhooks/1',
      verified: true,
    })
    expect(webhook?.timestamp).toBe(String(Math.floor(harness.clock.now().getTime() / 1000)))
    expect(webhook?.body).toContain('"amount":10.50,')
    expect(JSON.parse(webhook?.body ?? '')).toMatchObject({
      id: delivery?.deliveryId,
      event: 'payment.pending',
      timestamp: Number(webhook?.timestamp),
      payment: { id: delivery?.paymentId, status: 'PENDING', tx_hash: null, expected_amount: '10.5' },
    })
  })

  it('signs the event id: the body carries id, equal to X-Event-Id on every attempt', async () => {
    const [delivery] = await enqueue(1)
    let failures = 1
    receiver.answer = () => (failures-- > 0 ? { status: 500 } : { status: 200 })
    await drive(dispatcherWith(), 2)

    expect(receiver.received).toHaveLength(2)
    for (const webhook of receiver.received) {
      expect(webhook.eventId).toBe(delivery?.deliveryId)
      const body = JSON.parse(webhook.body)
      expect(Object.keys(body)).toEqual(['id', 'event', 'timestamp', 'payment'])
      expect(body.id).toBe(webhook.eventId)
      // the signature covers the id: the same body under another id no longer verifies
      const tampered = webhook.body.replace(`"id":"${webhook.eventId}"`, '"id":"evt_replayed"')
      expect(tampered).not.toBe(webhook.body)
      expect(
        verifyWebhook(
          merchantSecret,
          { rawBody: tampered, signature: webhook.signature, timestamp: webhook.timestamp },
          Number(webhook.timestamp),
        ),
      ).toEqual({ ok: false, reason: 'bad_signature' })
    }
  })

  it('POSTs every attempt signed afresh: its timestamp is the time of that attempt, and so is the recorded one', async () => {
    const [delivery] = await enqueue(1)
    const id = delivery?.deliveryId ?? ''
    receiver.answer = () => ({ status: 500 })
    const dispatcher = dispatcherWith({ schedule: [60_000] })
    const firstAt = harness.clock.now()
    await dispatcher.dispatchOnce()
    harness.clock.advance(60_000)
    const secondAt = harness.clock.now()
    receiver.answer = () => ({ status: 200 })
    await dispatcher.dispatchOnce()

    const seconds = (at: Date) => String(Math.floor(at.getTime() / 1000))
    expect(receiver.received.map((webhook) => [webhook.method, webhook.eventId, webhook.timestamp])).toEqual([
      ['POST', id, seconds(firstAt)],
      ['POST', id, seconds(secondAt)],
    ])
    for (const webhook of receiver.received) {
      expect(webhook.verified).toBe(true)
      expect(String(JSON.parse(webhook.body).timestamp)).toBe(webhook.timestamp)
    }
    expect((await harness.deliveries.listAttempts(id)).map((attempt) => attempt.at)).toEqual([
      firstAt.toISOString(),
      secondAt.toISOString(),
    ])
  })

  it('retries on the schedule of docs/api.md, "Webhooks" when none is configured: first 30 s later', async () => {
    const [delivery] = await enqueue(1)
    receiver.answer = () => ({ status: 503 })
    const dispatcher = createWebhookDispatcher({
      deliveries: harness.deliveries,
      merchants: harness.merchants,
      webhookEndpoints: harness.webhookEndpoints,
      secretBox: harness.secretBox,
      clock: harness.clock,
      logger: testLogger,
      allowPrivateTargets: true,
      random: () => 0.5,
    })
    dispatchers.push(dispatcher)
    const at = harness.clock.now().getTime()
    await dispatcher.dispatchOnce()
    expect(await harness.deliveries.get(delivery?.deliveryId ?? '')).toMatchObject({
      status: 'pending',
      nextAttemptAt: new Date(at + 30_000).toISOString(),
    })
  })

  it("signs with the merchant's current webhook secret once it has been rotated", async () => {
    const rotated = 'whsec_rotated'
    await harness.merchants.updateMerchant(
      merchantId,
      { webhookSecret: harness.secretBox.seal(rotated, webhookSecretContext(merchantId)) },
      'now',
    )
    const rotatedReceiver = await startReceiver(rotated)
    try {
      const created = newPaymentData({ merchantId })
      await harness.deliveries.enqueue(
        pendingDelivery(created, {
          targetUrl: `${rotatedReceiver.origin}/hooks`,
          createdAt: harness.clock.now().toISOString(),
        }),
      )
      await dispatcherWith().dispatchOnce()
      expect(rotatedReceiver.received.map((webhook) => webhook.verified)).toEqual([true])
    } finally {
      await rotatedReceiver.close()
    }
  })

  it('gives a receiver 10 seconds to answer by default', async () => {
    const [delivery] = await enqueue(1)
    receiver.answer = () => 'hang'
    const dispatcher = createWebhookDispatcher({
      deliveries: harness.deliveries,
      merchants: harness.merchants,
      webhookEndpoints: harness.webhookEndpoints,
      secretBox: harness.secretBox,
      clock: harness.clock,
      logger: testLogger,
      allowPrivateTargets: true,
    })
    dispatchers.push(dispatcher)
    await dispatcher.dispatchOnce()
    const [attempt] = await harness.deliveries.listAttempts(delivery?.deliveryId ?? '')
    expect(attempt).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^no answer within 10000 ms/),
    })
  })

  it("keeps one payment's deliveries in order while another payment's flow", async () => {
    const stuck = await enqueue(2, '/stuck')
    const flowing = await enqueue(3, '/flowing')
    receiver.answer = (webhook) => ({ status: webhook.path === '/stuck' ? 503 : 204 })
    const dispatcher = dispatcherWith({ schedule: [60_000] })

    await drive(dispatcher, 4)

    const pathsAndIds = receiver.received.map((webhook) => [webhook.path, webhook.eventId])
    expect(pathsAndIds).toEqual([
      ['/stuck', stuck[0]?.deliveryId],
      ['/flowing', flowing[0]?.deliveryId],
      ['/flowing', flowing[1]?.deliveryId],
      ['/flowing', flowing[2]?.deliveryId],
    ])
    expect(await harness.deliveries.get(stuck[1]?.deliveryId ?? '')).toMatchObject({
      status: 'pending',
      attempts: 0,
    })

    receiver.answer = () => ({ status: 200 })
    harness.clock.advance(60_000)
    await drive(dispatcher, 2)
    expect(receiver.received.slice(4).map((webhook) => webhook.eventId)).toEqual(
      stuck.map((d) => d.deliveryId),
    )
  })

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const [delivery] = await enqueue(1, '/moved')
    receiver.answer = (webhook) =>
      webhook.path === '/moved' ? { status: 302, headers: { location: '/landing' } } : { status: 200 }
    await dispatcherWith().dispatchOnce()

    expect(receiver.received.map((webhook) => webhook.path)).toEqual(['/moved'])
    expect(await harness.deliveries.get(delivery?.deliveryId ?? '')).toMatchObject({
      status: 'pending',
      lastError: 'HTTP 302: redirects are not followed',
    })
    expect((await harness.deliveries.listAttempts(delivery?.deliveryId ?? ''))[0]?.statusCode).toBe(302)
  })

  it('counts a receiver that does not answer in time as a failed attempt', async () => {
    const [delivery] = await enqueue(1)
    receiver.answer = () => 'hang'
    await dispatcherWith({ timeoutMs: 200 }).dispatchOnce()

    const [attempt] = await harness.deliveries.listAttempts(delivery?.deliveryId ?? '')
    expect(attempt).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/no answer within 200 ms/),
    })
    expect(await statusOf(delivery as WebhookDelivery)).toBe('pending')
  })

  it('fails a delivery once the schedule is exhausted and sends it again on redelivery', async () => {
    const [delivery] = await enqueue(1)
    const id = delivery?.deliveryId ?? ''
    receiver.answer = () => ({ status: 500 })
    const dispatcher = dispatcherWith({ schedule: [5, 5] })
    await drive(dispatcher, 3)

    expect(await harness.deliveries.get(id)).toMatchObject({
      status: 'failed',
      attempts: 3,
      nextAttemptAt: null,
    })
    expect(await dispatcher.dispatchOnce()).toBe(0)

    receiver.answer = () => ({ status: 200 })
    expect(await harness.deliveries.redeliver(id, harness.clock.now().toISOString())).toBe(true)
    expect(await dispatcher.dispatchOnce()).toBe(1)
    expect(await harness.deliveries.get(id)).toMatchObject({ status: 'delivered', attempts: 1 })
    expect(receiver.received.map((webhook) => webhook.eventId)).toEqual([id, id, id, id])
  })

  it('gives a redelivered failed delivery the whole schedule again', async () => {
    const [delivery] = await enqueue(1)
    const id = delivery?.deliveryId ?? ''
    receiver.answer = () => ({ status: 500 })
    const dispatcher = dispatcherWith({ schedule: [5, 5] })
    await drive(dispatcher, 3)
    expect(await harness.deliveries.get(id)).toMatchObject({ status: 'failed', attempts: 3 })

    // the receiver is still failing when the operator redelivers, and recovers two attempts later
    let failuresLeft = 2
    receiver.answer = () => ({ status: failuresLeft-- > 0 ? 503 : 200 })
    await harness.deliveries.redeliver(id, harness.clock.now().toISOString())
    await drive(dispatcher, 3)
    expect(await harness.deliveries.get(id)).toMatchObject({ status: 'delivered', attempts: 3 })
    expect(receiver.received).toHaveLength(6)
    expect((await harness.deliveries.listAttempts(id)).map((attempt) => attempt.statusCode)).toEqual([
      500, 500, 500, 503, 503, 200,
    ])
  })

  it("sends a delivery recorded without a target to the merchant's URL once it has one", async () => {
    const [delivery] = await enqueue(1, '', { targetUrl: null })
    const id = delivery?.deliveryId ?? ''
    const dispatcher = dispatcherWith({ schedule: [] })
    await dispatcher.dispatchOnce()
    expect(await harness.deliveries.get(id)).toMatchObject({
      status: 'failed',
      lastError: expect.stringMatching(/no target/),
    })

    await harness.merchants.updateMerchant(merchantId, { webhookUrl: `${receiver.origin}/default` }, 'now')
    await harness.deliveries.redeliver(id, harness.clock.now().toISOString())
    await dispatcher.dispatchOnce()
    expect(await statusOf(delivery as WebhookDelivery)).toBe('delivered')
    expect(receiver.received.map((webhook) => webhook.path)).toEqual(['/default'])
  })

  it('tells its metrics the outcome and duration of every recorded attempt', async () => {
    const [delivered] = await enqueue(1, '/ok')
    const [exhausted] = await enqueue(1, '/down')
    const [untargeted] = await enqueue(1, '', { targetUrl: null })
    let okFailures = 1
    receiver.answer = (webhook) =>
      webhook.path === '/down' || (webhook.path === '/ok' && okFailures-- > 0)
        ? { status: 503 }
        : { status: 200 }
    const reported: Array<{ outcome: WebhookAttemptOutcome; durationMs: number }> = []
    const dispatcher = dispatcherWith({
      schedule: [5],
      metrics: { attempted: (outcome, durationMs) => reported.push({ outcome, durationMs }) },
    })
    await drive(dispatcher, 3)

    expect(await statusOf(delivered as WebhookDelivery)).toBe('delivered')
    expect(await statusOf(exhausted as WebhookDelivery)).toBe('failed')
    expect(await statusOf(untargeted as WebhookDelivery)).toBe('failed')
    expect(reported.map(({ outcome }) => outcome).sort()).toEqual([
      'delivered',
      'failed',
      'no_target',
      'no_target',
      'retry',
      'retry',
    ])
    // each attempt reported once, with the duration it was recorded with
    const recorded = await Promise.all(
      [delivered, exhausted, untargeted].map((delivery) =>
        harness.deliveries.listAttempts(delivery?.deliveryId ?? ''),
      ),
    )
    const byNumber = (a: number, b: number) => a - b
    expect(reported.map(({ durationMs }) => durationMs).sort(byNumber)).toEqual(
      recorded
        .flat()
        .map(({ durationMs }) => durationMs)
        .sort(byNumber),
    )
  })

  describe('without private targets', () => {
    it.each([
      ['plain http', (origin: string) => `${origin}/hooks`, /webhook target must use https/],
      [
        'a loopback address',
        (origin: string) => `${origin.replace('http:', 'https:')}/hooks`,
        /private address/,
      ],
      [
        'a name that resolves to loopback',
        (origin: string) => `https://hooks.merchant.example:${new URL(origin).port}/hooks`,
        /^webhook target hooks\.merchant\.example is not a public address$/,
      ],
    ])('refuses %s', async (_case, target, problem) => {
      const [delivery] = await enqueue(1, '', { targetUrl: target(receiver.origin) })
      const dispatcher = dispatcherWith({
        allowPrivateTargets: false,
        resolveHost: async () => ['127.0.0.1'],
      })
      await dispatcher.dispatchOnce()

      expect(receiver.received).toEqual([])
      expect(await harness.deliveries.get(delivery?.deliveryId ?? '')).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastError: expect.stringMatching(problem),
      })
    })
  })

  it('delivers to 127.0.0.1 when private targets are allowed', async () => {
    const [delivery] = await enqueue(1)
    await dispatcherWith({ allowPrivateTargets: true }).dispatchOnce()
    expect(await statusOf(delivery as WebhookDelivery)).toBe('delivered')
  })

  it('continues the schedule after a restart over the same SQLite file', async () => {
    const [delivery] = await enqueue(1)
    const id = delivery?.deliveryId ?? ''
    receiver.answer = () => ({ status: 500 })
    const first = dispatcherWith({ schedule: [30_000, 120_000] })
    await first.dispatchOnce()
    await first.stop()
    receiver.answer = () => ({ status: 200 })

    const deliveries = createSqliteDeliveryStore(harness.reopen())
    const restarted = dispatcherWith({ deliveries, schedule: [30_000, 120_000] })
    harness.clock.advance(29_000)
    expect(await restarted.dispatchOnce()).toBe(0)
    harness.clock.advance(1_000)
    expect(await restarted.dispatchOnce()).toBe(1)

    expect(
      (await deliveries.listAttempts(id)).map(({ attempt, statusCode }) => [attempt, statusCode]),
    ).toEqual([
      [1, 500],
      [2, 200],
    ])
    expect(await deliveries.get(id)).toMatchObject({ status: 'delivered', attempts: 2 })
  })

  it('spreads retries within the jitter', async () => {
    const [low, high] = [await enqueue(1), await enqueue(1)]
    receiver.answer = () => ({ status: 500 })
    const at = harness.clock.now().getTime()
    let draws = [0, 0.999999]
    const dispatcher = dispatcherWith({
      schedule: [10_000],
      jitter: 0.1,
      concurrency: 1,
      random: () => draws.shift() ?? 0.5,
    })
    await dispatcher.dispatchOnce()
    await dispatcher.dispatchOnce()
    draws = []

    const next = async (queued: WebhookDelivery[]) =>
      Date.parse((await harness.deliveries.get(queued[0]?.deliveryId ?? ''))?.nextAttemptAt ?? '') - at
    expect([await next(low), await next(high)].sort((a, b) => a - b)).toEqual([9_000, 11_000])
  })

  it('delivers in the background once started, and when woken', async () => {
    const dispatcher = dispatcherWith({ pollIntervalMs: 60_000 })
    await dispatcher.start()
    const [delivery] = await enqueue(1)
    dispatcher.wake()
    await expect
      .poll(async () => statusOf(delivery as WebhookDelivery), { timeout: 10_000 })
      .toBe('delivered')
  })

  describe('woken by new work, with a poll interval of an hour', () => {
    // Every test here finishes in far less than the poll interval, so whatever was sent was sent
    // because something woke the dispatcher; the claims it made are counted to show it did not poll.
    const HOUR_MS = 3_600_000

    /** the harness's delivery store (or `store`), counting the dispatcher's claims */
    function countingClaims(store: WebhookDeliveryStore = harness.deliveries) {
      const claims = { count: 0, byId: [] as (readonly string[])[] }
      const deliveries: WebhookDeliveryStore = {
        ...store,
        claimDue(now, bounds) {
          if (bounds.among === undefined) claims.count += 1
          else claims.byId.push(bounds.among)
          return store.claimDue(now, bounds)
        },
      }
      return { deliveries, claims }
    }

    /** started, after its first look for due deliveries (which finds none) */
    async function startedDispatcher(
      overrides: Partial<WebhookDispatcherOptions>,
      claims: { count: number },
    ) {
      const dispatcher = dispatcherWith({ pollIntervalMs: HOUR_MS, ...overrides })
      await dispatcher.start()
      await expect.poll(() => claims.count).toBe(1)
      return dispatcher
    }

    const attemptsOf = async (delivery: WebhookDelivery | undefined) =>
      harness.deliveries.listAttempts(delivery?.deliveryId ?? '')

    it('claims what the recorder records by id at once, without reading the due deliveries', async () => {
      const { deliveries, claims } = countingClaims()
      const dispatcher = await startedDispatcher({ deliveries }, claims)
      const recorder = createDeliveryRecorder({
        bus: harness.bus,
        checkoutLinks: testCheckoutLinks,
        payments: harness.payments,
        deliveries: harness.deliveries,
        merchants: harness.merchants,
        webhookEndpoints: harness.webhookEndpoints,
        clock: harness.clock,
        logger: testLogger,
        onRecorded: (deliveryIds) => dispatcher.dispatchRecorded(deliveryIds),
      })
      const created = newPaymentData({ merchantId, callbackUrl: `${receiver.origin}/orders/1042` })
      const [message] = paymentEventMessages([{ type: 'PaymentCreated', data: created }])

      await recorder.handle(consumed(message ?? expect.fail('no message')))

      await expect.poll(() => receiver.received.map((webhook) => webhook.path)).toEqual(['/orders/1042'])
      const [delivery] = await harness.deliveries.listByPayment(created.paymentId)
      await expect
        .poll(async () => (await harness.deliveries.get(delivery?.deliveryId ?? ''))?.status)
        .toBe('delivered')
      await dispatcher.stop()
      expect(claims.byId).toEqual([[delivery?.deliveryId]])
      // at start only: not for the recording, nor after the delivery, which held nothing back
      expect(claims.count).toBe(1)
    })

    it("sends a recorded delivery held back behind its payment's earlier one once that one is delivered", async () => {
      const { deliveries, claims } = countingClaims()
      const dispatcher = await startedDispatcher({ deliveries }, claims)
      const [first, second] = await enqueue(2)
      dispatcher.dispatchRecorded([first?.deliveryId ?? '', second?.deliveryId ?? ''])
      await expect.poll(() => statusOf(second as WebhookDelivery)).toBe('delivered')
      expect(receiver.received.map((webhook) => webhook.eventId)).toEqual([
        first?.deliveryId,
        second?.deliveryId,
      ])
      await dispatcher.stop()
      // at start; the second was held back by id, so the first one's delivery woke the loop, which
      // claimed it; that claim took one, so the second one's delivery woke it once more
      expect(claims.count).toBe(3)
    })

    it("sends a woken delivery held back behind its payment's earlier one in flight once that one is delivered", async () => {
      const { deliveries, claims } = countingClaims()
      const dispatcher = await startedDispatcher({ deliveries }, claims)
      const [first, second] = await enqueue(2)
      receiver.answer = (webhook) =>
        webhook.eventId === first?.deliveryId ? { status: 200, afterMs: 200 } : { status: 200 }
      dispatcher.dispatchRecorded([first?.deliveryId ?? ''])
      await expect.poll(() => receiver.open).toBe(1)
      // the second one comes as a wake-up (a redelivery, another replica's record): the claim passes
      // over it while the first is in flight
      dispatcher.wake()
      await expect.poll(() => claims.count).toBe(2)
      await expect.poll(() => statusOf(second as WebhookDelivery)).toBe('delivered')
      expect(receiver.received.map((webhook) => webhook.eventId)).toEqual([
        first?.deliveryId,
        second?.deliveryId,
      ])
      await dispatcher.stop()
    })

    it('sleeps until a retry it scheduled falls due on its clock, then sends it', async () => {
      const { deliveries, claims } = countingClaims()
      let failures = 1
      receiver.answer = () => (failures-- > 0 ? { status: 500 } : { status: 200 })
      const dispatcher = await startedDispatcher({ deliveries, schedule: [50] }, claims)
      const [delivery] = await enqueue(1)
      const firstAt = harness.clock.now().getTime()

      dispatcher.wake()
      await expect.poll(async () => (await attemptsOf(delivery)).length).toBe(1)
      // the retry is due 50 ms later on the dispatcher's manual clock, which only the test moves
      harness.clock.advance(50)

      await expect.poll(() => statusOf(delivery as WebhookDelivery)).toBe('delivered')
      await dispatcher.stop()
      const attempts = await attemptsOf(delivery)
      expect(
        attempts.map(({ attempt, statusCode, at }) => [attempt, statusCode, Date.parse(at) - firstAt]),
      ).toEqual([
        [1, 500, 0],
        [2, 200, 50],
      ])
      // at start; woken for the delivery; woken when the retry fell due; after the delivery. The
      // failed attempt woke nothing: its payment waits for the retry.
      expect(claims.count).toBe(4)
    })

    it('attempts again once the lease of an attempt it could not record has run out', async () => {
      let recordFailures = 1
      const { deliveries, claims } = countingClaims({
        ...harness.deliveries,
        async recordAttempt(attempt, outcome) {
          if (recordFailures-- > 0) throw new Error('database is locked')
          await harness.deliveries.recordAttempt(attempt, outcome)
        },
      })
      const dispatcher = await startedDispatcher({ deliveries, leaseMs: 50 }, claims)
      const [delivery] = await enqueue(1)

      dispatcher.wake()
      await expect.poll(() => receiver.received.length).toBe(1)
      harness.clock.advance(1_000)

      await expect.poll(() => statusOf(delivery as WebhookDelivery)).toBe('delivered')
      await dispatcher.stop()
      expect(receiver.received.map((webhook) => webhook.eventId)).toEqual([
        delivery?.deliveryId,
        delivery?.deliveryId,
      ])
      // at start; woken for the delivery; woken when the lease ran out; after the delivery
      expect(claims.count).toBe(4)
    })

    it('claims again when an attempt frees the only slot, also when that attempt is to be retried', async () => {
      const { deliveries, claims } = countingClaims()
      receiver.answer = (webhook) => (webhook.path === '/failing' ? { status: 500 } : { status: 200 })
      const dispatcher = await startedDispatcher({ deliveries, concurrency: 1, schedule: [HOUR_MS] }, claims)
      const [failing] = await enqueue(1, '/failing')
      const [other] = await enqueue(1, '/hooks')

      dispatcher.wake()

      await expect.poll(() => statusOf(other as WebhookDelivery)).toBe('delivered')
      await dispatcher.stop()
      expect(await statusOf(failing as WebhookDelivery)).toBe('pending')
      expect(receiver.received.map((webhook) => webhook.path)).toEqual(['/failing', '/hooks'])
      // at start; woken, filling the slot; the slot freed; after the delivery
      expect(claims.count).toBe(4)
    })
  })

  describe('one slow receiver never delays another merchant (docs/api.md, "Webhooks")', () => {
    /** what the notifier does with a payment's creation: records its payment.pending delivery */
    function recorderWaking(dispatcher: WebhookDispatcher) {
      return createDeliveryRecorder({
        bus: harness.bus,
        checkoutLinks: testCheckoutLinks,
        payments: harness.payments,
        deliveries: harness.deliveries,
        merchants: harness.merchants,
        webhookEndpoints: harness.webhookEndpoints,
        clock: harness.clock,
        logger: testLogger,
        onRecorded: () => dispatcher.wake(),
      })
    }

    async function recordPaymentCreated(
      recorder: ReturnType<typeof createDeliveryRecorder>,
      fields: { merchantId: string; callbackUrl: string },
    ) {
      const created = newPaymentData(fields)
      const [message] = paymentEventMessages([{ type: 'PaymentCreated', data: created }])
      await recorder.handle(consumed(message ?? expect.fail('no message')))
      return created.paymentId
    }

    it("delivers merchant B's webhook within 2 s while merchant A's receiver hangs on 24 payments for the default 10 s timeout", async () => {
      // A's receiver on another loopback address, so another host: it takes every request and never
      // answers; the dispatcher has its defaults (10 s timeout, the default bounds)
      const merchantA = await harness.addMerchant({ webhookUrl: null })
      const hanging = await startReceiver(merchantA.secret, '127.0.0.2')
      hanging.answer = () => 'hang'
      const dispatcher = createWebhookDispatcher({
        deliveries: harness.deliveries,
        merchants: harness.merchants,
        webhookEndpoints: harness.webhookEndpoints,
        secretBox: harness.secretBox,
        clock: harness.clock,
        logger: testLogger,
        allowPrivateTargets: true,
      })
      dispatchers.push(dispatcher)
      try {
        await dispatcher.start()
        const recorder = recorderWaking(dispatcher)
        const paymentsOfA: string[] = []
        for (let order = 0; order < 24; order++) {
          const callbackUrl = `${hanging.origin}/orders/${order}`
          paymentsOfA.push(
            await recordPaymentCreated(recorder, { merchantId: merchantA.merchantId, callbackUrl }),
          )
        }
        // A's host holds its bound's worth of hanging requests; the other 20 wait, still due
        await expect.poll(() => hanging.received.length).toBe(DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST)

        const recordedAt = performance.now()
        const paymentOfB = await recordPaymentCreated(recorder, {
          merchantId,
          callbackUrl: `${receiver.origin}/orders/b`,
        })
        await expect.poll(() => receiver.received.length, { timeout: 5_000 }).toBe(1)

        const [webhookOfB] = receiver.received
        expect(JSON.parse(webhookOfB?.body ?? '{}').payment.id).toBe(paymentOfB)
        expect(webhookOfB?.verified).toBe(true)
        expect((webhookOfB?.receivedAt ?? Number.POSITIVE_INFINITY) - recordedAt).toBeLessThan(2_000)
        // B did not wait for A's timeouts: every request to A is still hanging, no attempt of A's is
        // recorded yet, and A still holds no more than its host's bound
        expect(hanging.received.every((webhook) => webhook.answered === null)).toBe(true)
        expect(hanging.open).toBe(DEFAULT_WEBHOOK_CONCURRENCY_PER_TARGET_HOST)
        const attemptsOfA = await Promise.all(
          paymentsOfA.map(async (paymentId) => {
            const [delivery] = await harness.deliveries.listByPayment(paymentId)
            return harness.deliveries.listAttempts(delivery?.deliveryId ?? '')
          }),
        )
        expect(attemptsOfA.flat()).toEqual([])
      } finally {
        // A's requests fail at once instead of at their timeout, and the dispatcher stops quickly
        await hanging.close()
        await dispatcher.stop()
      }
    })

    it("sends at most its bound to one host at once, and the host's next as soon as an attempt frees a place", async () => {
      const HOUR_MS = 3_600_000
      const other = await startReceiver(merchantSecret, '127.0.0.3')
      try {
        // every attempt fails, a little later: each frees its host's place while its delivery waits
        // for a retry an hour away, so only the freed place can wake the dispatcher (the poll is an
        // hour away too) for that host's waiting deliveries
        receiver.answer = () => ({ status: 503, afterMs: 20 })
        other.answer = () => ({ status: 503, afterMs: 20 })
        const dispatcher = dispatcherWith({
          concurrency: 8,
          concurrencyPerTargetHost: 2,
          pollIntervalMs: HOUR_MS,
          schedule: [HOUR_MS],
        })
        // six payments for each host, one delivery each
        const queued: WebhookDelivery[] = []
        for (let payment = 0; payment < 6; payment++) {
          queued.push(...(await enqueue(1, `/p${payment}`)))
          queued.push(...(await enqueue(1, '', { targetUrl: `${other.origin}/q${payment}` })))
        }
        await dispatcher.start()

        const attempted = async (delivery: WebhookDelivery) =>
          (await harness.deliveries.get(delivery.deliveryId))?.attempts
        await expect
          .poll(async () => (await Promise.all(queued.map(attempted))).every((attempts) => attempts === 1))
          .toBe(true)
        expect([receiver.received.length, other.received.length]).toEqual([6, 6])
        expect([receiver.mostOpen, other.mostOpen]).toEqual([2, 2])
      } finally {
        await other.close()
      }
    })
  })

  it('refuses a jitter outside [0, 1) and a concurrency below 1', () => {
    expect(() => dispatcherWith({ jitter: 1 })).toThrow(/jitter/)
    expect(() => dispatcherWith({ concurrency: 0 })).toThrow(/concurrency/)
    expect(() => dispatcherWith({ concurrencyPerTargetHost: 0 })).toThrow(/concurrency per target host/)
  })
})

describe('several targets of one payment', () => {
  it('keeps each target in its own line: one failing does not hold back the others, on another host', async () => {
    // endpoint A on this receiver's host fails; endpoint B on another host answers
    const other = await startReceiver('unused', '127.0.0.3')
    const endpoint = async (endpointId: string, url: string, secret: string) => {
      const context = webhookEndpointSecretContext({ merchantId, endpointId })
      await harness.webhookEndpoints.create(
        {
          endpointId,
          merchantId,
          url,
          events: null,
          description: null,
          enabled: true,
          secret: harness.secretBox.seal(secret, context),
          previousSecret: null,
          previousSecretExpiresAt: null,
          createdAt: harness.clock.now().toISOString(),
          updatedAt: harness.clock.now().toISOString(),
        },
        16,
      )
    }
    await endpoint('ep-a', `${receiver.origin}/a`, 'whsec_a')
    await endpoint('ep-b', `${other.origin}/b`, 'whsec_b')
    receiver.answer = () => ({ status: 503 })
    const recorder = createDeliveryRecorder({
      bus: harness.bus,
      payments: harness.payments,
      deliveries: harness.deliveries,
      merchants: harness.merchants,
      webhookEndpoints: harness.webhookEndpoints,
      clock: harness.clock,
      logger: testLogger,
      checkoutLinks: testCheckoutLinks,
    })
    const created = newPaymentData({ merchantId })
    const messages = paymentEventMessages([
      { type: 'PaymentCreated', data: created },
      {
        type: 'PaymentCanceled',
        data: {
          paymentId: created.paymentId,
          canceledAt: harness.clock.now().toISOString(),
          canceledBy: 'merchant',
        },
      },
    ])
    for (const message of messages) await recorder.handle(consumed(message))
    const dispatcher = dispatcherWith({ schedule: [60_000] })
    try {
      await drive(dispatcher, 3)
      // B got both events in order, each signed with its own secret and with the event id
      expect(other.received.map((request) => [request.path, request.eventType, request.eventId])).toEqual([
        ['/b', 'payment.pending', messages[0]?.eventId],
        ['/b', 'payment.canceled', messages[1]?.eventId],
      ])
      for (const request of other.received) {
        const signed = { rawBody: request.body, signature: request.signature, timestamp: request.timestamp }
        expect(verifyWebhook('whsec_b', signed, Number(request.timestamp))).toEqual({ ok: true })
      }
      // A's first event failed and waits for its retry; its second waits behind it
      expect(receiver.received.map((request) => [request.path, request.eventType])).toEqual([
        ['/a', 'payment.pending'],
      ])
      const ofA = (await harness.deliveries.listByPayment(created.paymentId)).filter(
        (d) => d.endpointId === 'ep-a',
      )
      expect(ofA.map((delivery) => [delivery.eventType, delivery.status, delivery.attempts])).toEqual([
        ['payment.pending', 'pending', 1],
        ['payment.canceled', 'pending', 0],
      ])
    } finally {
      await other.close()
    }
  })
})
