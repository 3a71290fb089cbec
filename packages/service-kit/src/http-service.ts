// A fastify app as a lifecycle Service: built and listening on start, closed on stop, with the limits
// every listening port has before any authentication runs (./http/server-limits.ts), and on the
// public port a cap per client address (./http/connections-per-address.ts).

import type { Socket } from 'node:net'
import type { Logger, Service } from '@chainpay/platform'
import type { FastifyInstance } from 'fastify'
import { limitConnectionsPerAddress } from './http/connections-per-address.js'
import {
  applyHttpServerLimits,
  DEFAULT_HTTP_SERVER_LIMITS,
  type HttpServerLimits,
} from './http/server-limits.js'
import type { HttpRefusalMetrics } from './metrics.js'
import { createSampledLog } from './sampled-log.js'

/** a refused connection is logged once per address per minute; the metric counts them all */
const REFUSAL_LOG_WINDOW_MS = 60_000

/** how often a closing server ends the connections that became idle meanwhile */
const IDLE_SWEEP_MS = 100

export interface HttpServiceOptions {
  name: string
  host: string
  port: number
  /** the variable that sets the port (PORT, ADMIN_PORT...), named in the error when it is taken */
  portVariable?: string
  logger: Logger
  build: () => FastifyInstance | Promise<FastifyInstance>
  /** the configuration's (SharedConfig.httpLimits); DEFAULT_HTTP_SERVER_LIMITS when absent */
  limits?: HttpServerLimits | undefined
  /**
   * the public port (the merchant API, where anyone connects): at most the limits'
   * maxConnectionsPerAddress connections per client address, the refusals counted in `refusals`
   * and logged sampled
   */
  publicPort?: { refusals?: HttpRefusalMetrics | undefined; now?: () => number } | undefined
}

export function httpService(options: HttpServiceOptions): Service {
  let app: FastifyInstance | undefined
  /** the open connections: at stop, one that never sent a byte is ended (stop()) */
  const connections = new Set<Socket>()
  return {
    name: options.name,
    async start() {
      const built = await options.build()
      const limits = options.limits ?? DEFAULT_HTTP_SERVER_LIMITS
      applyHttpServerLimits(built.server, limits)
      built.server.on('connection', (socket: Socket) => {
        connections.add(socket)
        socket.once('close', () => connections.delete(socket))
      })
      if (options.publicPort) capConnectionsPerAddress(built, limits, options, options.publicPort)
      try {
        const url = await built.listen({ host: options.host, port: options.port })
        options.logger.info({ url }, `${options.name} listening`)
      } catch (error) {
        await built.close()
        throw listenError(options, error)
      }
      app = built
    },
    async stop() {
      if (app === undefined) return
      const { server } = app
      const closing = app.close()
      // close() ends the connections idle at that moment; one accepted just as the listener closed
      // (a client's connect already in the backlog) has sent nothing yet, and the server, no longer
      // checking header timeouts, would wait for it for good: ended while close() waits
      const sweep = setInterval(() => {
        server.closeIdleConnections()
        for (const socket of connections) if (socket.bytesRead === 0) socket.destroy()
      }, IDLE_SWEEP_MS)
      try {
        await closing
      } finally {
        clearInterval(sweep)
        app = undefined
      }
    },
  }
}

function capConnectionsPerAddress(
  app: FastifyInstance,
  limits: HttpServerLimits,
  options: HttpServiceOptions,
  publicPort: NonNullable<HttpServiceOptions['publicPort']>,
): void {
  const log = createSampledLog({
    logger: options.logger,
    windowMs: REFUSAL_LOG_WINDOW_MS,
    now: publicPort.now ?? Date.now,
  })
  limitConnectionsPerAddress(app.server, {
    max: limits.maxConnectionsPerAddress,
    refused(reason, address) {
      publicPort.refusals?.connectionRefused(reason)
      if (reason === 'per_address') {
        log.note(
          `address:${address}`,
          { address, reason },
          `${options.name}: connection from ${address} closed: the address holds HTTP_MAX_CONNECTIONS_PER_ADDRESS (${limits.maxConnectionsPerAddress}) connections already; behind a reverse proxy every connection is the proxy's (docs/operations.md, "HTTP limits")`,
        )
      } else {
        log.note(
          'port_full',
          { address, reason },
          `${options.name}: connection from ${address} closed: the port holds HTTP_MAX_CONNECTIONS (${limits.maxConnections}) connections`,
        )
      }
    },
  })
}

/**
 * 'admin API cannot listen on 127.0.0.1:8081: the port is in use (EADDRINUSE); set ADMIN_PORT to a
 * free port': the listener, the port and what sets it named, for the fatal line an operator reads
 * (service-main.ts)
 */
function listenError(options: HttpServiceOptions, error: unknown): Error {
  const code = (error as { code?: unknown }).code
  const reasons: Record<string, string> = {
    EADDRINUSE: 'the port is in use',
    EACCES: 'permission denied',
    EADDRNOTAVAIL: 'the address is not one of this machine',
  }
  const reason =
    typeof code === 'string' && reasons[code] !== undefined
      ? `${reasons[code]} (${code})`
      : error instanceof Error
        ? error.message
        : String(error)
  const where = options.host.includes(':')
    ? `[${options.host}]:${options.port}`
    : `${options.host}:${options.port}`
  const fix =
    options.portVariable === undefined
      ? ''
      : code === 'EADDRINUSE'
        ? `; set ${options.portVariable} to a free port`
        : code === 'EACCES'
          ? `; set ${options.portVariable} to a free port above 1023`
          : ''
  return Object.assign(
    new Error(`${options.name} cannot listen on ${where}: ${reason}${fix}`, { cause: error }),
    {
      code,
      port: options.port,
    },
  )
}
