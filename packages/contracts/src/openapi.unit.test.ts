import { describe, expect, it } from 'vitest'
import { buildOpenApiDocument } from './openapi.js'
import { WebhookEventKinds } from './webhooks.js'

type Json = Record<string, unknown>

const document = buildOpenApiDocument({ serverUrl: 'https://pay.example.com/api/merchant/v1' })
const json = JSON.parse(JSON.stringify(document)) as Json

function at(value: unknown, ...keys: string[]): unknown {
  let current = value
  for (const key of keys) {
    if (typeof current !== 'object' || current === null || !(key in current)) return undefined
    current = (current as Json)[key]
  }
  return current
}

/** follows a local $ref, or returns the value itself */
function resolve(value: unknown): unknown {
  const pointer = (value as { $ref?: string } | undefined)?.$ref
  if (pointer === undefined) return value
  return at(
    json,
    ...pointer
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~')),
  )
}

function collectRefs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, found)
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child)
      else collectRefs(child, found)
    }
  }
  return found
}

describe('buildOpenApiDocument', () => {
  it('is OpenAPI 3.1.0 with the title, version and server', () => {
    expect(json.openapi).toBe('3.1.0')
    expect(json.info).toMatchObject({ title: 'chainpay merchant API', version: '1.0.0' })
    expect(json.servers).toEqual([
      expect.objectContaining({ url: 'https://pay.example.com/api/merchant/v1' }),
    ])
  })

  it('defaults the server to the base path, relative to where the document is served', () => {
    expect(buildOpenApiDocument().servers).toEqual([expect.objectContaining({ url: '/api/merchant/v1' })])
  })

  it.each([
    ['/payments', 'post', ['201', '200', '400', '401', '409', '413', '415', '429', '500', '503']],
    ['/payments/{paymentId}', 'get', ['200', '400', '401', '404']],
    ['/payments/{paymentId}/cancel', 'post', ['200', '400', '401', '404', '409']],
    ['/payments', 'get', ['200', '400', '401', '429', '500', '503']],
    ['/payments/{paymentId}/events', 'get', ['200', '400', '401', '404', '503']],
  ])('documents %s %s with its statuses', (path, method, statuses) => {
    const responses = at(json, 'paths', path, method, 'responses') as Json
    expect(responses).toBeDefined()
    for (const status of statuses) {
      const response = resolve(responses[status]) as Json | undefined
      expect(response, `${method} ${path} ${status}`).toBeDefined()
      expect(typeof response?.description).toBe('string')
    }
  })

  it('documents every query parameter of GET /payments', () => {
    const parameters = at(json, 'paths', '/payments', 'get', 'parameters') as Json[]
    const names = parameters
      .filter((parameter) => parameter.in === 'query')
      .map((parameter) => parameter.name)
    expect(names).toEqual(['limit', 'cursor', 'status', 'network', 'currency', 'createdFrom', 'createdTo'])
  })

  it('describes error responses with the Error schema and success with the payment schemas', () => {
    const create = at(json, 'paths', '/payments', 'post', 'responses') as Json
    expect(resolve(at(create['201'], 'content', 'application/json', 'schema'))).toBe(
      at(json, 'components', 'schemas', 'CreatedPayment'),
    )
    expect(at(create['201'], 'headers', 'Location')).toBeDefined()
    expect(at(create['200'], 'headers', 'Idempotent-Replayed')).toBeDefined()
    const unauthorized = resolve(create['401'])
    expect(at(unauthorized, 'content', 'application/json', 'schema')).toEqual({
      $ref: '#/components/schemas/Error',
    })
    const get = at(
      json,
      'paths',
      '/payments/{paymentId}',
      'get',
      'responses',
      '200',
      'content',
      'application/json',
    )
    expect(at(get, 'schema')).toEqual({ $ref: '#/components/schemas/Payment' })
    expect(at(json, 'components', 'schemas', 'Payment', 'required')).toContain('feeAmount')
  })

  it('resolves every $ref inside the document', () => {
    const refs = collectRefs(json)
    expect(refs.length).toBeGreaterThan(20)
    for (const ref of refs) {
      expect(ref.startsWith('#/'), ref).toBe(true)
      expect(resolve({ $ref: ref }), ref).toBeDefined()
    }
  })

  it('declares the three X-Service-* headers as API key schemes, with the signing rule', () => {
    const schemes = at(json, 'components', 'securitySchemes') as Record<string, Json>
    const headers = Object.values(schemes).map((scheme) => [scheme.type, scheme.in, scheme.name])
    expect(headers).toEqual([
      ['apiKey', 'header', 'X-Service-Key'],
      ['apiKey', 'header', 'X-Service-Timestamp'],
      ['apiKey', 'header', 'X-Service-Signature'],
    ])
    expect(String(schemes.ServiceSignature?.description)).toContain('{timestamp}.{METHOD}.{path}.{body}')
    expect(json.security).toEqual([{ ServiceKey: [], ServiceTimestamp: [], ServiceSignature: [] }])
  })

  it('has a webhook entry for every event kind, with the signature headers', () => {
    expect(Object.keys(json.webhooks as Json)).toEqual([...WebhookEventKinds])
    for (const kind of WebhookEventKinds) {
      const operation = at(json, 'webhooks', kind, 'post') as Json
      const headers = (operation.parameters as Json[]).map((parameter) => [parameter.in, parameter.name])
      expect(headers).toEqual([
        ['header', 'X-Signature'],
        ['header', 'X-Timestamp'],
        ['header', 'X-Signature-Previous'],
        ['header', 'X-Event-Id'],
        ['header', 'X-Event-Type'],
      ])
      const body = kind.startsWith('payment.') ? 'WebhookBody' : 'OutgoingWebhookBody'
      expect(collectRefs(operation.requestBody)).toContain(`#/components/schemas/${body}`)
    }
  })

  it('describes the webhook endpoint and delivery routes', () => {
    const operations = Object.entries(json.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, operation]) => `${method.toUpperCase()} ${path} ${(operation as Json).operationId}`),
    )
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /webhook-endpoints createWebhookEndpoint',
        'GET /webhook-endpoints listWebhookEndpoints',
        'GET /webhook-endpoints/{endpointId} getWebhookEndpoint',
        'PATCH /webhook-endpoints/{endpointId} updateWebhookEndpoint',
        'DELETE /webhook-endpoints/{endpointId} deleteWebhookEndpoint',
        'POST /webhook-endpoints/{endpointId}/rotate-secret rotateWebhookEndpointSecret',
        'POST /webhook-endpoints/{endpointId}/test sendWebhookTestEvent',
        'GET /webhook-deliveries listWebhookDeliveries',
        'POST /webhook-deliveries/{deliveryId}/redeliver redeliverWebhook',
      ]),
    )
  })

  it("describes the customer's page routes, tagged checkout, public, at the origin's root", () => {
    const checkout = Object.entries(json.paths as Record<string, Json>).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => !['parameters', 'servers'].includes(method))
        .filter(([, operation]) => ((operation as Json).tags as string[]).includes('checkout'))
        .map(([method, operation]) => {
          expect((operation as Json).security, path).toEqual([])
          expect(item.servers, path).toEqual([expect.objectContaining({ url: '/' })])
          return `${method.toUpperCase()} ${path}`
        }),
    )
    expect(checkout).toEqual([
      'GET /pay/{token}',
      'GET /pay/{token}/status',
      'GET /pay/{token}/logo',
      'GET /pay/{token}/cancel',
      'POST /pay/{token}/cancel',
      'GET /pay/assets/checkout.css',
      'GET /pay/assets/checkout.js',
      'GET /pay/assets/icon.svg',
      'GET /favicon.ico',
    ])
    expect(at(json, 'paths', '/pay/{token}', 'get', 'parameters')).toEqual([
      expect.objectContaining({ name: 'lang', in: 'query', schema: { type: 'string' } }),
    ])
  })

  it('carries the schemas as plain JSON, without typebox bookkeeping', () => {
    expect(JSON.stringify(json)).not.toContain('~kind')
    expect(at(json, 'components', 'schemas', 'CreatePaymentRequest', 'additionalProperties')).toBe(false)
    expect(at(json, 'components', 'schemas', 'CreatePaymentRequest', 'required')).toEqual([
      'amount',
      'currency',
      'network',
    ])
  })
})
