import { connect, createServer, type Server, type Socket } from 'node:net'
import { createRootLogger } from '@chainpay/platform'
import Fastify, { type FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildHealthApp } from './health.js'
import { healthService } from './health-service.js'
import { createHttpApp } from './http/http-app.js'
import { DEFAULT_HTTP_SERVER_LIMITS, type HttpServerLimits } from './http/server-limits.js'
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
      await expect(service.start()).rejects.toThrow(
        `test API cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`,
      )
      expect(closed).toBe(true)
      await service.stop()
    } finally {
      await new Promise<void>((resolve) => occupant.close(() => resolve()))
    }
  })

  it('names the variable that sets a port in use, for the operator to change', async () => {
    const port = await freePort()
    const occupant: Server = createServer()
    await new Promise<void>((resolve) => occupant.listen(port, '127.0.0.1', resolve))
    const service = httpService({
      name: 'admin API',
      host: '127.0.0.1',
      port,
      portVariable: 'ADMIN_PORT',
      logger,
      build: () => Fastify(),
    })
    try {
      await expect(service.start()).rejects.toThrow(
        `admin API cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE); set ADMIN_PORT to a free port`,
      )
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

describe('httpService limits, before any authentication', () => {
  /** short enough for a test; what matters is that the server acts on them, not how soon */
  const shortLimits: HttpServerLimits = {
    requestTimeoutMs: 300,
    headersTimeoutMs: 200,
    keepAliveTimeoutMs: 60_000,
    maxConnections: 2,
  }
  /** the levels an operator must look at (the logger writes levels by name) */
  const ERROR_LEVELS = ['error', 'fatal']

  async function startEchoService(limits: HttpServerLimits) {
    const port = await freePort()
    const levels: string[] = []
    const capturing = createRootLogger({
      service: 'test',
      level: 'info',
      destination: { write: (line: string) => void levels.push(JSON.parse(line).level) },
    })
    const service = httpService({
      name: 'test API',
      host: '127.0.0.1',
      port,
      logger: capturing,
      limits,
      build: () => {
        const app = createHttpApp({ logger: capturing, component: 'test' })
        app.post('/echo', async (request) => ({ echoed: request.body }))
        app.get('/hello', async () => ({ hello: 'world' }))
        return app
      },
    })
    await service.start()
    return {
      port,
      service,
      errorsLogged: () => levels.filter((level) => ERROR_LEVELS.includes(level)).length,
    }
  }

  /** a raw connection, and everything the server wrote on it until it closed */
  function rawConnection(port: number) {
    const socket: Socket = connect(port, '127.0.0.1')
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString()
    })
    socket.on('error', () => {})
    const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)))
    const answered = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (received.includes(text)) {
            socket.off('data', check)
            resolve()
          }
        }
        socket.on('data', check)
        check()
      })
    return { socket, closed, answered }
  }

  it('closes a connection whose body stops arriving, once the request timeout has passed', async () => {
    const { port, service, errorsLogged } = await startEchoService(shortLimits)
    try {
      const { socket, closed } = rawConnection(port)
      socket.write(
        'POST /echo HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":"1234',
      )
      // the server hangs up on its own: this resolves only when it closes the socket
      expect(await closed).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      await service.stop()
    }
    // the caller's doing, not the operator's problem: the server, closed, has handled the abort
    expect(errorsLogged()).toBe(0)
  })

  it('closes a connection whose headers stop arriving, once the headers timeout has passed', async () => {
    const { port, service } = await startEchoService({ ...shortLimits, requestTimeoutMs: 60_000 })
    try {
      const { socket, closed } = rawConnection(port)
      socket.write('GET /hello HTTP/1.1\r\nHost: test\r\nX-Slow: ')
      expect(await closed).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      await service.stop()
    }
  })

  it('closes connections beyond the cap as they arrive, and takes new ones once others left', async () => {
    const { port, service } = await startEchoService(shortLimits)
    const request = 'GET /hello HTTP/1.1\r\nHost: test\r\n\r\n'
    try {
      // two kept-alive connections, each answered: the cap is reached
      const held = [rawConnection(port), rawConnection(port)]
      for (const connection of held) {
        connection.socket.write(request)
        await connection.answered('{"hello":"world"}')
      }
      const refused = rawConnection(port)
      refused.socket.write(request)
      expect(await refused.closed).toBe('')

      held[0]?.socket.destroy()
      await held[0]?.closed
      const next = rawConnection(port)
      next.socket.write(request)
      await next.answered('{"hello":"world"}')
      for (const connection of [held[1], next]) connection?.socket.destroy()
    } finally {
      await service.stop()
    }
  })

  it('applies the defaults when none are given', async () => {
    let server: import('node:http').Server | undefined
    const port = await freePort()
    const service = httpServiceOn(port, () => {
      const app = Fastify()
      server = app.server
      return app
    })
    await service.start()
    try {
      expect(server).toMatchObject({
        requestTimeout: DEFAULT_HTTP_SERVER_LIMITS.requestTimeoutMs,
        headersTimeout: DEFAULT_HTTP_SERVER_LIMITS.headersTimeoutMs,
        keepAliveTimeout: DEFAULT_HTTP_SERVER_LIMITS.keepAliveTimeoutMs,
        maxConnections: DEFAULT_HTTP_SERVER_LIMITS.maxConnections,
      })
    } finally {
      await service.stop()
    }
  })
})
