// The OpenAPI paths and schemas of the merchant API's invoice routes (docs/api.md, "Invoices"),
// spread into buildOpenApiDocument.

import type { TSchema } from 'typebox'
import { CreateInvoiceBodySchema, InvoiceListSchema, InvoiceViewSchema } from './invoice-schemas.js'
import { WebhookInvoiceBodySchema } from './webhooks.js'

const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
})
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema))
const json = (description: string, schema: string, headers: Record<string, unknown> = {}) => ({
  description,
  headers: { 'X-Request-Id': ref('headers', 'XRequestId'), ...headers },
  content: { 'application/json': { schema: ref('schemas', schema) } },
})
const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
})
const errors = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'Unauthorized'),
  '413': ref('responses', 'PayloadTooLarge'),
  '429': ref('responses', 'RateLimited'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
}
const invoiceNotFound = errorResponse('INVOICE_NOT_FOUND: no such invoice for this merchant')
const tags = ['invoices']

export const invoiceRouteSchemas = {
  CreateInvoiceRequest: plain(CreateInvoiceBodySchema),
  Invoice: plain(InvoiceViewSchema),
  InvoiceList: plain(InvoiceListSchema),
  WebhookInvoiceBody: plain(WebhookInvoiceBodySchema),
}

const invoiceIdParameter = {
  name: 'invoiceId',
  in: 'path',
  required: true,
  description:
    'the invoiceId (UUID); a malformed one is 400 VALIDATION_ERROR, an unknown one 404 INVOICE_NOT_FOUND',
  schema: { type: 'string', format: 'uuid' },
}

const query = (name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
})

export const invoiceRoutePaths = {
  '/invoices': {
    post: {
      tags,
      operationId: 'createInvoice',
      summary: 'Create an invoice: a price in fiat that the customer pays in the asset they pick on its page',
      description:
        'accepted defaults to every asset the installation serves. The fields shared with a payment priced in fiat ' +
        'follow its rules. idempotencyKey is required: the same key with the same body answers 200 with ' +
        'Idempotent-Replayed: true, with another body 409 IDEMPOTENCY_KEY_REUSED.',
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('schemas', 'CreateInvoiceRequest') } },
      },
      responses: {
        '201': json('The invoice, open, with no payment yet', 'Invoice', {
          Location: ref('headers', 'Location'),
        }),
        '200': json('A replay of an earlier identical request', 'Invoice', {
          'Idempotent-Replayed': ref('headers', 'IdempotentReplayed'),
        }),
        '409': errorResponse('IDEMPOTENCY_KEY_REUSED'),
        '415': ref('responses', 'UnsupportedMediaType'),
        ...errors,
      },
    },
    get: {
      tags,
      operationId: 'listInvoices',
      summary: "The caller's invoices, newest first, a page at a time",
      parameters: [
        query('limit', '1 to 100; default 20', { type: 'integer', minimum: 1, maximum: 100 }),
        query('cursor', 'nextCursor of the previous page'),
        query('status', 'one status or several, comma separated (open, paid, expired, canceled)'),
        query('createdFrom', 'ISO 8601, inclusive'),
        query('createdTo', 'ISO 8601, exclusive'),
      ],
      responses: { '200': json('A page of invoices', 'InvoiceList'), ...errors },
    },
  },
  '/invoices/{invoiceId}': {
    parameters: [invoiceIdParameter],
    get: {
      tags,
      operationId: 'getInvoice',
      summary: 'The invoice, with the payments of its picks',
      responses: { '200': json('The invoice', 'Invoice'), '404': invoiceNotFound, ...errors },
    },
  },
  '/invoices/{invoiceId}/cancel': {
    parameters: [invoiceIdParameter],
    post: {
      tags,
      operationId: 'cancelInvoice',
      summary: 'Cancel an open invoice, and its open payment',
      description:
        'Allowed while the invoice is open and no transfer to its payment was seen. Canceling a canceled invoice ' +
        'returns it unchanged. The body is empty or {}.',
      requestBody: {
        required: false,
        content: {
          'application/json': { schema: { type: 'object', additionalProperties: false, maxProperties: 0 } },
        },
      },
      responses: {
        '200': json('The canceled invoice', 'Invoice'),
        '404': invoiceNotFound,
        '409': errorResponse(
          'INVOICE_NOT_CANCELABLE: the invoice is paid or expired, or a transfer to its payment was seen',
        ),
        ...errors,
      },
    },
  },
}

/** the origin's root: the invoice's page is under /pay/, not under /api/merchant/v1 */
const ROOT_SERVER = [
  { url: '/', description: "the gateway's origin: the invoice's page is not under /api/merchant/v1" },
]
const INVOICE_TOKEN = {
  name: 'token',
  in: 'path',
  required: true,
  description:
    "the token of the invoice's checkoutUrl (44 base64url characters); any other value is the HTML 404",
  schema: { type: 'string' },
}
const LANG = {
  name: 'lang',
  in: 'query',
  required: false,
  description:
    'the language of the page: en or de; another value falls back to Accept-Language, then English',
  schema: { type: 'string' },
}
const html = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
})
/** tagged invoices, beside the merchant API's invoice routes: served where invoices are */
const pageTags = ['invoices']

/** the invoice's page (docs/api.md, "The invoice's page"), public like the customer's page */
export const invoicePageRoutePaths = {
  '/pay/invoice/{token}': {
    servers: ROOT_SERVER,
    get: {
      tags: pageTags,
      operationId: 'invoicePage',
      summary: "The invoice's page: the price in fiat, the accepted assets to pick from, the expiry",
      security: [],
      parameters: [INVOICE_TOKEN, LANG],
      responses: {
        '200': html('The page'),
        '404': html('An unknown or altered token: a page that names no invoice'),
      },
    },
  },
  '/pay/invoice/{token}/pick': {
    servers: ROOT_SERVER,
    post: {
      tags: pageTags,
      operationId: 'invoicePick',
      summary: "The customer's pick: a payment of the invoice in the asset picked, at a rate locked now",
      description:
        'The form of the page: asset=CURRENCY:NETWORK. Refused with 403 when the browser says the form came from ' +
        'another site (Origin, Sec-Fetch-Site). An earlier pick whose payment has seen no transfer is canceled.',
      security: [],
      parameters: [INVOICE_TOKEN, LANG],
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: { type: 'object', properties: { asset: { type: 'string', examples: ['USDT:TRON'] } } },
          },
        },
      },
      responses: {
        '303': {
          description: "To the payment's page, /pay/{token}",
          headers: { Location: { description: 'where the browser goes next', schema: { type: 'string' } } },
        },
        '400': html('No accepted asset picked, or the price too small for it: the page with the reason'),
        '403': {
          description: 'A form from another site',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '404': html('An unknown or altered token'),
        '409': html(
          'The invoice is closed, or a transfer to the earlier pick was seen: the page with the reason',
        ),
        '503': html('No usable rate now: the page with the reason'),
      },
    },
  },
  '/pay/assets/invoice.css': {
    servers: ROOT_SERVER,
    get: {
      tags: pageTags,
      operationId: 'invoiceStyles',
      summary: "The invoice page's style sheet",
      security: [],
      responses: {
        '200': { description: 'The style sheet', content: { 'text/css': { schema: { type: 'string' } } } },
      },
    },
  },
}
