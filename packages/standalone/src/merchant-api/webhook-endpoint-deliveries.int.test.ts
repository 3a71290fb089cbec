// Webhook endpoints end to end in one process: created, rotated and moved through the merchant API
// (app.inject), their deliveries recorded and sent by the notifier's own recorder and dispatcher on
// the same SQLite file, to real HTTP receivers. During a rotation's overlap a delivery verifies with
// the old secret and with the new one; a redelivery after a PATCH goes to the endpoint's new URL.

import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setWebhookUrl } from '@chainpay/admin-api'
import { paymentEventBusMessage } from '@chainpay/contracts'
import { paymentEventMessages } from '@chainpay/contracts/testing'
import { paymentCreatedData } from '@chainpay/domain/testing'
import {
  createDeliveryRecorder,
  createWebhookDispatcher,
  deliveryWakeupConsumer,
  type WebhookDispatcherOptions,
} from '@chainpay/notifier'
import { createRootLogger } from '@chainpay/platform'
import { type DeliveryAttempt, deliveryWakeupMessage, Topics } from '@chainpay/ports'
import { verifyWebhook } from '@chainpay/signing'
import {
  createSqliteBus,
  createSqliteDeliveryStore,
  createSqlitePaymentReadModel,
} from '@chainpay/store-sqlite'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { json, type MerchantApiFixture, openMerchantApiFixture } from './merchant-api-fixture.js'

const ENDPOINTS = '/api/merchant/v1/webhook-endpoints'
const logger = createRootLogger({ service: 'webhook-endpoints-test', level: 'silent' })

interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: string
}

let fixture: MerchantApiFixture
const closers: Array<() => Promise<void>> = []
/** the gateway's wake-ups of the dispatcher go where the test's notifier listens (openNotifier) */
let wakeDeliveries: (deliveryIds: string[]) => void = () => {}
beforeEach(async () => {
  wakeDeliveries = () => {}
  // http to loopback receivers, as in development
  fixture = await openMerchantApiFixture({
    policy: { allowInsecureCallbackUrls: true },
    wakeDeliveries: (deliveryIds) => wakeDeliveries(deliveryIds),
  })
})
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
  await fixture.close()
})

interface Receiver {
  origin: string
  received: Received[]
  /** the status it answers with; 200 unless replaced */
  answer: () => number
}

async function startReceiver(): Promise<Receiver> {
  const received: Received[] = []
  const receiver: Receiver = { origin: '', received, answer: () => 200 }
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8')
    })
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body })
      response.writeHead(receiver.answer()).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  receiver.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return receiver
}

/** the notifier on the fixture's file: its recorder fed directly, its dispatcher run once at a time */
function openNotifier(dispatcherOptions: Partial<WebhookDispatcherOptions> = {}) {
  const { db, clock, secretBox, merchants, webhookEndpoints } = fixture
  const deliveries = createSqliteDeliveryStore(db)
  const bus = createSqliteBus(db, { logger })
  closers.push(() => bus.close())
  const recorder = createDeliveryRecorder({
    bus,
    payments: createSqlitePaymentReadModel(db, { table: 'notifier_payments' }),
    deliveries,
    merchants,
    webhookEndpoints,
    clock,
    logger,
    checkoutLinks: fixture.checkoutDeps.checkoutLinks,
  })
  const dispatcher = createWebhookDispatcher({
    deliveries,
    merchants,
    webhookEndpoints,
    secretBox,
    clock,
    logger,
    allowPrivateTargets: true,
    ...dispatcherOptions,
  })
  closers.push(() => dispatcher.stop())
  /** records the payment.pending webhook of a new payment of the fixture's merchant */
  const newPayment = async () => {
    const created = paymentCreatedData({
      paymentId: randomUUID(),
      merchantId: fixture.merchant.merchant.merchantId,
    })
    const [message] = paymentEventMessages([{ type: 'PaymentCreated', data: created }])
    if (message === undefined) throw new Error('no message')
    await recorder.handle({ topic: Topics.paymentEvents, offset: '0', ...paymentEventBusMessage(message) })
    return { paymentId: created.paymentId, eventId: message.eventId }
  }
  return { deliveries, dispatcher, newPayment, bus }
}

const secondsOf = (date: Date) => Math.floor(date.getTime() / 1000)

describe('webhook endpoints, delivered', () => {
  it('signs with the new and the old secret during the overlap, with the new one only after it', async () => {
    const receiver = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) }),
    )
    const oldSecret = created.secret as string
    const rotated = json(
      await fixture.send('POST', `${ENDPOINTS}/${created.id}/rotate-secret`, {
        body: JSON.stringify({ expiresInHours: 1 }),
      }),
    )
    const newSecret = rotated.secret as string
    const notifier = openNotifier()

    const first = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    const [during] = receiver.received
    expect(during?.headers['x-event-id']).toBe(first.eventId)
    const signed = {
      rawBody: during?.body ?? '',
      signature: String(during?.headers['x-signature']),
      previousSignature: String(during?.headers['x-signature-previous']),
      timestamp: String(during?.headers['x-timestamp']),
      eventId: first.eventId,
    }
    const now = secondsOf(fixture.clock.now())
    // a receiver still on the old secret, one already on the new, one holding both
    expect(verifyWebhook(oldSecret, signed, now)).toEqual({ ok: true })
    expect(verifyWebhook(newSecret, signed, now)).toEqual({ ok: true })
    expect(verifyWebhook(newSecret, { ...signed, previousSignature: undefined }, now)).toEqual({ ok: true })
    expect(verifyWebhook(oldSecret, { ...signed, previousSignature: undefined }, now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    })

    // the overlap is over: the old secret no longer signs
    fixture.clock.advance(3_600_001)
    await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    const after = receiver.received[1]
    expect(after?.headers).not.toHaveProperty('x-signature-previous')
    const afterSigned = {
      rawBody: after?.body ?? '',
      signature: String(after?.headers['x-signature']),
      timestamp: String(after?.headers['x-timestamp']),
    }
    const later = secondsOf(fixture.clock.now())
    expect(verifyWebhook(newSecret, afterSigned, later)).toEqual({ ok: true })
    expect(verifyWebhook(oldSecret, afterSigned, later)).toEqual({ ok: false, reason: 'bad_signature' })
  })

  it('keeps both secrets of two rotations at once signing: the later one written has the earlier as previous', async () => {
    const receiver = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) }),
    )
    const rotate = () => fixture.send('POST', `${ENDPOINTS}/${created.id}/rotate-secret`)
    const answers = await Promise.all([rotate(), rotate()])
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200])
    const secrets = answers.map((answer) => json(answer).secret as string)
    expect(new Set(secrets).size).toBe(2)

    const notifier = openNotifier()
    const { eventId } = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    const [delivered] = receiver.received
    const signed = {
      rawBody: delivered?.body ?? '',
      signature: String(delivered?.headers['x-signature']),
      previousSignature: String(delivered?.headers['x-signature-previous']),
      timestamp: String(delivered?.headers['x-timestamp']),
      eventId,
    }
    const now = secondsOf(fixture.clock.now())
    for (const secret of secrets) expect(verifyWebhook(secret, signed, now)).toEqual({ ok: true })
    // the secret before both rotations is the one given up, as after two rotations in a row
    expect(verifyWebhook(created.secret as string, signed, now)).toEqual({
      ok: false,
      reason: 'bad_signature',
    })
  })

  it('redelivers the same event to the URL the endpoint has now, after a PATCH', async () => {
    const before = await startReceiver()
    const moved = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${before.origin}/old` }) }),
    )
    const notifier = openNotifier()
    const { paymentId, eventId } = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    expect(before.received).toHaveLength(1)

    const patched = await fixture.send('PATCH', `${ENDPOINTS}/${created.id}`, {
      body: JSON.stringify({ url: `${moved.origin}/new` }),
    })
    expect(patched.statusCode).toBe(200)
    const [delivery] = await notifier.deliveries.listByPayment(paymentId)
    expect(delivery).toMatchObject({ eventId, endpointId: created.id, status: 'delivered' })
    const redeliver = `/api/merchant/v1/webhook-deliveries/${delivery?.deliveryId}/redeliver`
    // not another merchant's to redeliver
    const foreign = await fixture.send('POST', redeliver, { credentials: fixture.otherMerchant })
    expect(foreign.statusCode).toBe(404)
    const accepted = await fixture.send('POST', redeliver)
    expect(accepted.statusCode, accepted.body).toBe(202)
    expect(json(accepted)).toMatchObject({
      id: delivery?.deliveryId,
      eventId,
      status: 'pending',
      attempts: [{ statusCode: 200 }],
    })
    // the view says where it goes now, before the redelivery is sent
    expect(json(accepted).url).toBe(`${moved.origin}/new`)
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    // and each attempt where it went
    const listed = json<{ data: Array<Record<string, unknown>> }>(
      await fixture.send('GET', `/api/merchant/v1/webhook-deliveries?paymentId=${paymentId}`),
    ).data
    expect(listed).toMatchObject([
      {
        url: `${moved.origin}/new`,
        attempts: [
          { attempt: 1, url: `${before.origin}/old`, statusCode: 200 },
          { attempt: 1, url: `${moved.origin}/new`, statusCode: 200 },
        ],
      },
    ])

    expect(before.received).toHaveLength(1)
    expect(moved.received.map((request) => [request.path, request.headers['x-event-id']])).toEqual([
      ['/new', eventId],
    ])
    expect(JSON.parse(moved.received[0]?.body ?? '{}').id).toBe(eventId)
    const secret = created.secret as string
    const redelivered = moved.received[0]
    expect(
      verifyWebhook(
        secret,
        {
          rawBody: redelivered?.body ?? '',
          signature: String(redelivered?.headers['x-signature']),
          timestamp: String(redelivered?.headers['x-timestamp']),
          eventId,
        },
        secondsOf(fixture.clock.now()),
      ),
    ).toEqual({ ok: true })
  })

  it('redelivers a pending delivery at most once a minute after its last attempt, never one waiting for its first', async () => {
    const receiver = await startReceiver()
    receiver.answer = () => 500
    await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) })
    const notifier = openNotifier()
    const { paymentId } = await notifier.newPayment()
    const [delivery] = await notifier.deliveries.listByPayment(paymentId)
    const redeliver = () =>
      fixture.send('POST', `/api/merchant/v1/webhook-deliveries/${delivery?.deliveryId}/redeliver`)
    const refusal = (response: Awaited<ReturnType<typeof redeliver>>) => ({
      status: response.statusCode,
      retryAfter: response.headers['retry-after'],
      error: json<{ error: { code: string; message: string } }>(response).error,
    })
    // recorded, not attempted yet: it is in line already
    expect(refusal(await redeliver())).toEqual({
      status: 429,
      retryAfter: '60',
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringMatching(
          /is already in line for its next attempt .*; redeliver it again in 60 s/,
        ),
      },
    })
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    fixture.clock.advance(20_000)
    expect(refusal(await redeliver())).toEqual({
      status: 429,
      retryAfter: '40',
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringContaining('was attempted less than 60 s ago; redeliver it again in 40 s'),
      },
    })
    fixture.clock.advance(40_000)
    let attempts = 1
    // a merchant who keeps asking gets one attempt a minute, however often it asks
    for (let minute = 0; minute < 3; minute++) {
      expect((await redeliver()).statusCode).toBe(202)
      for (let again = 0; again < 5; again++) expect((await redeliver()).statusCode).toBe(429)
      attempts += await notifier.dispatcher.dispatchOnce()
      for (let again = 0; again < 5; again++) expect((await redeliver()).statusCode).toBe(429)
      fixture.clock.advance(60_000)
    }
    expect(attempts).toBe(4)
    expect(receiver.received).toHaveLength(4)
    expect(await notifier.deliveries.listAttempts(delivery?.deliveryId ?? '')).toHaveLength(4)
  })

  it('sends an endpoint a signed test event of the kind asked for, listed with its attempts', async () => {
    const receiver = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) }),
    )
    const notifier = openNotifier()
    const test = `${ENDPOINTS}/${created.id}/test`
    const accepted = await fixture.send('POST', test, {
      body: JSON.stringify({ event: 'payment.late_funds' }),
    })
    expect(accepted.statusCode, accepted.body).toBe(202)
    const view = json<Record<string, unknown>>(accepted)
    expect(view).toMatchObject({
      eventType: 'payment.late_funds',
      endpointId: created.id,
      url: `${receiver.origin}/hooks`,
      status: 'pending',
      attempts: [],
    })
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    const [sent] = receiver.received
    expect(sent?.headers['x-event-id']).toBe(view.eventId)
    expect(sent?.headers['x-event-type']).toBe('payment.late_funds')
    expect(
      verifyWebhook(
        created.secret as string,
        {
          rawBody: sent?.body ?? '',
          signature: String(sent?.headers['x-signature']),
          timestamp: String(sent?.headers['x-timestamp']),
          eventId: String(view.eventId),
        },
        secondsOf(fixture.clock.now()),
      ),
    ).toEqual({ ok: true })
    expect(JSON.parse(sent?.body ?? '{}')).toMatchObject({
      id: view.eventId,
      event: 'payment.late_funds',
      test: true,
      payment: { id: view.paymentId, status: 'EXPIRED', late_funds: { amount: '10.5' } },
    })
    const listed = json<{ data: Array<Record<string, unknown>> }>(
      await fixture.send('GET', '/api/merchant/v1/webhook-deliveries'),
    ).data
    expect(listed).toMatchObject([{ id: view.id, status: 'delivered', attempts: [{ statusCode: 200 }] }])

    // a deposit's test event carries a made-up deposit, not a payment (docs/api.md, "Deposits")
    const deposit = json(
      await fixture.send('POST', test, { body: JSON.stringify({ event: 'deposit.confirmed' }) }),
    )
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    expect(JSON.parse(receiver.received[1]?.body ?? '{}')).toEqual({
      id: deposit.eventId,
      event: 'deposit.confirmed',
      timestamp: expect.any(Number),
      test: true,
      deposit: expect.objectContaining({ id: deposit.paymentId, status: 'CONFIRMED', net_amount: '12.375' }),
    })

    // {} or no body: payment.confirmed
    const confirmed = json(await fixture.send('POST', test))
    expect(confirmed.eventType).toBe('payment.confirmed')
    for (const [url, body, status, message] of [
      [
        test,
        { event: 'payment.paid' },
        400,
        expect.stringContaining('event: must be one of payment.pending'),
      ],
      [test, { event: 'payment.confirmed', extra: 1 }, 400, "body: unknown field 'extra'"],
      [`${ENDPOINTS}/${randomUUID()}/test`, {}, 404, expect.stringContaining('not found')],
      [`${ENDPOINTS}/merchant-default/test`, {}, 404, 'webhook endpoint merchant-default not found'],
    ] as const) {
      const refused = await fixture.send('POST', url, { body: JSON.stringify(body) })
      expect(refused.statusCode, refused.body).toBe(status)
      expect(json<{ error: { message: string } }>(refused).error.message).toEqual(message)
    }
    const foreign = await fixture.send('POST', test, { credentials: fixture.otherMerchant })
    expect(foreign.statusCode).toBe(404)
  })

  it('wakes the running dispatcher for a test event and a redelivery: sent at once, claimed by id, not at its next poll', async () => {
    const receiver = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) }),
    )
    // a dispatcher whose poll would come in an hour: only a wake-up sends anything before then
    const notifier = openNotifier({ pollIntervalMs: 3_600_000 })
    const claims: Array<readonly string[] | 'due'> = []
    const claimDue = notifier.deliveries.claimDue.bind(notifier.deliveries)
    notifier.deliveries.claimDue = async (now, bounds) => {
      claims.push(bounds.among ?? 'due')
      return claimDue(now, bounds)
    }
    const wakeups = deliveryWakeupConsumer(notifier.bus, notifier.dispatcher, logger)
    await wakeups.start()
    closers.push(() => wakeups.stop())
    wakeDeliveries = (deliveryIds) => {
      void notifier.bus.publish(Topics.webhookWakeups, [deliveryWakeupMessage(deliveryIds)])
    }
    await notifier.dispatcher.start()
    // its start looks for what is due once
    await vi.waitFor(() => expect(claims).toEqual(['due']))

    const test = json<{ id: string; eventId: string }>(
      await fixture.send('POST', `${ENDPOINTS}/${created.id}/test`),
    )
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1))
    expect(receiver.received[0]?.headers['x-event-id']).toBe(test.eventId)

    fixture.clock.advance(60_000)
    const redelivered = await fixture.send('POST', `/api/merchant/v1/webhook-deliveries/${test.id}/redeliver`)
    expect(redelivered.statusCode, redelivered.body).toBe(202)
    expect(json(redelivered).nextAttemptAt).toBe(fixture.clock.now().toISOString())
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2))
    await vi.waitFor(async () =>
      expect(
        (await notifier.deliveries.listAttempts(test.id)).map(
          (attempt: DeliveryAttempt) => attempt.statusCode,
        ),
      ).toEqual([200, 200]),
    )
    // each claimed by its id, and no poll of the due deliveries came between
    expect(claims).toEqual(['due', [test.id], [test.id]])
  })

  it("refuses to redeliver to a deleted endpoint with 404 NOT_FOUND naming it; the delivery's URL is null", async () => {
    const receiver = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) }),
    )
    const notifier = openNotifier()
    const { paymentId } = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    expect((await fixture.send('DELETE', `${ENDPOINTS}/${created.id}`)).statusCode).toBe(204)
    const [delivery] = await notifier.deliveries.listByPayment(paymentId)

    const refused = await fixture.send(
      'POST',
      `/api/merchant/v1/webhook-deliveries/${delivery?.deliveryId}/redeliver`,
    )
    expect(refused.statusCode, refused.body).toBe(404)
    expect(json<{ error: { code: string; message: string } }>(refused).error).toEqual({
      code: 'NOT_FOUND',
      message: expect.stringContaining(`webhook endpoint ${created.id} not found`),
    })
    // nothing was put back in line
    expect(await notifier.deliveries.get(delivery?.deliveryId ?? '')).toMatchObject({ status: 'delivered' })
    expect(await notifier.dispatcher.dispatchOnce()).toBe(0)
    const listed = json<{ data: Array<Record<string, unknown>> }>(
      await fixture.send('GET', `/api/merchant/v1/webhook-deliveries?paymentId=${paymentId}`),
    ).data
    expect(listed).toMatchObject([
      { endpointId: created.id, url: null, attempts: [{ url: `${receiver.origin}/hooks` }] },
    ])
  })

  it('stops sending to a disabled endpoint: the attempt fails and waits for its retry', async () => {
    const receiver = await startReceiver()
    const created = json(
      await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) }),
    )
    const notifier = openNotifier()
    const { paymentId } = await notifier.newPayment()
    await fixture.send('PATCH', `${ENDPOINTS}/${created.id}`, { body: JSON.stringify({ enabled: false }) })
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    expect(receiver.received).toEqual([])
    expect((await notifier.deliveries.listByPayment(paymentId))[0]).toMatchObject({
      status: 'pending',
      lastError: `webhook endpoint ${created.id} is disabled`,
    })
  })

  it('never shows the merchant what a refused target name resolved to', async () => {
    const created = json(
      await fixture.send('POST', ENDPOINTS, {
        body: JSON.stringify({ url: 'https://redis-master.shop.example/hooks' }),
      }),
    )
    const notifier = openNotifier({ allowPrivateTargets: false, resolveHost: async () => ['10.0.3.7'] })
    const { paymentId } = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    const listed = await fixture.send('GET', `/api/merchant/v1/webhook-deliveries?paymentId=${paymentId}`)
    expect(listed.statusCode).toBe(200)
    expect(listed.body).not.toContain('10.0.3.7')
    const [delivery] = json<{ data: Array<{ lastError: string; attempts: Array<{ error: string }> }> }>(
      listed,
    ).data
    const reason = 'webhook target redis-master.shop.example is not a public address'
    expect(delivery).toMatchObject({
      endpointId: created.id,
      lastError: reason,
      attempts: [{ error: reason }],
    })
  })

  it('sends to the default URL the operator set, the endpoint merchant-default of both lists', async () => {
    const receiver = await startReceiver()
    const { merchantId } = fixture.merchant.merchant
    const development = { ...fixture, webhookUrlPolicy: { allowInsecureCallbackUrls: true } }
    await setWebhookUrl(development, merchantId, `${receiver.origin}/default`)
    const notifier = openNotifier()
    const { paymentId, eventId } = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)

    const endpoint = json(await fixture.send('GET', `${ENDPOINTS}/merchant-default`))
    expect(endpoint).toMatchObject({ url: `${receiver.origin}/default`, managedBy: 'operator' })
    const deliveries = json<{ data: Array<Record<string, unknown>> }>(
      await fixture.send('GET', `/api/merchant/v1/webhook-deliveries?paymentId=${paymentId}`),
    ).data
    expect(deliveries).toEqual([
      expect.objectContaining({ eventId, endpointId: endpoint.id, url: endpoint.url, status: 'delivered' }),
    ])
    // signed with the merchant's webhook secret, as docs/api.md says of the default URL
    const [received] = receiver.received
    expect(received?.path).toBe('/default')
    const signed = {
      rawBody: received?.body ?? '',
      signature: String(received?.headers['x-signature']),
      timestamp: String(received?.headers['x-timestamp']),
    }
    expect(verifyWebhook(fixture.merchant.webhookSecret, signed, secondsOf(fixture.clock.now()))).toEqual({
      ok: true,
    })
  })

  it('refuses to redeliver to the default URL once the operator removed it, with 404 NOT_FOUND', async () => {
    const receiver = await startReceiver()
    const { merchantId } = fixture.merchant.merchant
    const development = { ...fixture, webhookUrlPolicy: { allowInsecureCallbackUrls: true } }
    await setWebhookUrl(development, merchantId, `${receiver.origin}/default`)
    const notifier = openNotifier()
    const { paymentId } = await notifier.newPayment()
    expect(await notifier.dispatcher.dispatchOnce()).toBe(1)
    await setWebhookUrl(development, merchantId, null)
    const [delivery] = await notifier.deliveries.listByPayment(paymentId)
    expect(delivery?.endpointId).toBe('merchant-default')

    const refused = await fixture.send(
      'POST',
      `/api/merchant/v1/webhook-deliveries/${delivery?.deliveryId}/redeliver`,
    )
    expect(refused.statusCode, refused.body).toBe(404)
    expect(json<{ error: { code: string; message: string } }>(refused).error).toEqual({
      code: 'NOT_FOUND',
      message: expect.stringContaining('webhook endpoint merchant-default not found'),
    })
    expect(await notifier.deliveries.get(delivery?.deliveryId ?? '')).toMatchObject({ status: 'delivered' })
  })
  it("lists the merchant's deliveries newest first with their attempts, page by page, filtered", async () => {
    const receiver = await startReceiver()
    await fixture.send('POST', ENDPOINTS, { body: JSON.stringify({ url: `${receiver.origin}/hooks` }) })
    const notifier = openNotifier()
    const payments = []
    for (let index = 0; index < 3; index++) {
      payments.push(await notifier.newPayment())
      fixture.clock.advance(1000)
    }
    // the first attempt fails (its delivery waits for its retry), the others are delivered
    let answered = 0
    receiver.answer = () => (answered++ === 0 ? 500 : 200)
    await notifier.dispatcher.dispatchOnce()
    const LIST = '/api/merchant/v1/webhook-deliveries'
    type Page = {
      data: Array<Record<string, unknown> & { attempts: Array<Record<string, unknown>> }>
      nextCursor: string | null
    }
    const first = json<Page>(await fixture.send('GET', `${LIST}?limit=2`))
    expect(first.data.map((item) => item.eventId)).toEqual([payments[2]?.eventId, payments[1]?.eventId])
    expect(first.nextCursor).toEqual(expect.any(String))
    const second = json<Page>(await fixture.send('GET', `${LIST}?limit=2&cursor=${first.nextCursor}`))
    expect(second.data.map((item) => item.eventId)).toEqual([payments[0]?.eventId])
    expect(second.nextCursor).toBeNull()
    const failedOnce = [...first.data, ...second.data].filter((item) => item.status === 'pending')
    expect(failedOnce).toHaveLength(1)
    expect(failedOnce[0]?.attempts).toEqual([
      {
        attempt: 1,
        at: expect.any(String),
        statusCode: 500,
        durationMs: expect.any(Number),
        error: 'HTTP 500',
        url: `${receiver.origin}/hooks`,
      },
    ])
    const pending = json<Page>(await fixture.send('GET', `${LIST}?status=pending`))
    expect(pending.data.map((item) => item.id)).toEqual([failedOnce[0]?.id])
    const ofPayment = json<Page>(await fixture.send('GET', `${LIST}?paymentId=${payments[1]?.paymentId}`))
    expect(ofPayment.data.map((item) => item.eventId)).toEqual([payments[1]?.eventId])
    // nothing of another merchant's
    expect(json<Page>(await fixture.send('GET', LIST, { credentials: fixture.otherMerchant })).data).toEqual(
      [],
    )
    for (const bad of ['status=sent', 'limit=0', 'limit=101', 'cursor=nope', 'sort=asc']) {
      const refused = await fixture.send('GET', `${LIST}?${bad}`)
      expect(refused.statusCode, bad).toBe(400)
      expect(json<{ error: { code: string } }>(refused).error.code).toBe('VALIDATION_ERROR')
    }
    // a cursor is only ever one this API issued: not any base64url JSON pair, nor one re-encoded
    const issued = first.nextCursor ?? ''
    const [createdAt, deliveryId] = JSON.parse(Buffer.from(issued, 'base64url').toString('utf8'))
    const encoded = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    for (const forged of [
      encoded(['x', 'y']),
      encoded(['', '']),
      encoded([createdAt, '']),
      encoded([createdAt.replace('Z', '+00:00'), deliveryId]),
      encoded([createdAt, `${deliveryId}\u202e`]),
      encoded([createdAt, deliveryId, 'more']),
      Buffer.from(JSON.stringify([createdAt, deliveryId])).toString('base64'),
      `${issued}A`,
    ]) {
      const refused = await fixture.send('GET', `${LIST}?cursor=${encodeURIComponent(forged)}`)
      expect(refused.statusCode, forged).toBe(400)
      expect(json<{ error: { code: string; message: string } }>(refused).error).toEqual({
        code: 'VALIDATION_ERROR',
        message: 'cursor: must be a nextCursor from a previous page',
      })
    }
  })
})
