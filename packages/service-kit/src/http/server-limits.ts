// What one caller can hold of an HTTP server before any authentication runs (docs/operations.md,
// "HTTP limits"): how long a request may take to arrive, how long an idle connection stays open, and
// how many connections one listening port keeps, and one client address of the public port. Without
// them, fastify's defaults let a socket that sent its headers and part of a body stay open for good,
// accepted any number of sockets, and let one address take every one of them.

import type { Server } from 'node:http'
import type { EnvReader } from '@chainpay/platform'

export interface HttpServerLimits {
  /** HTTP_REQUEST_TIMEOUT_MS: the whole request, headers and body, must arrive within it (then 408) */
  requestTimeoutMs: number
  /** HTTP_HEADERS_TIMEOUT_MS: the headers must arrive within it; at most the request timeout */
  headersTimeoutMs: number
  /** HTTP_KEEP_ALIVE_TIMEOUT_MS: an idle connection is closed after it */
  keepAliveTimeoutMs: number
  /** HTTP_MAX_CONNECTIONS: open connections per listening port; more are closed as they arrive */
  maxConnections: number
  /**
   * HTTP_MAX_CONNECTIONS_PER_ADDRESS: open connections one client address (an IPv6 /64) may hold on
   * the public port (the merchant API); more are closed as they arrive (./connections-per-address.ts)
   */
  maxConnectionsPerAddress: number
}

export const DEFAULT_HTTP_SERVER_LIMITS: Readonly<HttpServerLimits> = {
  // a 64 KiB body takes well under a second on any link a merchant's server uses
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  // above the 60 s idle timeout of the usual load balancers and reverse proxies, so that none of
  // them sends a request on a connection this server is closing (fastify's own default is 72 s)
  keepAliveTimeoutMs: 72_000,
  maxConnections: 1000,
  // a tenth of the port: one address (a shop's server, a carrier's NAT) holds far fewer, and ten
  // addresses or /64s are needed to fill the port (docs/operations.md, "HTTP limits")
  maxConnectionsPerAddress: 100,
}

/** HTTP_MAX_CONNECTIONS_PER_ADDRESS when unset: a tenth of the port's cap */
const PER_ADDRESS_SHARE = 10

/** how often Node looks for requests past their timeouts: at most this long after one expires */
const MAX_TIMEOUT_CHECK_INTERVAL_MS = 1000

/**
 * HTTP_REQUEST_TIMEOUT_MS, HTTP_HEADERS_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS, HTTP_MAX_CONNECTIONS,
 * HTTP_MAX_CONNECTIONS_PER_ADDRESS
 */
export function readHttpServerLimits(read: EnvReader): HttpServerLimits {
  const defaults = DEFAULT_HTTP_SERVER_LIMITS
  const limits = {
    requestTimeoutMs: read.int('HTTP_REQUEST_TIMEOUT_MS', {
      default: defaults.requestTimeoutMs,
      min: 1000,
      max: 600_000,
    }),
    headersTimeoutMs: read.int('HTTP_HEADERS_TIMEOUT_MS', {
      default: defaults.headersTimeoutMs,
      min: 1000,
      max: 600_000,
    }),
    keepAliveTimeoutMs: read.int('HTTP_KEEP_ALIVE_TIMEOUT_MS', {
      default: defaults.keepAliveTimeoutMs,
      min: 1000,
      max: 600_000,
    }),
    maxConnections: read.int('HTTP_MAX_CONNECTIONS', {
      default: defaults.maxConnections,
      min: 1,
      max: 1_000_000,
    }),
  }
  const maxConnectionsPerAddress = read.int('HTTP_MAX_CONNECTIONS_PER_ADDRESS', {
    default: Math.max(1, Math.floor(limits.maxConnections / PER_ADDRESS_SHARE)),
    min: 1,
    max: 1_000_000,
  })
  if (maxConnectionsPerAddress > limits.maxConnections) {
    read.problem(
      `HTTP_MAX_CONNECTIONS_PER_ADDRESS: must be at most HTTP_MAX_CONNECTIONS (${limits.maxConnections}), got ${maxConnectionsPerAddress}`,
    )
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    read.problem(
      `HTTP_HEADERS_TIMEOUT_MS: must be at most HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}), got ${limits.headersTimeoutMs}`,
    )
  }
  return { ...limits, maxConnectionsPerAddress }
}

/** sets the limits on a server that is not listening yet */
export function applyHttpServerLimits(server: Server, limits: HttpServerLimits): void {
  server.requestTimeout = limits.requestTimeoutMs
  server.headersTimeout = limits.headersTimeoutMs
  server.keepAliveTimeout = limits.keepAliveTimeoutMs
  server.maxConnections = limits.maxConnections
  // Node enforces the two timeouts on a timer, every 30 s unless told otherwise, set up when it
  // listens from this property (which @types/node only knows as a createServer option)
  const checked = server as Server & { connectionsCheckingInterval: number }
  checked.connectionsCheckingInterval = Math.min(
    MAX_TIMEOUT_CHECK_INTERVAL_MS,
    limits.headersTimeoutMs,
    limits.requestTimeoutMs,
  )
}
