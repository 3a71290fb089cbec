import { createServer, type Server } from 'node:net'
import { createRootLogger } from '@chainpay/platform'
import Fastify, { type FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildHealthApp } from './health.js'
import { healthService } from './health-service.js'
import { httpService } from './http-service.js'
import { freePort } from './testing/node-process.js'

const logger = createRootLogger({ service: 'test', level: 'silent' })

function httpServiceOn(port: number, build: () => FastifyInstance | Promise<FastifyInstance>) {
  return httpService({ name: 'test API', host: '127.0.0.1', port, logger, build })
}

describe('httpService', () => {
  it('builds and listens on start, closes on stop, and stops again harmlessly', async () => {
    const port = await freePort()
    let builds = 0
    const service = httpServiceOn(port, () => {
      builds += 1
      return buildHealthApp({ logger, readiness: async () => true })
    })
    expect(service.name).toBe('test API')
    expect(builds).toBe(0)

    await service.start()
    const response = await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(await response.json()).toEqual({ status: 'ok' })

    await service.stop()
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
    await service.stop()
    expect(builds).toBe(1)
  })

  it('fails to start on a port in use, closing the app it built', async () => {
    const port = await freePort()
    const occupant: Server = createServer()
    await new Promise<void>((resolve) => occupant.listen(port, '127.0.0.1', resolve))
    let closed = false
    const service = httpServiceOn(port, () => {
      const app = Fastify()
      app.addHook('onClose', async () => {
        closed = true
      })
      return app
    })
    try {
      await expect(service.start()).rejects.toThrow(/EADDRINUSE/)
      expect(closed).toBe(true)
      await service.stop()
    } finally {
      await new Promise<void>((resolve) => occupant.close(() => resolve()))
    }
  })
})

describe('healthService', () => {
  it('serves health, readiness and the extra routes on its port, named health API by default', async () => {
    const port = await freePort()
    const service = healthService({
      host: '127.0.0.1',
      port,
      logger,
      readiness: async () => false,
      routes: async (app) => {
        app.get('/dev/hello', async () => ({ hello: 'world' }))
      },
    })
    expect(service.name).toBe('health API')
    await service.start()
    try {
      const base = `http://127.0.0.1:${port}`
      expect((await fetch(`${base}/healthz`)).status).toBe(200)
      expect((await fetch(`${base}/readyz`)).status).toBe(503)
      expect(await (await fetch(`${base}/dev/hello`)).json()).toEqual({ hello: 'world' })
    } finally {
      await service.stop()
    }
  })

  it('takes another name', () => {
    const service = healthService({
      name: 'simulator API',
      host: '127.0.0.1',
      port: 1,
      logger,
      readiness: async () => true,
    })
    expect(service.name).toBe('simulator API')
  })
})
