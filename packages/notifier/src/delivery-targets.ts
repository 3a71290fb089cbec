// Where one event's webhook goes, and recording it there (docs/api.md, "Webhooks"): the payment's or
// invoice's callbackUrl, the merchant's default URL, and every enabled webhook endpoint of the
// merchant subscribed to the kind. With no target at all, one delivery is recorded without one
// (no_target), kept for redelivery. Delivery ids follow from the event id and the target, so a
// replayed event records nothing twice. The payment, invoice and refund/payout recorders share it.

import { type Clock, isoNow } from '@chainpay/platform'
import {
  deliveryIdFor,
  endpointWants,
  MERCHANT_DEFAULT_TARGET,
  type MerchantStore,
  type WebhookDelivery,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'

export type DeliveryTarget = Pick<WebhookDelivery, 'deliveryId' | 'endpointId' | 'targetUrl'>

/** the targets of one event; `callbackUrl` null where the resource has none (refunds, payouts) */
export async function deliveryTargetsOf(input: {
  eventId: string
  merchantId: string
  kind: WebhookDelivery['eventType']
  callbackUrl: string | null
  merchants: Pick<MerchantStore, 'getMerchant'>
  webhookEndpoints: Pick<WebhookEndpointStore, 'list'>
}): Promise<DeliveryTarget[]> {
  const { eventId, callbackUrl } = input
  const defaultUrl = (await input.merchants.getMerchant(input.merchantId))?.webhookUrl ?? null
  const endpoints = (await input.webhookEndpoints.list(input.merchantId)).filter((endpoint) =>
    endpointWants(endpoint, input.kind),
  )
  const targets: DeliveryTarget[] = []
  if (callbackUrl !== null) targets.push({ deliveryId: eventId, endpointId: null, targetUrl: callbackUrl })
  if (defaultUrl !== null || (callbackUrl === null && endpoints.length === 0)) {
    const deliveryId = callbackUrl === null ? eventId : deliveryIdFor(eventId, MERCHANT_DEFAULT_TARGET)
    targets.push({ deliveryId, endpointId: MERCHANT_DEFAULT_TARGET, targetUrl: defaultUrl })
  }
  for (const endpoint of endpoints) {
    targets.push({
      deliveryId: deliveryIdFor(eventId, endpoint.endpointId),
      endpointId: endpoint.endpointId,
      targetUrl: endpoint.url,
    })
  }
  return targets
}

/**
 * Records one delivery per target, pending (or no_target without a URL); each target with whether
 * this call recorded it (false: it was there already)
 */
export async function recordDeliveries(
  deliveries: WebhookDeliveryStore,
  clock: Clock,
  input: Pick<
    WebhookDelivery,
    'eventId' | 'paymentId' | 'merchantId' | 'eventType' | 'sequence' | 'payload'
  > & {
    targets: readonly DeliveryTarget[]
  },
): Promise<(DeliveryTarget & { recorded: boolean })[]> {
  const { targets, ...delivery } = input
  const now = isoNow(clock)
  const results: (DeliveryTarget & { recorded: boolean })[] = []
  for (const target of targets) {
    const recorded = await deliveries.enqueue({
      ...delivery,
      ...target,
      status: target.targetUrl === null ? 'no_target' : 'pending',
      attempts: 0,
      // nothing is scheduled for a delivery without a target
      nextAttemptAt: target.targetUrl === null ? null : now,
      createdAt: now,
      deliveredAt: null,
      lastError: null,
    })
    results.push({ ...target, recorded })
  }
  return results
}
