// The OpenAPI 3.1 document of the merchant API, generated from the schemas in this package so that
// the document and the validation the gateway runs cannot drift apart.

import type { TSchema } from 'typebox'
import {
  CreatedPaymentViewSchema,
  CreatePaymentBodySchema,
  PaymentHistorySchema,
  PaymentListQuerySchema,
  PaymentListSchema,
  PaymentViewSchema,
} from './api-schemas.js'
import { ErrorBodySchema } from './errors.js'
import { checkoutRoutePaths } from './openapi-checkout-routes.js'
import { depositRoutePaths, depositRouteSchemas } from './openapi-deposit-routes.js'
import { invoicePageRoutePaths, invoiceRoutePaths, invoiceRouteSchemas } from './openapi-invoice-routes.js'
import { outgoingRoutePaths, outgoingRouteSchemas } from './openapi-outgoing-routes.js'
import { refundClaimRoutePaths } from './openapi-refund-claim-routes.js'
import { webhookRoutePaths, webhookRouteSchemas } from './openapi-webhook-routes.js'
import {
  isInvoiceWebhookKind,
  OutgoingWebhookBodySchema,
  WebhookBodySchema,
  type WebhookEventKind,
  WebhookEventKinds,
} from './webhooks.js'

export const API_BASE_PATH = '/api/merchant/v1'

/** the body schema of a webhook kind: a payment's, an invoice's, or a refund's or payout's */
function webhookBodySchemaNameOf(kind: WebhookEventKind): string {
  if (isInvoiceWebhookKind(kind)) return 'WebhookInvoiceBody'
  return kind.startsWith('payment.') ? 'WebhookBody' : 'OutgoingWebhookBody'
}

const ref = (kind: 'schemas' | 'headers' | 'parameters' | 'responses', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
})

/** a plain JSON copy of a typebox schema (typebox keeps its own bookkeeping in non-enumerable keys) */
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema))

const SIGNING_RULE = [
  'Every request carries X-Service-Key, X-Service-Timestamp and X-Service-Signature.',
  'X-Service-Timestamp is Unix time in milliseconds and must be within 5 minutes of the server clock.',
  'X-Service-Signature is the lower-case hex HMAC-SHA256, keyed with the API secret (UTF-8), of',
  '`{timestamp}.{METHOD}.{path}.{body}`: METHOD in upper case, path the request target exactly as',
  'sent (starting with /api/merchant/v1, with the query string if any), body the raw body text or the',
  'empty string when there is none. Failures are 401 with MISSING_AUTH_HEADERS, INVALID_TIMESTAMP,',
  'INVALID_API_KEY or INVALID_SIGNATURE.',
].join(' ')

const WEBHOOK_RULE = [
  "Webhooks are POSTed to the payment's callbackUrl and the merchant's default webhook URL (signed with",
  "the merchant's webhook secret), and to each enabled webhook endpoint subscribed to the kind (signed with its own).",
  'X-Signature is the lower-case hex HMAC-SHA256, keyed with that secret, of',
  '`{X-Timestamp}.{raw body}`; during an endpoint secret rotation X-Signature-Previous is the same made with the old secret. Reject timestamps older than 5 minutes and bodies whose `id` differs from',
  'X-Event-Id (the signature covers the body, not the headers), deduplicate by X-Event-Id,',
  'and answer any 2xx within 10 s; anything else is retried with backoff for about two days.',
].join(' ')

function errorResponse(description: string, options: { retryAfter?: boolean } = {}) {
  return {
    description,
    headers: {
      'X-Request-Id': ref('headers', 'XRequestId'),
      ...(options.retryAfter ? { 'Retry-After': ref('headers', 'RetryAfter') } : {}),
    },
    content: { 'application/json': { schema: ref('schemas', 'Error') } },
  }
}

function paymentResponse(
  description: string,
  schemaName: 'Payment' | 'CreatedPayment' | 'PaymentList' | 'PaymentHistory',
  headers = {},
  links?: Record<string, unknown>,
) {
  return {
    description,
    headers: { 'X-Request-Id': ref('headers', 'XRequestId'), ...headers },
    content: { 'application/json': { schema: ref('schemas', schemaName) } },
    ...(links === undefined ? {} : { links }),
  }
}

// what a client (and a fuzzer's stateful phase) can do next with the payment a create answered
const CREATED_PAYMENT_LINKS = {
  GetPayment: {
    operationId: 'getPayment',
    parameters: { paymentId: '$response.body#/paymentId' },
    description: 'Read the payment just created',
  },
  CancelPayment: {
    operationId: 'cancelPayment',
    parameters: { paymentId: '$response.body#/paymentId' },
    description: 'Cancel the payment just created',
  },
}

const commonErrors = {
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'RateLimited'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
}

const WEBHOOK_SUMMARIES: Record<WebhookEventKind, string> = {
  'payment.pending': 'The payment was created and awaits funds',
  'payment.confirmed': 'The payment received exactly the expected amount, with the required confirmations',
  'payment.underpaid': 'The confirmed total is below the expected amount',
  'payment.overpaid': 'The confirmed total is above the expected amount',
  'payment.expired': 'The payment passed expiresAt with nothing received',
  'payment.canceled': 'The merchant canceled the payment',
  'payment.failed': 'The chain dropped or reverted the counted transfers for good, and expiresAt has passed',
  'payment.late_funds': 'Funds arrived after the payment expired or was canceled; the status does not change',
  'payment.transfer_detected':
    'A transfer that counts toward the payment was first seen, before its confirmations; the status does not change',
  'payment.underpaid_final':
    'The underpaid payment reached expiresAt: no further transfer counts, the shortfall is final',
  'payment.foreign_funds':
    "Funds of another asset (or TRX a contract sent) reached the payment's address; the status does not change",
  'invoice.paid': 'A payment of the invoice was confirmed (or overpaid): the invoice is paid',
  'invoice.expired': 'The invoice reached expiresAt unpaid, its last payment closed',
  'invoice.canceled': 'The merchant canceled the invoice (and its open payment)',
  'refund.created': 'A refund was created (awaiting its address, or ready)',
  'refund.ready': 'The customer gave the address on the claim page: the refund is ready',
  'refund.sending': 'The refund is in a signed plan: it can no longer be canceled',
  'refund.released': 'The plan will never be broadcast: the refund is ready again',
  'refund.sent': 'The refund was broadcast; tx_hash names the transaction',
  'refund.completed': 'The refund is final on chain; network_fee is what the treasury paid',
  'refund.failed': 'The refund failed on chain; its amount is refundable again',
  'refund.canceled': 'The refund was canceled',
  'payout.created': 'A payout was created: ready',
  'payout.sending': 'The payout is in a signed plan: it can no longer be canceled',
  'payout.released': 'The plan will never be broadcast: the payout is ready again',
  'payout.sent': 'The payout was broadcast; tx_hash names the transaction',
  'payout.completed': 'The payout is final on chain; network_fee is what the treasury paid',
  'payout.failed': 'The payout failed on chain; its amount is available again',
  'payout.canceled': 'The payout was canceled',
  'deposit.detected':
    "A transfer reached a customer's deposit address with no open payment to count it: a deposit, before its confirmations",
  'deposit.confirmed': 'The deposit is final on chain (the confirmations its network requires)',
}

function webhookOperation(kind: WebhookEventKind) {
  const header = (
    name: string,
    description: string,
    schema: Record<string, unknown> = { type: 'string' },
  ) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema,
  })
  return {
    post: {
      summary: WEBHOOK_SUMMARIES[kind],
      description: WEBHOOK_RULE,
      operationId: `webhook_${kind.replace('.', '_')}`,
      // webhooks are signed with X-Signature, not with the API's X-Service-* headers
      security: [],
      parameters: [
        header('X-Signature', 'lower-case hex HMAC-SHA256(webhook secret, `{X-Timestamp}.{raw body}`)', {
          type: 'string',
          pattern: '^[0-9a-f]{64}$',
        }),
        header('X-Timestamp', "Unix seconds of this attempt; equal to the body's timestamp", {
          type: 'string',
          pattern: '^[0-9]+$',
        }),
        {
          ...header(
            'X-Signature-Previous',
            "during an endpoint's secret rotation overlap only: the same HMAC made with the previous secret",
            { type: 'string', pattern: '^[0-9a-f]{64}$' },
          ),
          required: false,
        },
        header('X-Event-Id', "stable across retries of one event: deduplicate by it; equal to the body's id"),
        header('X-Event-Type', "the event kind, equal to the body's event", { type: 'string', const: kind }),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              allOf: [
                ref('schemas', webhookBodySchemaNameOf(kind)),
                { type: 'object', properties: { event: { const: kind } } },
              ],
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Delivered. Any 2xx within 10 seconds acknowledges the event.' },
        default: { description: 'Not delivered: the event is retried with exponential backoff.' },
      },
    },
  }
}

/** GET /payments' query parameters, from the schema the gateway validates the query with */
function listQueryParameters() {
  return Object.entries(PaymentListQuerySchema.properties).map(([name, schema]) => {
    const { description, ...rest } = plain(schema)
    return { name, in: 'query', required: false, description, schema: rest }
  })
}

/** The merchant API's OpenAPI 3.1.0 document; paths are relative to a server URL ending in /api/merchant/v1. */
export function buildOpenApiDocument(options: { serverUrl?: string } = {}): Record<string, unknown> {
  const serverUrl = options.serverUrl ?? API_BASE_PATH
  return {
    openapi: '3.1.0',
    info: {
      title: 'chainpay merchant API',
      version: '1.0.0',
      description:
        'Create crypto payment requests on TRON and Solana, read and cancel them, and receive signed webhooks. ' +
        'Amounts are decimal strings; timestamps are ISO 8601 UTC with milliseconds.',
    },
    servers: [{ url: serverUrl, description: 'the gateway; its path ends in /api/merchant/v1' }],
    security: [{ ServiceKey: [], ServiceTimestamp: [], ServiceSignature: [] }],
    tags: [
      { name: 'payments' },
      { name: 'webhooks' },
      { name: 'refunds and payouts' },
      { name: 'deposit addresses' },
      {
        name: 'checkout',
        description:
          "Public: the customer's page (no credentials; the checkout token in the path is the access). Served at the origin's root, /pay/..., not under /api/merchant/v1.",
      },
      {
        name: 'refund-claim',
        description:
          "Public: the customer's refund claim page (no credentials; the claim token in the path is the access). Served at the origin's root, /refund/..., not under /api/merchant/v1.",
      },
    ],
    paths: {
      '/payments': {
        get: {
          tags: ['payments'],
          operationId: 'listPayments',
          summary: 'List your payments, newest first',
          description:
            'A page at a time: pass nextCursor as cursor for the next page (null on the last). Ordered by ' +
            'createdAt, then paymentId, both descending: a payment created while you page appears at most ' +
            'once and none is skipped. A bad parameter is 400 VALIDATION_ERROR naming it.',
          parameters: [...listQueryParameters(), ref('parameters', 'RequestId')],
          responses: {
            '200': paymentResponse('A page of payments', 'PaymentList'),
            '400': ref('responses', 'BadRequest'),
            '413': ref('responses', 'PayloadTooLarge'),
            ...commonErrors,
          },
        },
        post: {
          tags: ['payments'],
          operationId: 'createPayment',
          summary: 'Create a payment request',
          description:
            'Required: amount, currency, network; or, priced in fiat, priceAmount and priceCurrency instead of ' +
            'amount: the amount is then priceAmount / rate rounded up to the asset decimals, at a rate locked ' +
            'until expiresAt (docs/api.md, "Prices in fiat"). With an idempotencyKey, repeating the same request ' +
            'returns the original payment (200, Idempotent-Replayed: true); the same key with a different request is 409.',
          parameters: [ref('parameters', 'RequestId')],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('schemas', 'CreatePaymentRequest') } },
          },
          responses: {
            '201': paymentResponse(
              'Created',
              'CreatedPayment',
              { Location: ref('headers', 'Location') },
              CREATED_PAYMENT_LINKS,
            ),
            '200': paymentResponse(
              'A replay of an earlier request with the same idempotencyKey',
              'CreatedPayment',
              {
                'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
              },
              CREATED_PAYMENT_LINKS,
            ),
            '400': ref('responses', 'BadRequest'),
            '409': errorResponse('IDEMPOTENCY_KEY_REUSED: the key was used with a different request'),
            '413': ref('responses', 'PayloadTooLarge'),
            '415': ref('responses', 'UnsupportedMediaType'),
            ...commonErrors,
            '503': errorResponse(
              'SERVICE_UNAVAILABLE: a dependency is down; RATE_UNAVAILABLE: a price in fiat and no usable rate now (the sources are down, stale or disagree); nothing was created',
              { retryAfter: true },
            ),
          },
        },
      },
      '/payments/{paymentId}': {
        parameters: [ref('parameters', 'PaymentId')],
        get: {
          tags: ['payments'],
          operationId: 'getPayment',
          summary: 'Read a payment',
          parameters: [ref('parameters', 'RequestId')],
          responses: {
            '200': paymentResponse('The payment', 'Payment'),
            '400': ref('responses', 'BadRequest'),
            '404': ref('responses', 'PaymentNotFound'),
            '413': ref('responses', 'PayloadTooLarge'),
            ...commonErrors,
          },
        },
      },
      '/payments/{paymentId}/events': {
        parameters: [ref('parameters', 'PaymentId')],
        get: {
          tags: ['payments'],
          operationId: 'getPaymentEvents',
          summary: 'Read the whole history of a payment, oldest first',
          description:
            'Every event of the payment as the event store recorded it. Types: payment.created, ' +
            'transfer.detected, transfer.confirmations_updated, transfer.withdrawn, payment.confirmed, ' +
            'payment.underpaid, payment.overpaid, payment.expired, payment.canceled, payment.failed, ' +
            'late_funds.received.',
          parameters: [
            {
              name: 'confirmations',
              in: 'query',
              required: false,
              description:
                'all (default): every transfer.confirmations_updated record; last: only the last one of each transfer, where its count ended',
              schema: { type: 'string', enum: ['all', 'last'], default: 'all' },
            },
            ref('parameters', 'RequestId'),
          ],
          responses: {
            '200': paymentResponse('The history', 'PaymentHistory'),
            '400': ref('responses', 'BadRequest'),
            '404': ref('responses', 'PaymentNotFound'),
            '413': ref('responses', 'PayloadTooLarge'),
            ...commonErrors,
          },
        },
      },
      '/payments/{paymentId}/cancel': {
        parameters: [ref('parameters', 'PaymentId')],
        post: {
          tags: ['payments'],
          operationId: 'cancelPayment',
          summary: 'Cancel a pending payment',
          description:
            'Allowed while the payment is pending with no transfer seen. Canceling a canceled payment returns it ' +
            'unchanged. The body is empty or {}.',
          parameters: [ref('parameters', 'RequestId')],
          requestBody: {
            required: false,
            content: {
              'application/json': {
                schema: { type: 'object', additionalProperties: false, maxProperties: 0 },
              },
            },
          },
          responses: {
            '200': paymentResponse('The canceled payment', 'Payment'),
            '400': ref('responses', 'BadRequest'),
            '404': ref('responses', 'PaymentNotFound'),
            '409': errorResponse(
              'PAYMENT_NOT_CANCELABLE: the payment is no longer pending, or funds were seen',
            ),
            '413': ref('responses', 'PayloadTooLarge'),
            '415': ref('responses', 'UnsupportedMediaType'),
            ...commonErrors,
          },
        },
      },
      ...webhookRoutePaths,
      ...invoiceRoutePaths,
      ...outgoingRoutePaths,
      ...depositRoutePaths,
      ...checkoutRoutePaths,
      ...invoicePageRoutePaths,
      ...refundClaimRoutePaths,
    },
    webhooks: Object.fromEntries(WebhookEventKinds.map((kind) => [kind, webhookOperation(kind)])),
    components: {
      schemas: {
        CreatePaymentRequest: plain(CreatePaymentBodySchema),
        Payment: plain(PaymentViewSchema),
        CreatedPayment: plain(CreatedPaymentViewSchema),
        PaymentList: plain(PaymentListSchema),
        PaymentHistory: plain(PaymentHistorySchema),
        Error: plain(ErrorBodySchema),
        WebhookBody: plain(WebhookBodySchema),
        OutgoingWebhookBody: plain(OutgoingWebhookBodySchema),
        ...webhookRouteSchemas,
        ...invoiceRouteSchemas,
        ...outgoingRouteSchemas,
        ...depositRouteSchemas,
      },
      parameters: {
        PaymentId: {
          name: 'paymentId',
          in: 'path',
          required: true,
          description:
            'the paymentId (UUID, 8-4-4-4-12 hex digits, any version); a malformed one is 400 VALIDATION_ERROR, a well-formed unknown one (the Nil UUID too) 404 PAYMENT_NOT_FOUND',
          schema: { type: 'string', format: 'uuid' },
        },
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'echoed in the response; generated when absent',
          schema: { type: 'string', maxLength: 128 },
        },
      },
      headers: {
        XRequestId: {
          description: "the request id, the caller's or a generated one",
          schema: { type: 'string' },
        },
        Location: { description: 'path of the created payment', schema: { type: 'string' } },
        IdempotentReplayed: {
          description: 'true when the response replays an earlier request with the same idempotencyKey',
          schema: { type: 'string', const: 'true' },
        },
        RetryAfter: {
          description: 'seconds to wait before retrying',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      responses: {
        BadRequest: errorResponse(
          'VALIDATION_ERROR (also malformed JSON, a body that is not UTF-8, a repeated key, a number that would change) or UNSUPPORTED_ASSET',
        ),
        Unauthorized: errorResponse(
          'MISSING_AUTH_HEADERS, INVALID_TIMESTAMP, INVALID_API_KEY or INVALID_SIGNATURE',
        ),
        PayloadTooLarge: errorResponse('PAYLOAD_TOO_LARGE: the body exceeds 64 KiB'),
        UnsupportedMediaType: errorResponse(
          'UNSUPPORTED_MEDIA_TYPE: a body that is not application/json, or with a charset other than utf-8',
        ),
        PaymentNotFound: errorResponse('PAYMENT_NOT_FOUND: no such payment for this merchant'),
        NotFound: errorResponse('NOT_FOUND: no such webhook endpoint or delivery for this merchant'),
        RateLimited: errorResponse('RATE_LIMITED: too many requests for this API key', { retryAfter: true }),
        InternalError: errorResponse('INTERNAL_ERROR'),
        ServiceUnavailable: errorResponse('SERVICE_UNAVAILABLE: a dependency is down', { retryAfter: true }),
      },
      securitySchemes: {
        ServiceKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Key',
          description: `The merchant's API key. ${SIGNING_RULE}`,
        },
        ServiceTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Timestamp',
          description: 'Unix time in milliseconds, within 5 minutes of the server clock.',
        },
        ServiceSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Signature',
          description: SIGNING_RULE,
        },
      },
    },
  }
}
