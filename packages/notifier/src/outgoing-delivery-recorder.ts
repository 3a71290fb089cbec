// Turns refund and payout events into webhook deliveries (docs/api.md, "Refunds and payouts"): each
// event is a state change, announced as refund.* or payout.* to the merchant's default URL and every
// enabled endpoint subscribed to the kind, with the refund or payout as it was right after the event
// (the relay folds it into the message). Deliveries are keyed by the event id and the target, as a
// payment's, so a replayed message records nothing twice; they are ordered per refund or payout (their
// `paymentId` is the item's id, `sequence` its stream revision).

import {
  type OutgoingEventMessage,
  parseOutgoingEventMessage,
  type WebhookEventKind,
  type WebhookOutgoingFields,
} from '@chainpay/contracts'
import { formatUnits, payoutHistoryEventTypes, refundHistoryEventTypes } from '@chainpay/domain'
import { type Clock, type Logger, moduleLogger, type Service } from '@chainpay/platform'
import {
  type Bus,
  type ConsumedMessage,
  consumerService,
  type MerchantStore,
  type SubscribeOptions,
  Topics,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import { deliveryTargetsOf, recordDeliveries } from './delivery-targets.js'

export interface OutgoingDeliveryRecorderOptions {
  bus: Bus
  deliveries: WebhookDeliveryStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  webhookEndpoints: Pick<WebhookEndpointStore, 'list'>
  clock: Clock
  logger: Logger
  groupId?: string
  onRecorded?: (deliveryIds: string[]) => void
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}

export interface OutgoingDeliveryRecorder extends Service {
  handle(message: ConsumedMessage): Promise<void>
}

const kinds: Record<string, string> = { ...refundHistoryEventTypes, ...payoutHistoryEventTypes }

/** the webhook kind of a refund or payout event: the state it enters */
export function outgoingWebhookKindOf(type: string): WebhookEventKind | null {
  return (kinds[type] as WebhookEventKind | undefined) ?? null
}

/** the refund or payout of its webhooks: the API's object in snake_case */
export function webhookOutgoingFields({ item }: Pick<OutgoingEventMessage, 'item'>): WebhookOutgoingFields {
  return {
    id: item.id,
    status: item.status.toUpperCase(),
    ...(item.kind === 'refund' ? { payment_id: item.paymentId ?? '' } : { metadata: item.metadata ?? {} }),
    network: item.network,
    currency: item.currency,
    amount: item.amount,
    address: item.address,
    tx_hash: item.txHash,
    network_fee:
      item.networkFee === null
        ? null
        : {
            currency: item.networkFee.currency,
            amount: formatUnits(item.networkFee.amountUnits, item.networkFee.decimals),
          },
    failure_reason: item.failureReason,
  }
}

export function createOutgoingDeliveryRecorder(
  options: OutgoingDeliveryRecorderOptions,
): OutgoingDeliveryRecorder {
  const { bus, deliveries, merchants, webhookEndpoints, clock } = options
  const logger = moduleLogger(options.logger, 'outgoing-delivery-recorder')

  async function handle(consumed: ConsumedMessage): Promise<void> {
    const message = parseOutgoingEventMessage(consumed.value)
    const kind = outgoingWebhookKindOf(message.type)
    if (kind === null) return
    const { item } = message
    // a refund or payout has no callbackUrl of its own
    const targets = await deliveryTargetsOf({
      eventId: message.eventId,
      merchantId: item.merchantId,
      kind,
      callbackUrl: null,
      merchants,
      webhookEndpoints,
    })
    const payload = { event: kind, [item.kind]: webhookOutgoingFields(message) }
    const results = await recordDeliveries(deliveries, clock, {
      eventId: message.eventId,
      // ordered per refund or payout: no payment's delivery waits for them, nor they for it
      paymentId: item.id,
      merchantId: item.merchantId,
      eventType: kind,
      sequence: message.revision,
      payload,
      targets,
    })
    const recordedIds: string[] = []
    for (const { deliveryId, endpointId, targetUrl, recorded } of results) {
      if (recorded && targetUrl !== null) recordedIds.push(deliveryId)
      if (recorded) logger.debug({ deliveryId, endpointId, id: item.id, eventType: kind }, 'webhook recorded')
    }
    if (recordedIds.length > 0) options.onRecorded?.(recordedIds)
  }

  const consumer = consumerService(bus, {
    name: 'refund and payout webhook recorder',
    logger,
    topic: Topics.outgoingEvents,
    groupId: options.groupId ?? 'notifier-outgoing',
    ...options.retry,
    handle,
  })
  return { ...consumer, handle }
}
