// Routes that only this machine may call, unless the operator hands out a token: the chain
// simulator's, which can fake the transfers that confirm payments (docs/operations.md, "The chain
// simulator's routes"). Without a token only loopback callers are answered; with one, every caller
// must send it, loopback included, and it is compared in constant time.

import { constantTimeEqual, type EnvReader } from '@chainpay/platform'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { checkTokenValue, isLoopbackHost } from '../service-token.js'
import { errorBody } from './errors.js'

export interface LocalOrTokenOptions {
  /** undefined: loopback callers only */
  token: string | undefined
  /** the header that carries it, lower case */
  header: string
  /** the variable that sets it, named in the answers */
  variable: string
  /** what is guarded, for the answers: "the chain simulator" */
  guarded: string
}

/** the header that carries SIMULATOR_TOKEN, to the simulator's routes and through the gateway's proxy */
export const SIMULATOR_TOKEN_HEADER = 'x-simulator-token'

/**
 * the query parameter that carries SIMULATOR_TOKEN to the simulated Solana websocket only:
 * @solana/web3.js sends no header there (docs/operations.md, "The chain simulator's routes")
 */
export const SIMULATOR_TOKEN_QUERY = 'simulatorToken'

/** who may call the chain simulator's routes, wherever they are served or forwarded */
export function simulatorAccess(token: string | undefined) {
  return localCallerOrToken({
    token,
    header: SIMULATOR_TOKEN_HEADER,
    variable: 'SIMULATOR_TOKEN',
    guarded: 'the chain simulator',
  })
}

/**
 * An onRequest hook answering 401 (token missing or wrong) or 404 (not a local caller, no token
 * set) before anything else of the route runs; other callers go on.
 */
export function localCallerOrToken(options: LocalOrTokenOptions) {
  const { token, header, variable, guarded } = options
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (token === undefined) {
      // a reverse proxy or a sidecar on this machine connects from loopback for callers anywhere
      if (isLocalCaller(request.socket) && !forwardedByAProxy(request.headers)) return
      // as if absent: nothing tells a stranger what is here
      await reply
        .code(404)
        .send(
          errorBody(
            'NOT_FOUND',
            `${guarded} answers only callers on this machine unless ${variable} is set (docs/operations.md)`,
          ),
        )
      return
    }
    const sent = request.headers[header]
    if (typeof sent !== 'string' || sent === '') {
      await reply.code(401).send(errorBody('MISSING_AUTH_HEADERS', `${header}: required by ${guarded}`))
      return
    }
    if (!constantTimeEqual(sent, token)) {
      await reply.code(401).send(errorBody('INVALID_API_KEY', `${header}: not the token of ${guarded}`))
    }
  }
}

// what reverse proxies (nginx, Caddy, Envoy and so Istio's sidecars) add to what they forward
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-real-ip', 'via']

/** a request that says it was forwarded: its loopback address is the proxy's, not the caller's */
export function forwardedByAProxy(headers: Record<string, string | string[] | undefined>): boolean {
  return (
    FORWARDING_HEADERS.some((name) => headers[name] !== undefined) ||
    Object.keys(headers).some((name) => name.startsWith('x-envoy-'))
  )
}

/**
 * A caller on this machine: a loopback address (127.0.0.0/8, ::1, or IPv4-mapped loopback), or the
 * very address the connection came in on. A connection between two of this host's own addresses
 * runs over the loopback interface too; that is how a service reaches its own port when it listens
 * on one address only (HOST=10.0.0.5).
 */
export function isLocalCaller(socket: {
  remoteAddress?: string | undefined
  localAddress?: string | undefined
}): boolean {
  const remote = socket.remoteAddress
  if (remote === undefined) return false
  if (isLoopbackHost(remote)) return true
  return socket.localAddress !== undefined && remote === socket.localAddress
}

/** an optional token variable, such as SIMULATOR_TOKEN (service-token.ts, checkTokenValue) */
export function readAccessToken(read: EnvReader, name: string): string | undefined {
  const token = read.optionalString(name)
  return token === undefined ? undefined : checkTokenValue(read, name, token)
}
