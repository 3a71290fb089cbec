// The OpenAPI paths and schemas of the merchant API's webhook endpoint and delivery routes (docs/api.md,
// "Webhook endpoints" and "Webhook deliveries"), spread into buildOpenApiDocument.

import type { TSchema } from 'typebox'
import {
  CreatedWebhookEndpointViewSchema,
  CreateWebhookEndpointBodySchema,
  PatchWebhookEndpointBodySchema,
  RotatedWebhookSecretSchema,
  RotateWebhookSecretBodySchema,
  TestWebhookEventBodySchema,
  WebhookDeliveryListSchema,
  WebhookDeliveryViewSchema,
  WebhookEndpointListSchema,
  WebhookEndpointViewSchema,
} from './webhook-endpoint-schemas.js'

const ref = (kind: 'schemas' | 'responses' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
})
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema))

const json = (description: string, schema: string) => ({
  description,
  content: { 'application/json': { schema: ref('schemas', schema) } },
})
const body = (schema: string, required = true) => ({
  required,
  content: { 'application/json': { schema: ref('schemas', schema) } },
})
const errors = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'RateLimited'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
}
const notFound = { '404': ref('responses', 'NotFound') }
const tags = ['webhooks']

export const webhookRouteSchemas = {
  WebhookEndpoint: plain(WebhookEndpointViewSchema),
  CreatedWebhookEndpoint: plain(CreatedWebhookEndpointViewSchema),
  WebhookEndpointList: plain(WebhookEndpointListSchema),
  CreateWebhookEndpointRequest: plain(CreateWebhookEndpointBodySchema),
  PatchWebhookEndpointRequest: plain(PatchWebhookEndpointBodySchema),
  RotateWebhookSecretRequest: plain(RotateWebhookSecretBodySchema),
  TestWebhookEventRequest: plain(TestWebhookEventBodySchema),
  RotatedWebhookSecret: plain(RotatedWebhookSecretSchema),
  WebhookDelivery: plain(WebhookDeliveryViewSchema),
  WebhookDeliveryList: plain(WebhookDeliveryListSchema),
}

const endpointIdParameter = {
  name: 'endpointId',
  in: 'path',
  required: true,
  description:
    "the endpoint's id; another merchant's is 404 NOT_FOUND. merchant-default: the default URL the operator set (404 when none); PATCH, DELETE and rotate-secret on it are 400 VALIDATION_ERROR",
  schema: { type: 'string' },
}

export const webhookRoutePaths = {
  '/webhook-endpoints': {
    post: {
      tags,
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint',
      description:
        'The url follows the rules of callbackUrl; events defaults to every kind. The secret is shown in this answer only. ' +
        'At most 16 endpoints per merchant: the 17th is 400 VALIDATION_ERROR. The default URL the operator set is not counted.',
      requestBody: body('CreateWebhookEndpointRequest'),
      responses: { '201': json('Created, with its secret', 'CreatedWebhookEndpoint'), ...errors },
    },
    get: {
      tags,
      operationId: 'listWebhookEndpoints',
      summary: "The merchant's webhook endpoints, oldest first",
      description:
        "First, when the operator set one, the merchant's default URL: id merchant-default, managedBy operator, every kind, read-only here.",
      responses: { '200': json('The endpoints, without secrets', 'WebhookEndpointList'), ...errors },
    },
  },
  '/webhook-endpoints/{endpointId}': {
    parameters: [endpointIdParameter],
    get: {
      tags,
      operationId: 'getWebhookEndpoint',
      summary: 'Read a webhook endpoint',
      responses: {
        '200': json('The endpoint, without its secret', 'WebhookEndpoint'),
        ...notFound,
        ...errors,
      },
    },
    patch: {
      tags,
      operationId: 'updateWebhookEndpoint',
      summary: 'Change url, events, enabled or description',
      description:
        'A disabled endpoint gets no new deliveries; those already recorded wait, retrying, until it is enabled.',
      requestBody: body('PatchWebhookEndpointRequest'),
      responses: { '200': json('The endpoint as changed', 'WebhookEndpoint'), ...notFound, ...errors },
    },
    delete: {
      tags,
      operationId: 'deleteWebhookEndpoint',
      summary: 'Delete a webhook endpoint',
      responses: { '204': { description: 'Deleted' }, ...notFound, ...errors },
    },
  },
  '/webhook-endpoints/{endpointId}/rotate-secret': {
    parameters: [endpointIdParameter],
    post: {
      tags,
      operationId: 'rotateWebhookEndpointSecret',
      summary: "Replace an endpoint's secret, the old one still signing for an overlap",
      description:
        'For expiresInHours (default 24, 0 to 168) every delivery carries X-Signature made with the new secret and ' +
        'X-Signature-Previous made with the old one, over the same timestamp and body. The body may be empty. ' +
        'Two rotations at once are applied one after the other: both answer 200, and both secrets sign during the overlap.',
      requestBody: body('RotateWebhookSecretRequest', false),
      responses: {
        '200': json('The new secret, shown this once', 'RotatedWebhookSecret'),
        ...notFound,
        ...errors,
      },
    },
  },
  '/webhook-endpoints/{endpointId}/test': {
    parameters: [endpointIdParameter],
    post: {
      tags,
      operationId: 'sendWebhookTestEvent',
      summary: 'Send the endpoint a test event, to try a webhook receiver',
      description:
        'One delivery of the kind asked for (payment.confirmed by default) about a made-up payment, with "test": true in the body, ' +
        "signed with the endpoint's secret like any webhook and sent at once; answered with the delivery, pending, which " +
        'GET /webhook-deliveries lists with its attempts and retries. merchant-default tests the default URL the operator set.',
      requestBody: body('TestWebhookEventRequest', false),
      responses: {
        '202': json('Accepted: the test delivery, pending', 'WebhookDelivery'),
        ...notFound,
        ...errors,
      },
    },
  },
  '/webhook-deliveries': {
    get: {
      tags,
      operationId: 'listWebhookDeliveries',
      summary: "The merchant's webhook deliveries, newest first, with their attempts",
      parameters: [
        { name: 'paymentId', in: 'query', required: false, schema: { type: 'string' } },
        {
          name: 'status',
          in: 'query',
          required: false,
          schema: { type: 'string', enum: ['pending', 'delivered', 'failed', 'no_target'] },
        },
        {
          name: 'limit',
          in: 'query',
          required: false,
          schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        },
        {
          name: 'cursor',
          in: 'query',
          required: false,
          description: "the previous page's nextCursor; pages do not shift while new deliveries are recorded",
          schema: { type: 'string' },
        },
      ],
      responses: { '200': json('A page of deliveries', 'WebhookDeliveryList'), ...errors },
    },
  },
  '/webhook-deliveries/{deliveryId}/redeliver': {
    parameters: [{ name: 'deliveryId', in: 'path', required: true, schema: { type: 'string' } }],
    post: {
      tags,
      operationId: 'redeliverWebhook',
      summary: "Send a delivery's event again, to its target's current URL, on a fresh retry schedule",
      description:
        "The same event (same X-Event-Id and body id). Another merchant's delivery is 404 NOT_FOUND, and so is " +
        'a delivery whose webhook endpoint was deleted, or whose default URL the operator removed (nothing is put back in line then). ' +
        'A pending delivery is redelivered at most once a minute after its last attempt, and not while it waits for its first: ' +
        'otherwise 429 RATE_LIMITED with Retry-After. A delivery keeps its latest 25 attempts.',
      responses: {
        '202': json('Accepted: the delivery is pending again', 'WebhookDelivery'),
        ...notFound,
        ...errors,
      },
    },
  },
}
