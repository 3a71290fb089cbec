// The OpenAPI paths of the customer's page (docs/api.md, "The customer's page"), spread into
// buildOpenApiDocument under the tag `checkout`: public, without the merchant's signature, and served
// at the origin's root (/pay/...), not under /api/merchant/v1, which each path item's own `servers`
// says. They are here so that clients and the fuzzer (scripts/fuzz-api) know them too.

const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` })

/** the origin's root, relative to where the document is served: /pay/ is not under the API's path */
const ROOT_SERVER = [
  { url: '/', description: "the gateway's origin: the customer's page is not under /api/merchant/v1" },
]

const TOKEN = {
  name: 'token',
  in: 'path',
  required: true,
  description:
    "the checkout token of the payment's checkoutUrl (44 base64url characters); any other value is the HTML 404",
  schema: { type: 'string' },
}
const LANG = {
  name: 'lang',
  in: 'query',
  required: false,
  description:
    'the language of the page: en or de; another value falls back to Accept-Language, then English. Given more than once, the first counts.',
  schema: { type: 'string' },
}

const html = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
})
const notFound = html('An unknown or altered token: a page that names no payment')
const rateLimited = {
  description: 'RATE_LIMITED: too many requests from this address',
  headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
}
const seeOther = (description: string) => ({
  description,
  headers: { Location: { description: 'where the browser goes next', schema: { type: 'string' } } },
})
const asset = (summary: string, operationId: string, type: string) => ({
  servers: ROOT_SERVER,
  get: {
    tags: ['checkout'],
    operationId,
    summary,
    security: [],
    responses: {
      '200': { description: summary, content: { [type]: { schema: { type: 'string' } } } },
      '429': rateLimited,
    },
  },
})

export const checkoutRoutePaths = {
  '/pay/{token}': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    get: {
      tags: ['checkout'],
      operationId: 'checkoutPage',
      summary: "The customer's page of a payment",
      description:
        'HTML, complete without JavaScript, under a strict Content-Security-Policy, Cache-Control: no-store and Referrer-Policy: no-referrer.',
      security: [],
      parameters: [LANG],
      responses: { '200': html("The customer's page"), '404': notFound, '429': rateLimited },
    },
  },
  '/pay/{token}/status': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    get: {
      tags: ['checkout'],
      operationId: 'checkoutStatus',
      summary: "The payment's status and revision, which the page's script polls",
      security: [],
      parameters: [LANG],
      responses: {
        '200': {
          description: 'The status; the page reloads what it shows when the revision changes',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['revision', 'status'],
                properties: {
                  revision: { type: 'integer', minimum: 0 },
                  status: {
                    type: 'string',
                    enum: ['pending', 'confirmed', 'underpaid', 'overpaid', 'expired', 'canceled', 'failed'],
                  },
                },
              },
            },
          },
        },
        '404': notFound,
        '429': rateLimited,
      },
    },
  },
  '/pay/{token}/logo': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    get: {
      tags: ['checkout'],
      operationId: 'checkoutLogo',
      summary: "The merchant's logo, fetched by the gateway and served from its own origin",
      security: [],
      parameters: [LANG],
      responses: {
        '200': {
          description: 'A PNG, JPEG, GIF or WebP image',
          content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
        },
        '404': html('No logo, or an unknown token'),
        '429': rateLimited,
      },
    },
  },
  '/pay/{token}/cancel': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    get: {
      tags: ['checkout'],
      operationId: 'checkoutCancelConfirmation',
      summary: "The confirmation step of the customer's cancel: cancels nothing by itself",
      security: [],
      parameters: [LANG],
      responses: {
        '200': html('Asks the customer to confirm, with the form that cancels'),
        '303': seeOther('Nothing to cancel any more: back to the page'),
        '404': notFound,
        '429': rateLimited,
      },
    },
    post: {
      tags: ['checkout'],
      operationId: 'checkoutCancel',
      summary: 'Cancel the payment for the customer (the form of the confirmation step)',
      description:
        'Refused with 403 when the browser says the form came from another site (Origin, Sec-Fetch-Site). The body is not read.',
      security: [],
      parameters: [LANG],
      requestBody: {
        required: false,
        content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', maxProperties: 0 } } },
      },
      responses: {
        '303': seeOther('To cancelRedirectUrl once canceled, else back to the page'),
        '403': {
          description: 'A form from another site',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '404': notFound,
        '413': {
          description: 'A body over 1 KiB',
          content: { 'application/json': { schema: ref('schemas', 'Error') } },
        },
        '415': {
          description: 'A body that is not a form',
          content: { 'application/json': { schema: ref('schemas', 'Error') } },
        },
        '429': rateLimited,
      },
    },
  },
  '/pay/assets/checkout.css': asset("The page's style sheet", 'checkoutStyles', 'text/css'),
  '/pay/assets/checkout.js': asset("The page's script", 'checkoutScript', 'text/javascript'),
  '/pay/assets/icon.svg': asset("chainpay's icon", 'checkoutIcon', 'image/svg+xml'),
  '/favicon.ico': asset("chainpay's icon, where browsers ask for it", 'favicon', 'image/x-icon'),
}
