// The servers that take JSON bodies on createHttpApp (the admin API, payment-command's command API)
// read them as the merchant API does (docs/api.md, "Conventions"): UTF-8 only, no repeated key, no
// number that would change.

import { createRootLogger } from '@chainpay/platform'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHttpApp, type HttpApp } from './http-app.js'
import { acceptStrictJsonBodies } from './json-body.js'

let app: HttpApp
/** bodies the route handler was reached with */
const received: unknown[] = []

beforeAll(async () => {
  app = createHttpApp({
    logger: createRootLogger({ service: 'test', level: 'silent' }),
    component: 'test',
    bodyLimit: 1024,
  })
  acceptStrictJsonBodies(app)
  app.post('/echo', async (request) => {
    received.push(request.body)
    return { body: request.body }
  })
  await app.ready()
})
afterAll(() => app.close())

const post = (payload: string | Buffer, contentType = 'application/json') =>
  app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': contentType }, payload })

describe('acceptStrictJsonBodies, on createHttpApp', () => {
  it('hands a well-formed body to the route', async () => {
    const response = await post('{"a":1.0,"b":"☕","__proto__":{"x":1}}', 'application/json; charset=UTF-8')
    expect(response.statusCode).toBe(200)
    expect(response.body).toBe('{"body":{"a":1,"b":"☕","__proto__":{"x":1}}}')
  })

  it.each([
    [
      'application/json; charset=utf-16',
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'Content-Type: charset must be utf-8',
    ],
    ['application/xml', 415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type: must be application/json'],
  ])('answers %s with %i', async (contentType, status, code, message) => {
    const before = received.length
    const response = await post('{"a":1}', contentType)
    expect(response.statusCode).toBe(status)
    expect(response.json()).toEqual({ error: { code, message } })
    expect(received).toHaveLength(before)
  })

  it.each([
    [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 'body: must be valid UTF-8'],
    ['{"a":1,"a":2}', "body: duplicate key 'a'"],
    ['{"fee":{"bps":12345678901234567890}}', 'fee.bps: the number 12345678901234567890'],
    ['{"a":', 'body: malformed JSON'],
    ['', 'body: malformed JSON'],
  ])('answers 400 VALIDATION_ERROR to %s, before the route', async (payload, message) => {
    const before = received.length
    const response = await post(payload)
    expect(response.statusCode).toBe(400)
    expect(response.json().error.code).toBe('VALIDATION_ERROR')
    expect(response.json().error.message).toMatch(
      new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    )
    expect(received).toHaveLength(before)
  })

  it('still answers 413 for a body over the limit', async () => {
    const response = await post(`{"a":"${'x'.repeat(2000)}"}`)
    expect(response.statusCode).toBe(413)
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE')
  })
})
