import { Writable } from 'node:stream'
import { createRootLogger } from '@chainpay/platform'
import type { FastifyPluginAsync } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildHealthApp, type HealthAppOptions } from './health.js'

/** a logger whose lines the test reads */
function capturingLogger() {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  return { logger: createRootLogger({ service: 'test', level: 'info', destination }), lines }
}

async function healthApp(readiness: () => Promise<boolean>, options: Partial<HealthAppOptions> = {}) {
  const { logger, lines } = capturingLogger()
  const app = await buildHealthApp({ logger, readiness, ...options })
  return { app, lines }
}

const devRoutes: FastifyPluginAsync = async (app) => {
  app.post('/dev/echo', async (request) => ({ echoed: request.body }))
  app.get('/dev/broken', async () => {
    throw new Error('secret internals')
  })
}

describe('buildHealthApp', () => {
  it('answers /healthz whatever the readiness, and logs nothing for a probe that passes', async () => {
    const { app, lines } = await healthApp(async () => false)
    const response = await app.inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ok' })
    expect(lines).toEqual([])
    await app.close()
  })

  it('answers /readyz 200 when ready', async () => {
    const { app } = await healthApp(async () => true)
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ status: 'ready' })
    await app.close()
  })

  it('answers /readyz 503 with the standard error body when not ready', async () => {
    const { app } = await healthApp(async () => false)
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(response.json()).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'not ready: a dependency is unavailable' },
    })
    await app.close()
  })

  it('counts a readiness check that throws as not ready, and logs why', async () => {
    const { app, lines } = await healthApp(async () => {
      throw new Error('database is not open')
    })
    const response = await app.inject({ method: 'GET', url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'readiness check failed',
        err: expect.objectContaining({ message: 'database is not open' }),
      }),
    )
    await app.close()
  })

  it('serves the extra routes on the same app', async () => {
    const { app } = await healthApp(async () => true, { routes: devRoutes })
    const response = await app.inject({ method: 'POST', url: '/dev/echo', payload: { n: 1 } })
    expect(response.json()).toEqual({ echoed: { n: 1 } })
    await app.close()
  })

  it('answers an unknown route with NOT_FOUND and the standard error body', async () => {
    const { app } = await healthApp(async () => true)
    const response = await app.inject({ method: 'GET', url: '/nothing?x=1' })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no route for GET /nothing' } })
    await app.close()
  })

  it('answers another method on a served path with 405 and Allow, derived from the routes', async () => {
    const { app } = await healthApp(async () => true, { routes: devRoutes })
    const readyz = await app.inject({ method: 'POST', url: '/readyz' })
    expect(readyz.statusCode).toBe(405)
    expect(readyz.headers.allow).toBe('GET, HEAD')
    expect(readyz.json()).toEqual({
      error: {
        code: 'METHOD_NOT_ALLOWED',
        message: 'method POST is not allowed on /readyz; allowed: GET, HEAD',
      },
    })
    const echo = await app.inject({ method: 'DELETE', url: '/dev/echo' })
    expect(echo.statusCode).toBe(405)
    expect(echo.headers.allow).toBe('POST')
    await app.close()
  })

  it('answers malformed JSON with VALIDATION_ERROR, and a failing route with a logged INTERNAL_ERROR', async () => {
    const { app, lines } = await healthApp(async () => true, { routes: devRoutes })
    const malformed = await app.inject({
      method: 'POST',
      url: '/dev/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"n":',
    })
    expect(malformed.statusCode).toBe(400)
    expect(malformed.json().error.code).toBe('VALIDATION_ERROR')

    const broken = await app.inject({ method: 'GET', url: '/dev/broken' })
    expect(broken.statusCode).toBe(500)
    expect(broken.json()).toEqual({
      error: {
        code: 'INTERNAL_ERROR',
        message: `internal error; request id ${broken.headers['x-request-id']}`,
      },
    })
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'request failed' }))
    await app.close()
  })
})
