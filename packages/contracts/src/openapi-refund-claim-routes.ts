// The OpenAPI paths of the refund claim page (docs/api.md, "The refund claim page"), spread into
// buildOpenApiDocument under the tag `refund-claim`: public, without the merchant's signature, served
// at the origin's root (/refund/...) as the customer's page is, so that clients and the fuzzer
// (scripts/fuzz-api) know them too.

const ref = (kind: 'schemas' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` })

const ROOT_SERVER = [
  { url: '/', description: "the gateway's origin: the refund claim page is not under /api/merchant/v1" },
]

const TOKEN = {
  name: 'token',
  in: 'path',
  required: true,
  description: "the claim token of the refund's claimUrl; any other value is the HTML 404",
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
const notFound = html('An unknown or altered token: a page that names no refund')
const rateLimited = {
  description: 'RATE_LIMITED: too many requests from this address',
  headers: { 'Retry-After': ref('headers', 'RetryAfter') },
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
}
const seeOther = (description: string) => ({
  description,
  headers: { Location: { description: 'where the browser goes next', schema: { type: 'string' } } },
})
const errorJson = (description: string) => ({
  description,
  content: { 'application/json': { schema: ref('schemas', 'Error') } },
})
const form = (properties: Record<string, object>) => ({
  required: false,
  content: {
    'application/x-www-form-urlencoded': { schema: { type: 'object', properties } },
  },
})
const ADDRESS = { type: 'string', description: 'the address to receive the refund, as the customer typed it' }

/** the answers both forms share */
const formAnswers = {
  '403': {
    description: 'A form from another site (Origin, Sec-Fetch-Site)',
    content: { 'text/plain': { schema: { type: 'string' } } },
  },
  '404': notFound,
  '413': errorJson('A body over 2 KiB'),
  '415': errorJson('A body that is neither a form, JSON nor text'),
  '429': rateLimited,
}

export const refundClaimRoutePaths = {
  '/refund/{token}': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    get: {
      tags: ['refund-claim'],
      operationId: 'refundClaimPage',
      summary: "The customer's page of a refund: the address form, or what became of the refund",
      description:
        "HTML without script, under the customer pages' Content-Security-Policy, Cache-Control: no-store and Referrer-Policy: no-referrer.",
      security: [],
      parameters: [LANG],
      responses: { '200': html('The refund claim page'), '404': notFound, '429': rateLimited },
    },
  },
  '/refund/{token}/logo': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    get: {
      tags: ['refund-claim'],
      operationId: 'refundClaimLogo',
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
  '/refund/{token}/address': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    post: {
      tags: ['refund-claim'],
      operationId: 'refundClaimAddress',
      summary: "Check the customer's address against the network's format; gives nothing yet",
      security: [],
      parameters: [LANG],
      requestBody: form({
        address: ADDRESS,
        change: { type: 'string', description: 'present: back to the field with the address in it' },
      }),
      responses: {
        '200': html('The confirmation step, showing the address back (or, with change, the form filled in)'),
        '303': seeOther('The refund no longer awaits an address: back to the page'),
        '400': html('The form again, saying beside the field what is wrong with the address'),
        ...formAnswers,
      },
    },
  },
  '/refund/{token}/confirm': {
    servers: ROOT_SERVER,
    parameters: [TOKEN],
    post: {
      tags: ['refund-claim'],
      operationId: 'refundClaimConfirm',
      summary: 'Give the refund its address, once: it cannot change afterwards',
      security: [],
      parameters: [LANG],
      requestBody: form({ address: ADDRESS }),
      responses: {
        '303': seeOther('Given (or the same address given before): back to the page'),
        '400': html('The form again, saying beside the field what is wrong with the address'),
        '409': html('Another address was given before: the page, saying it cannot change'),
        ...formAnswers,
      },
    },
  },
}
