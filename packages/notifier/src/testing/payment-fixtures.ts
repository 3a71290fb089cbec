// Payments for the notifier's tests, and deliveries as the delivery recorder writes them. The events
// themselves come from @chainpay/domain/testing. Pure: no I/O.

import { randomUUID } from 'node:crypto'
import { type PaymentEventMessage, paymentEventBusMessage, type WebhookEventKind } from '@chainpay/contracts'
import type { PaymentCreatedData, PaymentEvent } from '@chainpay/domain'
import { foldPayment, paymentCreatedData } from '@chainpay/domain/testing'
import { type ConsumedMessage, Topics, type WebhookDelivery } from '@chainpay/ports'
import { createCheckoutLinks } from '@chainpay/service-kit'
import { webhookKindOf, webhookPaymentFields } from '../webhook-kinds.js'

/** the page links of the notifier's tests: PUBLIC_URL https://pay.example.com, a fixed key */
export const testCheckoutLinks = createCheckoutLinks({
  publicUrl: 'https://pay.example.com',
  keys: Buffer.alloc(32, 7).toString('base64'),
})

/** a payment of its own id, for 10.50 USDT with an order id in its metadata, as webhooks show it */
export function newPaymentData(fields: Partial<PaymentCreatedData> = {}): PaymentCreatedData {
  return paymentCreatedData({
    paymentId: randomUUID(),
    amount: '10.50',
    metadata: { orderId: '1042' },
    ...fields,
  })
}

/** a payment event message as a subscription hands it over */
export function consumed(message: PaymentEventMessage): ConsumedMessage {
  return { topic: Topics.paymentEvents, offset: String(message.revision), ...paymentEventBusMessage(message) }
}

/**
 * A pending delivery of a payment.pending webhook as the delivery recorder writes it, for tests of
 * the dispatcher alone.
 */
export function pendingDelivery(
  created: PaymentCreatedData,
  fields: Partial<WebhookDelivery> & { targetUrl: string | null; createdAt: string },
): WebhookDelivery {
  const event: PaymentEvent = { type: 'PaymentCreated', data: created }
  const kind = webhookKindOf(event.type) as WebhookEventKind
  return {
    deliveryId: randomUUID(),
    paymentId: created.paymentId,
    merchantId: created.merchantId,
    eventType: kind,
    sequence: 0,
    payload: {
      event: kind,
      payment: webhookPaymentFields(foldPayment([event]), event, testCheckoutLinks.urlOf(created.paymentId)),
    },
    status: 'pending',
    attempts: 0,
    nextAttemptAt: fields.createdAt,
    deliveredAt: null,
    lastError: null,
    ...fields,
  }
}
