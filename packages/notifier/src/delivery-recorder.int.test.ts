import type { PaymentEventMessage } from '@chainpay/contracts'
import { paymentEventMessages } from '@chainpay/contracts/testing'
import type { PaymentCreatedData } from '@chainpay/domain'
import { at, confirmationsUpdated, lateFunds, settled, transferDetected } from '@chainpay/domain/testing'
import {
  type ConsumedMessage,
  deadLetterTopic,
  isPoisonMessage,
  MERCHANT_DEFAULT_TARGET,
  type PaymentReadModel,
  Topics,
  type WebhookEndpointRecord,
} from '@chainpay/ports'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createDeliveryRecorder, type DeliveryRecorder } from './delivery-recorder.js'
import { createWebhookDispatcher } from './dispatcher.js'
import {
  consumed,
  createNotifierHarness,
  type NotifierHarness,
  newPaymentData,
  startReceiver,
  testCheckoutLinks,
  testLogger,
} from './testing/notifier-harness.js'

let harness: NotifierHarness
let recorded: number
let stops: Array<() => Promise<void>>

beforeEach(() => {
  harness = createNotifierHarness()
  recorded = 0
  stops = []
})

afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop()
  await harness.close()
})

function recorderWith(payments: PaymentReadModel = harness.payments): DeliveryRecorder {
  const recorder = createDeliveryRecorder({
    bus: harness.bus,
    checkoutLinks: testCheckoutLinks,
    payments,
    deliveries: harness.deliveries,
    merchants: harness.merchants,
    webhookEndpoints: harness.webhookEndpoints,
    clock: harness.clock,
    logger: testLogger,
    onRecorded: (deliveryIds) => {
      recorded += deliveryIds.length
    },
  })
  stops.push(() => recorder.stop())
  return recorder
}

/** created, a transfer seen and then final, confirmed: revisions 0 to 3 */
function confirmedPayment(fields: Partial<PaymentCreatedData>): PaymentEventMessage[] {
  const created = newPaymentData(fields)
  const { paymentId } = created
  const transfer = { txHash: 'ab'.repeat(32), transferIndex: 0 }
  return paymentEventMessages([
    { type: 'PaymentCreated', data: created },
    transferDetected({ ...transfer, paymentId }),
    confirmationsUpdated({ ...transfer, paymentId, confirmations: 20 }),
    settled('PaymentConfirmed', { paymentId, txHash: transfer.txHash, confirmedAt: at(6) }),
  ])
}

async function handleAll(recorder: DeliveryRecorder, messages: PaymentEventMessage[]) {
  for (const message of messages) await recorder.handle(consumed(message))
}

describe('createDeliveryRecorder', () => {
  it("records a delivery per announced event, describing the payment right after it, to the payment's callbackUrl", async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: null })
    const messages = confirmedPayment({ merchantId, callbackUrl: 'https://shop.example/order-1042' })
    const paymentId = messages[0]?.paymentId ?? ''
    await handleAll(recorderWith(), messages)

    const now = harness.clock.now().toISOString()
    const deliveries = await harness.deliveries.listByPayment(paymentId)
    expect(deliveries).toMatchObject([
      {
        deliveryId: messages[0]?.eventId,
        merchantId,
        eventType: 'payment.pending',
        sequence: 0,
        targetUrl: 'https://shop.example/order-1042',
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        payload: {
          event: 'payment.pending',
          payment: { id: paymentId, status: 'PENDING', tx_hash: null, confirmations: 0 },
        },
      },
      {
        deliveryId: messages[1]?.eventId,
        eventType: 'payment.transfer_detected',
        sequence: 1,
        payload: {
          event: 'payment.transfer_detected',
          payment: {
            status: 'PENDING',
            tx_hash: 'ab'.repeat(32),
            required_confirmations: 20,
            transfer: { tx_hash: 'ab'.repeat(32), amount: '10.5' },
          },
        },
      },
      {
        deliveryId: messages[3]?.eventId,
        eventType: 'payment.confirmed',
        sequence: 3,
        payload: {
          event: 'payment.confirmed',
          payment: {
            status: 'CONFIRMED',
            amount: '10.50',
            tx_hash: 'ab'.repeat(32),
            received_amount: '10.5',
            confirmations: 20,
          },
        },
      },
    ])
    expect(deliveries[0]?.payload).not.toHaveProperty('timestamp')
    expect(await harness.payments.get(paymentId)).toMatchObject({
      revision: 3,
      state: { status: 'confirmed' },
    })
    expect(recorded).toBe(3)
  })

  it("sends to the merchant's webhook URL when the payment has no callbackUrl", async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const [created] = confirmedPayment({ merchantId })
    await recorderWith().handle(consumed(created as PaymentEventMessage))
    expect(await harness.deliveries.get(created?.eventId ?? '')).toMatchObject({
      eventId: created?.eventId,
      endpointId: MERCHANT_DEFAULT_TARGET,
      targetUrl: 'https://shop.example/default',
      status: 'pending',
    })
  })

  it('records one delivery per target: callbackUrl, default URL, each enabled endpoint subscribed to the kind', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const endpoint = (endpointId: string, fields: Partial<WebhookEndpointRecord>): WebhookEndpointRecord => ({
      endpointId,
      merchantId,
      url: `https://hooks.example/${endpointId}`,
      events: null,
      description: null,
      enabled: true,
      secret: 'sealed',
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: at(0),
      updatedAt: at(0),
      ...fields,
    })
    await harness.webhookEndpoints.create(endpoint('ep-all', {}), 16)
    await harness.webhookEndpoints.create(endpoint('ep-confirmed', { events: ['payment.confirmed'] }), 16)
    await harness.webhookEndpoints.create(endpoint('ep-off', { enabled: false }), 16)
    const messages = confirmedPayment({ merchantId, callbackUrl: 'https://shop.example/order-7' })
    const paymentId = messages[0]?.paymentId ?? ''
    await handleAll(recorderWith(), messages)

    const targetsOf = (eventId: string | undefined) =>
      deliveries
        .filter((delivery) => delivery.eventId === eventId)
        .map(({ deliveryId, endpointId, targetUrl }) => ({ deliveryId, endpointId, targetUrl }))
    const deliveries = await harness.deliveries.listByPayment(paymentId)
    const pending = messages[0]?.eventId ?? ''
    expect(targetsOf(pending)).toEqual([
      { deliveryId: pending, endpointId: undefined, targetUrl: 'https://shop.example/order-7' },
      {
        deliveryId: `${pending}.${MERCHANT_DEFAULT_TARGET}`,
        endpointId: MERCHANT_DEFAULT_TARGET,
        targetUrl: 'https://shop.example/default',
      },
      { deliveryId: `${pending}.ep-all`, endpointId: 'ep-all', targetUrl: 'https://hooks.example/ep-all' },
    ])
    const confirmed = messages[3]?.eventId ?? ''
    expect(targetsOf(confirmed).map((target) => target.endpointId)).toEqual([
      undefined,
      MERCHANT_DEFAULT_TARGET,
      'ep-all',
      'ep-confirmed',
    ])
    // the same body for every target of one event
    const bodies = deliveries
      .filter((delivery) => delivery.eventId === confirmed)
      .map((delivery) => delivery.payload)
    expect(new Set(bodies.map((body) => JSON.stringify(body))).size).toBe(1)
    expect(recorded).toBe(3 * 3 + 1)
  })

  it('records no delivery without a target when an endpoint takes the event', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: null })
    await harness.webhookEndpoints.create(
      {
        endpointId: 'ep-1',
        merchantId,
        url: 'https://hooks.example/1',
        events: null,
        description: null,
        enabled: true,
        secret: 'sealed',
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: at(0),
        updatedAt: at(0),
      },
      16,
    )
    const [created] = confirmedPayment({ merchantId })
    await recorderWith().handle(consumed(created as PaymentEventMessage))
    expect(
      (await harness.deliveries.listByPayment(created?.paymentId ?? '')).map((d) => [d.deliveryId, d.status]),
    ).toEqual([[`${created?.eventId}.ep-1`, 'pending']])
  })

  it('records an event with nowhere to go as no_target, which is never sent', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: null })
    const [created] = confirmedPayment({ merchantId })
    await recorderWith().handle(consumed(created as PaymentEventMessage))

    expect(await harness.deliveries.get(created?.eventId ?? '')).toMatchObject({
      targetUrl: null,
      status: 'no_target',
      nextAttemptAt: null,
    })
    expect(
      await harness.deliveries.claimDue(harness.clock.now().toISOString(), {
        limit: 10,
        leaseMs: 1000,
        perTargetHost: 10,
      }),
    ).toEqual([])
  })

  it('is idempotent over duplicate messages', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const messages = confirmedPayment({ merchantId })
    const paymentId = messages[0]?.paymentId ?? ''
    const recorder = recorderWith()
    await handleAll(recorder, messages)
    const first = await harness.deliveries.listByPayment(paymentId)

    harness.clock.advance(60_000)
    for (const message of messages) {
      await recorder.handle(consumed(message))
      await recorder.handle(consumed(message))
    }

    expect(await harness.deliveries.listByPayment(paymentId)).toEqual(first)
    expect((await harness.payments.get(paymentId))?.revision).toBe(3)
    expect(recorded).toBe(3)
  })

  it('records the delivery before it saves the payment, so a crash in between loses nothing', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const [created] = confirmedPayment({ merchantId })
    let crashes = 1
    const crashing: PaymentReadModel = {
      get: (paymentId) => harness.payments.get(paymentId),
      list: (query) => harness.payments.list(query),
      listFunded: (query) => harness.payments.listFunded(query),
      save: async (document) => {
        if (crashes-- > 0) throw new Error('process killed')
        return harness.payments.save(document)
      },
    }
    const recorder = recorderWith(crashing)
    const message = consumed(created as PaymentEventMessage)
    await expect(recorder.handle(message)).rejects.toThrow('process killed')
    expect(await harness.deliveries.get(created?.eventId ?? '')).not.toBeNull()

    await recorder.handle(message)
    expect(await harness.deliveries.listByPayment(created?.paymentId ?? '')).toHaveLength(1)
    expect((await harness.payments.get(created?.paymentId ?? ''))?.revision).toBe(0)
  })

  it('reports late funds with the late transfer', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const created = newPaymentData({ merchantId })
    const { paymentId } = created
    const messages = paymentEventMessages([
      { type: 'PaymentCreated', data: created },
      { type: 'PaymentExpired', data: { paymentId, expiredAt: at(30) } },
      lateFunds('expired', {
        paymentId,
        txHash: 'cd'.repeat(32),
        blockHeight: 900,
        blockTime: at(60),
        receivedAt: at(61),
      }),
    ])
    await handleAll(recorderWith(), messages)

    const deliveries = await harness.deliveries.listByPayment(paymentId)
    expect(deliveries.map((delivery) => delivery.eventType)).toEqual([
      'payment.pending',
      'payment.expired',
      'payment.late_funds',
    ])
    expect(deliveries[2]?.payload).toMatchObject({
      payment: { status: 'EXPIRED', late_funds: { tx_hash: 'cd'.repeat(32), amount: '10.5' } },
    })
  })

  it('refuses an event that does not follow what it has folded as poison, for the bus to dead-letter', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const messages = confirmedPayment({ merchantId })
    const refused = recorderWith()
      .handle(consumed(messages[3] as PaymentEventMessage))
      .catch((error: unknown) => error)
    expect(isPoisonMessage(await refused)).toBe(true)
    expect(await harness.deliveries.listByPayment(messages[0]?.paymentId ?? '')).toEqual([])
  })

  it('on the bus, rides out a store that fails for many attempts, losing and dead-lettering nothing', async () => {
    const { merchantId } = await harness.addMerchant({ webhookUrl: 'https://shop.example/default' })
    const messages = confirmedPayment({ merchantId })
    const paymentId = messages[0]?.paymentId ?? ''
    const deadLetters: ConsumedMessage[] = []
    const watcher = await harness.bus.subscribe({
      topic: deadLetterTopic(Topics.paymentEvents),
      groupId: 'test',
      handle: async (message) => void deadLetters.push(message),
    })
    stops.push(() => watcher.stop())
    // eight failed writes: more than the five attempts after which the bus used to give up
    let failures = 8
    const flaky: PaymentReadModel = {
      get: (id) => harness.payments.get(id),
      save: async (document) => {
        if (failures > 0) {
          failures -= 1
          throw new Error('payments store unavailable')
        }
        return harness.payments.save(document)
      },
      list: (query) => harness.payments.list(query),
      listFunded: (query) => harness.payments.listFunded(query),
    }
    const recorder = createDeliveryRecorder({
      bus: harness.bus,
      checkoutLinks: testCheckoutLinks,
      payments: flaky,
      deliveries: harness.deliveries,
      merchants: harness.merchants,
      webhookEndpoints: harness.webhookEndpoints,
      clock: harness.clock,
      logger: testLogger,
      retry: { retryDelayMs: 1, maxRetryDelayMs: 4 },
    })
    await recorder.start()
    stops.push(() => recorder.stop())

    await harness.bus.publish(
      Topics.paymentEvents,
      messages.map((message) => ({ key: message.paymentId, value: JSON.stringify(message), headers: {} })),
    )
    await vi.waitFor(async () => expect((await harness.payments.get(paymentId))?.revision).toBe(3), {
      timeout: 10_000,
    })
    expect(failures).toBe(0)
    const deliveries = await harness.deliveries.listByPayment(paymentId)
    expect(deliveries.map((delivery) => delivery.eventType)).toEqual([
      'payment.pending',
      'payment.transfer_detected',
      'payment.confirmed',
    ])
    // a marker published now comes after any letter the recorder wrote: it must be the only one
    await harness.bus.publish(deadLetterTopic(Topics.paymentEvents), [
      { key: 'marker', value: '{}', headers: {} },
    ])
    await vi.waitFor(() => expect(deadLetters).toHaveLength(1), { timeout: 10_000 })
    expect(deadLetters[0]?.key).toBe('marker')
  })

  it('follows the payment events on the bus and, with the dispatcher, reaches the merchant in order', async () => {
    const merchant = await harness.addMerchant({ webhookUrl: null })
    const receiver = await startReceiver(merchant.secret)
    stops.push(() => receiver.close())
    await harness.merchants.updateMerchant(
      merchant.merchantId,
      { webhookUrl: `${receiver.origin}/hooks` },
      'now',
    )
    const dispatcher = createWebhookDispatcher({
      deliveries: harness.deliveries,
      merchants: harness.merchants,
      webhookEndpoints: harness.webhookEndpoints,
      secretBox: harness.secretBox,
      clock: harness.clock,
      logger: testLogger,
      allowPrivateTargets: true,
      pollIntervalMs: 60_000,
    })
    const recorder = createDeliveryRecorder({
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
    await dispatcher.start()
    stops.push(() => dispatcher.stop())
    await recorder.start()
    stops.push(() => recorder.stop())

    const messages = confirmedPayment({ merchantId: merchant.merchantId })
    await harness.bus.publish(
      Topics.paymentEvents,
      messages.map((message) => ({ key: message.paymentId, value: JSON.stringify(message), headers: {} })),
    )

    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(3)
    expect(receiver.received.map(({ eventType, verified }) => [eventType, verified])).toEqual([
      ['payment.pending', true],
      ['payment.transfer_detected', true],
      ['payment.confirmed', true],
    ])
  })
})
