// Payment events for the notifier's tests, as the relay publishes them, and deliveries as the
// delivery recorder writes them. Pure: no I/O.

import { randomUUID } from 'node:crypto'
import { PaymentEventHeaders, type PaymentEventMessage, type WebhookEventKind } from '@chainpay/contracts'
import {
  evolvePayment,
  initialPaymentState,
  type OpenPayment,
  type PaymentCreatedData,
  type PaymentEvent,
} from '@chainpay/domain'
import { type ConsumedMessage, Topics, type WebhookDelivery } from '@chainpay/ports'
import { webhookKindOf, webhookPaymentFields } from '../webhook-kinds.js'

export function paymentCreatedData(fields: Partial<PaymentCreatedData> = {}): PaymentCreatedData {
  const createdAt = fields.createdAt ?? '2026-11-21T14:00:00.000Z'
  return {
    paymentId: randomUUID(),
    merchantId: 'merchant-1',
    idempotencyKey: null,
    requestFingerprint: 'f'.repeat(64),
    network: 'TRON',
    currency: 'USDT',
    tokenStandard: 'TRC20',
    decimals: 6,
    amount: '10.50',
    amountUnits: '10500000',
    feeUnits: '105000',
    netUnits: '10395000',
    address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    tokenAccount: null,
    derivationPath: "m/44'/195'/0'/0/7",
    addressMode: 'PER_PAYMENT',
    requiredConfirmations: 20,
    description: null,
    metadata: { orderId: '1042' },
    callbackUrl: null,
    successRedirectUrl: null,
    cancelRedirectUrl: null,
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + 30 * 60_000).toISOString(),
    ...fields,
  }
}

/** a payment's events as the relay publishes them: revisions from 0, one event id each */
export function paymentMessages(events: PaymentEvent[]): PaymentEventMessage[] {
  return events.map((event, revision) => ({
    eventId: randomUUID(),
    paymentId: event.data.paymentId,
    streamId: `payment-${event.data.paymentId}`,
    revision,
    schemaVersion: 1,
    recordedAt: new Date(Date.parse('2026-11-21T14:00:00.000Z') + revision * 1000).toISOString(),
    ...event,
  }))
}

/** a payment event message as a subscription hands it over */
export function consumed(message: PaymentEventMessage): ConsumedMessage {
  return {
    topic: Topics.paymentEvents,
    offset: String(message.revision),
    key: message.paymentId,
    value: JSON.stringify(message),
    headers: {
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: message.type,
      [PaymentEventHeaders.streamRevision]: String(message.revision),
    },
  }
}

export function foldPayment(events: PaymentEvent[]): OpenPayment {
  const state = events.reduce(evolvePayment, initialPaymentState)
  if (state.status === 'none') throw new Error('the events do not create a payment')
  return state
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
    payload: { event: kind, payment: webhookPaymentFields(foldPayment([event]), event) },
    status: 'pending',
    attempts: 0,
    nextAttemptAt: fields.createdAt,
    deliveredAt: null,
    lastError: null,
    ...fields,
  }
}
