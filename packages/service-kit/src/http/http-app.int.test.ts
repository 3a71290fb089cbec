// The HTTP foundation's handling of what reaches the router, on an app built as every service builds
// its own (createHttpApp), driven through fastify's inject.

import { Writable } from 'node:stream'
import { DomainError } from '@chainpay/domain'
import { createRootLogger } from '@chainpay/platform'
import { afterEach, describe, expect, it } from 'vitest'
import { createHttpApp, type HttpApp } from './http-app.js'

const MAX_PATH_PARAMETER_LENGTH = 16 * 1024

let app: HttpApp | undefined

afterEach(async () => {
  await app?.close()
  app = undefined
})

/** an app with a route shaped like GET /payments/:paymentId, and the levels of its log lines */
function appWithAnIdRoute() {
  const levels: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) levels.push(JSON.parse(line).level)
      done()
    },
  })
  const built = createHttpApp({
    logger: createRootLogger({ service: 'test', level: 'info', destination }),
    component: 'test',
  })
  built.get<{ Params: { paymentId: string } }>('/payments/:paymentId', async (request) => {
    // what a route does with an id it does not know (docs/api.md, "Errors")
    throw new DomainError('PAYMENT_NOT_FOUND', `payment ${request.params.paymentId.slice(0, 40)} not found`)
  })
  app = built
  return { app: built, levels }
}

/** the levels an operator must look at (the logger writes levels by name) */
const ERROR_LEVELS = ['error', 'fatal']

describe('path parameters', () => {
  it.each([
    ['100 characters', 100],
    ['101 characters, past the router default', 101],
    ['2000 characters', 2000],
    ['the longest the router takes', MAX_PATH_PARAMETER_LENGTH],
  ])('reach their route, whatever the length (%s), and are answered by its rules', async (_case, length) => {
    const { app, levels } = appWithAnIdRoute()
    const response = await app.inject({ method: 'GET', url: `/payments/${'a'.repeat(length)}` })
    expect(response.statusCode).toBe(404)
    expect(response.json().error.code).toBe('PAYMENT_NOT_FOUND')
    expect(levels.filter((level) => ERROR_LEVELS.includes(level))).toEqual([])
  })

  it('answers one longer than the router takes 400 VALIDATION_ERROR, never a logged 500', async () => {
    const { app, levels } = appWithAnIdRoute()
    const response = await app.inject({
      method: 'GET',
      url: `/payments/${'a'.repeat(MAX_PATH_PARAMETER_LENGTH + 1)}`,
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'path: a segment is too long' },
    })
    expect(levels.filter((level) => ERROR_LEVELS.includes(level))).toEqual([])
  })
})

describe('the deadline of every request', () => {
  it('answers a request whose handler never finishes 503 with Retry-After, logged for the operator', async () => {
    const lines: Array<{ level: string; msg?: string }> = []
    const destination = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
        done()
      },
    })
    const built = createHttpApp({
      logger: createRootLogger({ service: 'test', level: 'info', destination }),
      component: 'test',
      handlerTimeoutMs: 50,
    })
    // what a store that never answers does to a handler
    built.get('/payments/:paymentId', () => new Promise(() => {}))
    built.get('/quick', async () => ({ ok: true }))
    app = built
    const stuck = await built.inject({ method: 'GET', url: '/payments/p1' })
    expect(stuck.statusCode).toBe(503)
    expect(stuck.headers['retry-after']).toBe('5')
    expect(stuck.json().error.code).toBe('SERVICE_UNAVAILABLE')
    expect(lines.filter((line) => line.msg === 'request failed').map((line) => line.level)).toEqual(['warn'])
    // the app goes on answering
    expect((await built.inject({ method: 'GET', url: '/quick' })).statusCode).toBe(200)
  })
})
