// Turns invoice events into webhook deliveries (docs/api.md, "Invoices"): invoice.paid,
// invoice.expired and invoice.canceled, to the same targets a payment's events go to (the invoice's
// callbackUrl, the merchant's default URL, every enabled endpoint subscribed to the kind), each
// describing the invoice right after the event. Like the payments' recorder (delivery-recorder.ts):
// the notifier folds the events into its own copy of each invoice, records the deliveries before
// saving the fold (a crash in between finds them there: their ids follow from the event id and the
// target), and a gap in a stream is poison. A delivery's paymentId is the invoice's id: an invoice's
// deliveries go out in its event order, apart from its payments'.

import {
  type InvoiceWebhookKind,
  parseInvoiceEventMessage,
  type WebhookInvoiceFields,
} from '@chainpay/contracts'
import { foldInvoiceEvent, type InvoiceEventType, type OpenInvoice } from '@chainpay/domain'
import { type Clock, type Logger, moduleLogger, type Service } from '@chainpay/platform'
import {
  type Bus,
  consumerService,
  type InvoiceReadModel,
  type MerchantStore,
  type SubscribeOptions,
  Topics,
  type WebhookDeliveryStore,
  type WebhookEndpointStore,
} from '@chainpay/ports'
import type { CheckoutLinks } from '@chainpay/service-kit'
import { deliveryTargetsOf, recordDeliveries } from './delivery-targets.js'

const kindsByEventType: Record<InvoiceEventType, InvoiceWebhookKind | null> = {
  InvoiceCreated: null,
  InvoicePaymentPicked: null,
  InvoicePaid: 'invoice.paid',
  InvoiceExpired: 'invoice.expired',
  InvoiceCanceled: 'invoice.canceled',
}

export function webhookInvoiceFields(invoice: OpenInvoice, checkoutUrl: string): WebhookInvoiceFields {
  const { created } = invoice
  return {
    id: created.invoiceId,
    status: invoice.status.toUpperCase(),
    price_amount: created.priceAmount,
    price_currency: created.priceCurrency,
    paid_payment_id: invoice.paidBy,
    payments: invoice.picks.map((pick) => ({
      payment_id: pick.paymentId,
      currency: pick.currency,
      network: pick.network,
    })),
    metadata: created.metadata,
    checkout_url: checkoutUrl,
    expires_at: created.expiresAt,
  }
}

export function createInvoiceDeliveryRecorder(options: {
  bus: Bus
  /** the notifier's own copy of invoice state */
  invoices: InvoiceReadModel
  deliveries: WebhookDeliveryStore
  merchants: Pick<MerchantStore, 'getMerchant'>
  webhookEndpoints: Pick<WebhookEndpointStore, 'list'>
  clock: Clock
  logger: Logger
  /** the invoice's page, sent as checkout_url */
  invoiceLinks: Pick<CheckoutLinks, 'urlOf'>
  groupId?: string
  onRecorded?: (deliveryIds: string[]) => void
  retry?: Pick<SubscribeOptions, 'retryDelayMs' | 'maxRetryDelayMs'>
}): Service {
  const { bus, invoices, deliveries, merchants, webhookEndpoints, clock } = options
  const logger = moduleLogger(options.logger, 'invoice-delivery-recorder')
  return consumerService(bus, {
    name: 'invoice webhook delivery recorder',
    logger,
    topic: Topics.invoiceEvents,
    groupId: options.groupId ?? 'notifier-invoices',
    ...options.retry,
    handle: async (message) => {
      const event = parseInvoiceEventMessage(message.value)
      const folded = foldInvoiceEvent(await invoices.get(event.invoiceId), event)
      if (folded === 'skip') return
      const kind = kindsByEventType[event.type]
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
          invoice: webhookInvoiceFields(state, options.invoiceLinks.urlOf(event.invoiceId)),
        }
        const results = await recordDeliveries(deliveries, clock, {
          eventId: event.eventId,
          paymentId: event.invoiceId,
          merchantId,
          eventType: kind,
          sequence: event.revision,
          payload,
          targets,
        })
        const recordedIds = results
          .filter(({ recorded, targetUrl }) => recorded && targetUrl !== null)
          .map(({ deliveryId }) => deliveryId)
        logger.debug(
          { invoiceId: event.invoiceId, kind, targets: targets.length },
          'invoice webhook recorded',
        )
        if (recordedIds.length > 0) options.onRecorded?.(recordedIds)
      }
      await invoices.save(folded)
    },
  })
}
