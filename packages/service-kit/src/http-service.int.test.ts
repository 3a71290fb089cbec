import { connect, createServer, type Server, type Socket } from 'node:net'
import { createRootLogger } from '@chainpay/platform'
import Fastify, { type FastifyInstance } from 'fastify'
import { describe, expect, it } from 'vitest'
import { buildHealthApp } from './health.js'
import { healthService } from './health-service.js'
import { createHttpApp } from './http/http-app.js'
import { DEFAULT_HTTP_SERVER_LIMITS, type HttpServerLimits } from './http/server-limits.js'
import { httpService } from './http-service.js'
import { createServiceMetrics } from './metrics.js'
import { freePort } from './testing/node-process.js'
import { prometheusSample } from './testing/prometheus-text.js'

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

  it('stops although a client connected and sent nothing, ending that connection', async () => {
    const port = await freePort()
    const service = httpServiceOn(port, () => {
      const app = Fastify()
      app.get('/healthz', async () => ({ status: 'ok' }))
      return app
    })
    await service.start()
    // the client of a caller that stopped mid-call: connected, never a byte sent, never closed
    const silent = connect(port, '127.0.0.1')
    await new Promise((resolve) => silent.once('connect', resolve))
    const ended = new Promise((resolve) => silent.once('close', resolve))
    await service.stop()
    await ended
    expect(silent.destroyed).toBe(true)
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
    maxConnectionsPerAddress: 2,
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

  /** a raw connection (from `localAddress`), and everything the server wrote on it until it closed */
  function rawConnection(port: number, localAddress?: string) {
    const socket: Socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) })
    let received = ''
    socket.on('data', (chunk) => {
      received += chunk.toString()
    })
    socket.on('error', () => {})
    const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)))
    /** resolves once `text` has arrived `times` times */
    const answered = (text: string, times = 1) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (received.split(text).length > times) {
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

  describe('on the public port, per client address (docs/operations.md, "HTTP limits")', () => {
    const request = 'GET /hello HTTP/1.1\r\nHost: test\r\n\r\n'
    /** the port has 20 slots, one address 5 of them */
    const publicLimits: HttpServerLimits = {
      ...shortLimits,
      maxConnections: 20,
      maxConnectionsPerAddress: 5,
    }

    async function startPublicService(limits: HttpServerLimits) {
      const port = await freePort()
      const lines: Array<{ level: string; msg: string; address?: string; notLogged?: number }> = []
      const capturing = createRootLogger({
        service: 'test',
        level: 'info',
        destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
      })
      const metrics = createServiceMetrics('test', { processMetrics: false })
      const service = httpService({
        name: 'merchant API',
        host: '127.0.0.1',
        port,
        logger: capturing,
        limits,
        publicPort: { refusals: metrics.refusals },
        build: () => {
          const app = createHttpApp({ logger: capturing, component: 'test' })
          app.get('/hello', async () => ({ hello: 'world' }))
          return app
        },
      })
      await service.start()
      const refused = async (reason: string) =>
        prometheusSample(await metrics.registry.metrics(), 'chainpay_http_connections_refused_total', {
          reason,
          service: 'test',
        }) ?? 0
      const refusalLines = () => lines.filter((line) => line.msg.includes('closed: the address holds'))
      return { port, service, refused, refusalLines }
    }

    /** sends one request on `connection`: 'answered', or 'closed' when the server hung up first */
    function tryRequest(connection: ReturnType<typeof rawConnection>) {
      connection.socket.write(request)
      return Promise.race([
        connection.answered('{"hello":"world"}').then(() => 'answered' as const),
        connection.closed.then(() => 'closed' as const),
      ])
    }

    it('closes at once the connections of an address past its share, and another address still gets in', async () => {
      const { port, service, refused, refusalLines } = await startPublicService(publicLimits)
      const flooder: Array<ReturnType<typeof rawConnection>> = []
      try {
        // one address opens every slot of the port, one request each, and keeps them idle
        const outcomes: string[] = []
        for (let connection = 0; connection < publicLimits.maxConnections; connection += 1) {
          const opened = rawConnection(port, '127.0.0.1')
          flooder.push(opened)
          outcomes.push(await tryRequest(opened))
        }
        expect(outcomes.filter((outcome) => outcome === 'answered')).toHaveLength(5)
        expect(outcomes.filter((outcome) => outcome === 'closed')).toHaveLength(15)
        // closed without an answer, before any request was read
        for (const connection of flooder.slice(5)) expect(await connection.closed).toBe('')

        // another address is served: the port had room left
        const other = rawConnection(port, '127.0.0.2')
        expect(await tryRequest(other)).toBe('answered')
        other.socket.destroy()

        // the flooder's five stay open and served
        for (const connection of flooder.slice(0, 5)) {
          connection.socket.write(request)
          await connection.answered('{"hello":"world"}', 2)
        }
        // one of them leaves (its close is seen when the server has closed its end too): the address
        // may open one again, and only one
        flooder[0]?.socket.end()
        await flooder[0]?.closed
        const again = rawConnection(port, '127.0.0.1')
        flooder.push(again)
        expect(await tryRequest(again)).toBe('answered')
        const beyond = rawConnection(port, '127.0.0.1')
        flooder.push(beyond)
        expect(await tryRequest(beyond)).toBe('closed')

        // every refusal counted, one line written for the address
        expect(await refused('per_address')).toBe(16)
        expect(refusalLines()).toEqual([
          expect.objectContaining({ level: 'warn', address: '127.0.0.1', notLogged: 0 }),
        ])
      } finally {
        for (const connection of flooder) connection.socket.destroy()
        await service.stop()
      }
    })

    it('without a share below the port, the same flood shuts the other address out', async () => {
      const { port, service, refused } = await startPublicService({
        ...publicLimits,
        maxConnectionsPerAddress: publicLimits.maxConnections,
      })
      const flooder: Array<ReturnType<typeof rawConnection>> = []
      try {
        for (let connection = 0; connection < publicLimits.maxConnections; connection += 1) {
          const opened = rawConnection(port, '127.0.0.1')
          flooder.push(opened)
          expect(await tryRequest(opened)).toBe('answered')
        }
        const other = rawConnection(port, '127.0.0.2')
        expect(await tryRequest(other)).toBe('closed')
        expect(await refused('port_full')).toBe(1)
      } finally {
        for (const connection of flooder) connection.socket.destroy()
        await service.stop()
      }
    })
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
