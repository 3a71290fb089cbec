// Schemas of the merchant API's webhook endpoint routes (docs/api.md, "Webhook endpoints"), for the
// OpenAPI document and the responses' serialization. Bodies are validated by the domain
// (validateNewWebhookEndpoint, validateWebhookEndpointPatch, validateSecretRotation).

import { webhookEndpointLimits } from '@chainpay/domain'
import Type, { type Static } from 'typebox'
import { Nullable, StringEnum, TimestampSchema } from './schema-kit.js'
import { WebhookEventKinds } from './webhooks.js'

const EventsSchema = Type.Array(StringEnum(WebhookEventKinds), {
  minItems: 1,
  description: 'the webhook kinds sent to it; every kind (those added later too) when omitted or null',
})

export const WebhookEndpointViewSchema = Type.Object(
  {
    id: Type.String({ description: 'endpoint identifier' }),
    url: Type.String(),
    events: Nullable(EventsSchema),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    managedBy: StringEnum(['merchant', 'operator'], {
      description:
        "merchant: yours, through this API; operator: the default URL your operator set, id 'merchant-default', read-only here",
    }),
    previousSecretExpiresAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  },
  {
    additionalProperties: false,
    description:
      "previousSecretExpiresAt: until when deliveries also carry the signature of the secret before the latest rotation (X-Signature-Previous); null when none. The operator's endpoint is signed with the merchant's webhook secret; its createdAt and updatedAt are the merchant record's",
  },
)

export type WebhookEndpointView = Static<typeof WebhookEndpointViewSchema>

export const CreatedWebhookEndpointViewSchema = Type.Object(
  {
    ...WebhookEndpointViewSchema.properties,
    secret: Type.String({ description: 'the signing secret, shown this once' }),
  },
  { additionalProperties: false },
)

export const RotatedWebhookSecretSchema = Type.Object(
  {
    id: Type.String(),
    secret: Type.String({ description: 'the new signing secret, shown this once' }),
    previousSecretExpiresAt: Nullable(TimestampSchema),
  },
  { additionalProperties: false },
)

export const WebhookEndpointListSchema = Type.Object(
  {
    data: Type.Array(WebhookEndpointViewSchema, {
      // the operator's endpoint is not counted toward the merchant's limit
      maxItems: webhookEndpointLimits.perMerchant + 1,
    }),
  },
  { additionalProperties: false },
)

export const WebhookEndpointIdParamsSchema = Type.Object(
  { endpointId: Type.String({ description: 'endpoint identifier' }) },
  { additionalProperties: false },
)

/** documents what POST /webhook-endpoints accepts */
export const CreateWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.String({ description: 'https URL, with the rules of callbackUrl' }),
    events: Type.Optional(Nullable(EventsSchema)),
    description: Type.Optional(
      Nullable(Type.String({ maxLength: webhookEndpointLimits.descriptionMaxLength })),
    ),
  },
  { additionalProperties: false },
)

/** documents what PATCH /webhook-endpoints/{endpointId} accepts: at least one field */
export const PatchWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.Optional(Type.String()),
    events: Type.Optional(Nullable(EventsSchema)),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(
      Nullable(Type.String({ maxLength: webhookEndpointLimits.descriptionMaxLength })),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
)

/** documents what POST /webhook-endpoints/{endpointId}/test accepts (the body may be empty) */
export const TestWebhookEventBodySchema = Type.Object(
  {
    event: Type.Optional(
      StringEnum(WebhookEventKinds, {
        default: 'payment.confirmed',
        description: 'the kind of the test event',
      }),
    ),
  },
  { additionalProperties: false },
)

/** documents what POST /webhook-endpoints/{endpointId}/rotate-secret accepts (the body may be empty) */
export const RotateWebhookSecretBodySchema = Type.Object(
  {
    expiresInHours: Type.Optional(
      Type.Integer({
        minimum: webhookEndpointLimits.rotationOverlapHours.min,
        maximum: webhookEndpointLimits.rotationOverlapHours.max,
        default: webhookEndpointLimits.rotationOverlapHours.default,
        description: 'how long deliveries are signed with the old secret too',
      }),
    ),
  },
  { additionalProperties: false },
)

const DeliveryAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({
      minimum: 1,
      description: 'its number on the current schedule (a redelivery starts at 1)',
    }),
    at: TimestampSchema,
    statusCode: Nullable(
      Type.Integer({ description: "the receiver's status code; null when it never answered" }),
    ),
    durationMs: Type.Number({ minimum: 0 }),
    error: Nullable(Type.String()),
    url: Nullable(
      Type.String({
        description:
          'the URL it was sent to; null when there was none (or on attempts recorded before it was kept)',
      }),
    ),
  },
  { additionalProperties: false },
)

export const WebhookDeliveryViewSchema = Type.Object(
  {
    id: Type.String({ description: 'delivery identifier: one per event and target' }),
    eventId: Type.String({ description: "the event's id, sent as X-Event-Id and the body's id" }),
    eventType: StringEnum(WebhookEventKinds),
    paymentId: Type.String(),
    endpointId: Nullable(
      Type.String({
        description:
          "the webhook endpoint it goes to; 'merchant-default' for the default URL set by the operator; null for the payment's callbackUrl",
      }),
    ),
    url: Nullable(
      Type.String({
        description:
          "where it goes now: the endpoint's current URL, the merchant's default URL, or the payment's callbackUrl; null when there is none (the endpoint was deleted, no default URL)",
      }),
    ),
    status: StringEnum(['pending', 'delivered', 'failed', 'no_target']),
    nextAttemptAt: Nullable(TimestampSchema),
    createdAt: TimestampSchema,
    deliveredAt: Nullable(TimestampSchema),
    lastError: Nullable(Type.String()),
    attempts: Type.Array(DeliveryAttemptSchema),
  },
  { additionalProperties: false },
)

export const WebhookDeliveryListSchema = Type.Object(
  {
    data: Type.Array(WebhookDeliveryViewSchema),
    nextCursor: Nullable(
      Type.String({ description: 'pass as cursor for the next page; null on the last page' }),
    ),
  },
  { additionalProperties: false },
)
