// The merchant API's delivery log (docs/api.md, "Webhook deliveries"): a merchant's own deliveries,
// newest first, page by page with a keyset cursor that stays stable while new deliveries are
// recorded, each with its attempts (and the URL each went to) and the URL its target has now; and
// redelivery of one, which sends the same event (same id) to the target's current URL on a fresh
// retry schedule. Another merchant's delivery is not found, nor is a deleted endpoint to redeliver to.

import { randomUUID } from 'node:crypto'
import {
  isDepositWebhookKind,
  isInvoiceWebhookKind,
  WebhookDeliveryListSchema,
  WebhookDeliveryViewSchema,
  type WebhookEventKind,
  WebhookEventKinds,
} from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import { isoNow } from '@chainpay/platform'
import { MERCHANT_DEFAULT_TARGET, type WebhookDelivery } from '@chainpay/ports'
import {
  RedeliveryTooSoon,
  readDeliveriesQuery,
  type WebhookDeliveryActionsDeps,
  webhookDeliveryActions,
  webhookDeliveryView,
} from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { merchantIdOf } from './merchant-id-of.js'
import {
  sampleOutgoingWebhookFields,
  sampleWebhookDeposit,
  sampleWebhookInvoice,
  sampleWebhookPayment,
} from './sample-webhook-payment.js'

// the use cases are service-kit's (webhook-delivery-actions.ts), shared with the dashboard's pages
export type WebhookDeliveryRoutesDeps = WebhookDeliveryActionsDeps

export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox<WebhookDeliveryRoutesDeps> = async (
  app,
  deps,
) => {
  const { deliveries, clock } = deps
  const actions = webhookDeliveryActions(deps)
  const { currentTargets } = actions

  app.get(
    '/webhook-deliveries',
    { schema: { response: { 200: WebhookDeliveryListSchema } } },
    async (request) =>
      actions.list(merchantIdOf(request), readDeliveriesQuery(request.query as Record<string, unknown>)),
  )

  // A test event (docs/api.md, "Trying a webhook receiver"): one delivery of the kind asked for, with
  // a made-up payment and `"test": true`, to the endpoint's URL, signed with its secret like any
  // webhook and sent at once; listed with the other deliveries, with its attempts and retries.
  app.post(
    '/webhook-endpoints/:endpointId/test',
    { schema: { response: { 202: WebhookDeliveryViewSchema } } },
    async (request, reply) => {
      const merchantId = merchantIdOf(request)
      const { endpointId } = request.params as { endpointId: string }
      const kind = readTestEventKind(request.rawBody === '' ? {} : request.body)
      const targets = await currentTargets(merchantId)
      const url =
        endpointId === MERCHANT_DEFAULT_TARGET ? targets.defaultUrl : targets.endpointUrls.get(endpointId)
      if (url === null || url === undefined) {
        throw new DomainError('NOT_FOUND', `webhook endpoint ${endpointId} not found`)
      }
      const now = isoNow(clock)
      const eventId = randomUUID()
      const paymentId = randomUUID()
      const delivery: WebhookDelivery = {
        deliveryId: eventId,
        eventId,
        endpointId,
        // a payment of its own, so that no delivery of a real payment waits for it
        paymentId,
        merchantId,
        eventType: kind,
        sequence: 0,
        payload: isInvoiceWebhookKind(kind)
          ? { event: kind, test: true, invoice: sampleWebhookInvoice(kind, paymentId) }
          : isDepositWebhookKind(kind)
            ? { event: kind, test: true, deposit: sampleWebhookDeposit(kind, paymentId) }
            : kind.startsWith('payment.')
              ? { event: kind, test: true, payment: sampleWebhookPayment(kind, paymentId) }
              : {
                  event: kind,
                  test: true,
                  [kind.slice(0, kind.indexOf('.'))]: sampleOutgoingWebhookFields(kind, paymentId),
                },
        targetUrl: url,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        deliveredAt: null,
        lastError: null,
      }
      await deliveries.enqueue(delivery)
      deps.wakeDeliveries?.([eventId])
      return reply.code(202).send(webhookDeliveryView(delivery, [], targets))
    },
  )

  app.post(
    '/webhook-deliveries/:deliveryId/redeliver',
    { schema: { response: { 202: WebhookDeliveryViewSchema } } },
    async (request, reply) => {
      const merchantId = merchantIdOf(request)
      const { deliveryId } = request.params as { deliveryId: string }
      if (request.rawBody !== '' && !isEmptyObject(request.body)) {
        throw new DomainError('VALIDATION_ERROR', 'body: must be empty or {}')
      }
      try {
        return reply.code(202).send(await actions.redeliver(merchantId, deliveryId))
      } catch (error) {
        if (error instanceof RedeliveryTooSoon) reply.header('retry-after', String(error.retryAfterSeconds))
        throw error
      }
    },
  )
}

/** the body of a test event: {} or {"event": kind}, payment.confirmed when absent */
function readTestEventKind(body: unknown): WebhookEventKind {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('body: must be a JSON object')
  }
  for (const field of Object.keys(body)) {
    if (field !== 'event') throw invalid(`body: unknown field '${field}'`)
  }
  const { event = 'payment.confirmed' } = body as { event?: unknown }
  if (typeof event !== 'string' || !(WebhookEventKinds as readonly string[]).includes(event)) {
    throw invalid(`event: must be one of ${WebhookEventKinds.join(', ')}`)
  }
  return event as WebhookEventKind
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  )
}

function invalid(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message)
}
