// The merchant API's webhook endpoints (docs/api.md, "Webhook endpoints"): a merchant's own webhook
// URLs, each with the kinds it wants and a signing secret of its own, shown once and sealed at rest.
// A rotation keeps the old secret signing alongside the new one for an overlap, so that receivers
// can switch without losing a delivery. The bodies are the domain's to validate.
// The merchant's default webhook URL, set by the operator, is shown as the endpoint
// `merchant-default` (managedBy "operator"): read-only here, outside the 16-endpoint limit
// (docs/api.md, "Webhook endpoints").

import {
  CreatedWebhookEndpointViewSchema,
  RotatedWebhookSecretSchema,
  WebhookEndpointIdParamsSchema,
  WebhookEndpointListSchema,
  WebhookEndpointViewSchema,
} from '@chainpay/contracts'
import { type WebhookEndpointActionsDeps, webhookEndpointActions } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { merchantIdOf } from './merchant-id-of.js'

// the use cases are service-kit's (webhook-endpoint-actions.ts), shared with the dashboard's pages
export type WebhookEndpointRoutesDeps = WebhookEndpointActionsDeps

export const webhookEndpointRoutes: FastifyPluginAsyncTypebox<WebhookEndpointRoutesDeps> = async (
  app,
  deps,
) => {
  const endpoints = webhookEndpointActions(deps)
  const idParams = { params: WebhookEndpointIdParamsSchema }

  app.post(
    '/webhook-endpoints',
    { schema: { response: { 201: CreatedWebhookEndpointViewSchema } } },
    async (request, reply) =>
      reply.code(201).send(await endpoints.create(merchantIdOf(request), request.body)),
  )

  app.get(
    '/webhook-endpoints',
    { schema: { response: { 200: WebhookEndpointListSchema } } },
    async (request) => ({ data: await endpoints.list(merchantIdOf(request)) }),
  )

  app.get(
    '/webhook-endpoints/:endpointId',
    { schema: { ...idParams, response: { 200: WebhookEndpointViewSchema } } },
    async (request) => endpoints.get(merchantIdOf(request), request.params.endpointId),
  )

  app.patch(
    '/webhook-endpoints/:endpointId',
    { schema: { ...idParams, response: { 200: WebhookEndpointViewSchema } } },
    async (request) => endpoints.update(merchantIdOf(request), request.params.endpointId, request.body),
  )

  app.delete('/webhook-endpoints/:endpointId', { schema: idParams }, async (request, reply) => {
    await endpoints.remove(merchantIdOf(request), request.params.endpointId)
    return reply.code(204).send()
  })

  app.post(
    '/webhook-endpoints/:endpointId/rotate-secret',
    { schema: { ...idParams, response: { 200: RotatedWebhookSecretSchema } } },
    async (request) =>
      endpoints.rotateSecret(
        merchantIdOf(request),
        request.params.endpointId,
        request.rawBody === '' ? undefined : request.body,
      ),
  )
}
