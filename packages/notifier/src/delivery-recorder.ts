// Turns payment events into webhook deliveries. The notifier folds the events into its own copy of
// each payment (apart from the API's read model, so neither waits for the other) and records, for
// each event that has a webhook kind, one delivery per target (docs/api.md, "Webhooks"): the
// payment's callbackUrl, the merchant's default URL, and every enabled webhook endpoint of the
// merchant subscribed to the kind; each describes the payment as it was right after that event.
// With no target at all, one delivery is recorded without one (no_target), kept for redelivery. The
// deliveries are recorded before the folded state is saved: a crash in between folds the event again
// and finds them already there (their ids follow from the event id and the target), so nothing is
// lost or doubled. A store that fails is retried by the bus until it works, holding the events after it; an
// event that does not follow the folded copy (a revision gap) is poison: foldPaymentEvent throws
// BrokenPaymentStreamError, which the bus dead-letters.

import { parsePaymentEventMessage } from '@chainpay/contracts'
import { foldPaymentEvent } from '@chainpay/domain'
import { type Clock, type Logger, moduleLogger, type Service } from '@chainpay/platform'
import {
  type Bus,
  type ConsumedMessage,
  consumerService,
  type MerchantStore,
  type PaymentReadModel,
  rememberingReadModel,
  type SubscribeOptions,
  Topics,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import { deliveryTargetsOf, recordDeliveries } from './delivery-targets.js'
import { webhookKindOf, webhookPaymentFields } from './webhook-kinds.js'

export interface DeliveryRecorderOptions {
  bus: Bus
  /** the notifier's own copy of payment state, not the API's read model */
  payments: PaymentReadModel
  deliveries: WebhookDeliveryStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  webhookEndpoints: Pick<WebhookEndpointStore, 'list'>
  clock: Clock
  logger: Logger
  /** the customer's page of each payment, sent as checkout_url (docs/api.md, "Webhooks") */
  checkoutLinks: Pick<CheckoutLinks, 'urlOf'>
  /** default `notifier` */
  groupId?: string
  /** called with the deliveries recorded for an event (with a target), for the dispatcher to claim at once */
  onRecorded?: (deliveryIds: string[]) => void
  /** how the bus paces retries while a store fails; the bus's defaults unless given */
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
  /** counts deliveries recorded without a target: the dispatcher never attempts those */
  metrics?: { recordedWithoutTarget(): void }
}

export interface DeliveryRecorder extends Service {
  /** what the subscription does with one message; exposed so that tests can drive it */
  handle(message: ConsumedMessage): Promise<void>
}

export function createDeliveryRecorder(options: DeliveryRecorderOptions): DeliveryRecorder {
  const { bus, deliveries, merchants, webhookEndpoints, clock } = options
  // each event folded onto the copy saved last when it directly follows it, without reading it back
  const payments = rememberingReadModel(options.payments)
  const logger = moduleLogger(options.logger, 'delivery-recorder')

  async function handle(message: ConsumedMessage): Promise<void> {
    const event = parsePaymentEventMessage(message.value)
    const folded = foldPaymentEvent(await payments.documentBefore(event.paymentId, event.revision), event)
    // already folded, so its delivery was recorded before
    if (folded === 'skip') return
    const kind = webhookKindOf(event.type)
    if (kind !== null) {
      const { state } = folded
      const { merchantId, callbackUrl } = state.created
      const targets = await deliveryTargetsOf({
        eventId: event.eventId,
        merchantId,
        kind,
        callbackUrl,
        merchants,
        webhookEndpoints,
      })
      const payload = {
        event: kind,
        payment: webhookPaymentFields(state, event, options.checkoutLinks.urlOf(event.paymentId)),
      }
      const results = await recordDeliveries(deliveries, clock, {
        eventId: event.eventId,
        paymentId: event.paymentId,
        merchantId,
        eventType: kind,
        sequence: event.revision,
        payload,
        targets,
      })
      const recordedIds: string[] = []
      for (const { deliveryId, endpointId, targetUrl, recorded } of results) {
        if (!recorded) continue
        const context = { deliveryId, endpointId, paymentId: event.paymentId, merchantId, eventType: kind }
        if (targetUrl === null) {
          logger.info(context, 'webhook recorded without a target')
          options.metrics?.recordedWithoutTarget()
        } else {
          logger.debug(context, 'webhook recorded')
          recordedIds.push(deliveryId)
        }
      }
      if (recordedIds.length > 0) options.onRecorded?.(recordedIds)
    }
    await payments.save(folded)
  }

  const consumer = consumerService(bus, {
    name: 'webhook delivery recorder',
    logger,
    topic: Topics.paymentEvents,
    groupId: options.groupId ?? 'notifier',
    ...options.retry,
    handle,
  })
  return { ...consumer, handle }
}
