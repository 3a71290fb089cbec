// Service-to-service authentication of the internal HTTP APIs (payment-command's command API, every
// service's /metrics): a bearer token shared by caller and callee. The internal APIs listen on
// loopback by default; one that listens anywhere else must have its token, or the service does not
// start (docs/operations.md, "Internal APIs"). mTLS in front (a service mesh) is the stronger option;
// the token is the floor that holds without one.

import { DomainError } from '@chainpay/domain'
import { constantTimeEqual, type EnvReader } from '@chainpay/platform'
import type { FastifyRequest } from 'fastify'

/** a guessable token is no authentication: 32 characters of randomToken or `openssl rand -hex 16` */
export const SERVICE_TOKEN_MIN_LENGTH = 32

/**
 * True when `host` names this machine only: `localhost`, 127.0.0.0/8, `::1` (or an IPv4-mapped
 * 127.x). A name that DNS resolves could point anywhere, and 0.0.0.0 or `::` mean every interface.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (bare === 'localhost') return true
  if (bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true
  const ipv4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ipv4)
}

export interface TokenListener {
  /** the variable that sets where it listens (HOST, ADMIN_HOST), or whose URL it calls */
  hostVariable: string
  host: string
  /** what the token protects, for the message: 'the command API', '/metrics' */
  serves: string
}

/**
 * Reads the token in `variable`: unset, or as checkTokenValue takes it. When `listener` is not on loopback the token is required. The value is never repeated in
 * a message.
 */
export function readServiceToken(
  read: EnvReader,
  variable: string,
  listener: TokenListener,
): string | undefined {
  const token = read.optionalString(variable)
  if (token === undefined) {
    if (!isLoopbackHost(listener.host)) {
      read.problem(
        `${variable}: required because ${listener.hostVariable} (${listener.host}) is not a loopback address: ${listener.serves} would answer anyone who reaches it (docs/operations.md, "Internal APIs")`,
      )
    }
    return undefined
  }
  return checkTokenValue(read, variable, token)
}

/**
 * A token as every token variable takes it (COMMAND_API_TOKEN, METRICS_TOKEN, SIMULATOR_TOKEN): at
 * least SERVICE_TOKEN_MIN_LENGTH visible ASCII characters, since it travels in a header. The value is
 * never repeated in the message.
 */
export function checkTokenValue(read: EnvReader, variable: string, token: string): string | undefined {
  if (token.length < SERVICE_TOKEN_MIN_LENGTH || !/^[\x21-\x7e]+$/.test(token)) {
    read.problem(
      `${variable}: expected at least ${SERVICE_TOKEN_MIN_LENGTH} visible ASCII characters without spaces (e.g. openssl rand -hex 32), got ${token.length} characters`,
    )
    return undefined
  }
  return token
}

/**
 * An onRequest hook that lets only `Authorization: Bearer <token>` through, compared in constant
 * time; `variable` names the token in the 401's message, never its value.
 */
export function bearerTokenCheck(token: string, variable: string) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^Bearer +(\S+)$/i.exec(header) : null
    if (match?.[1] === undefined) {
      throw new DomainError('MISSING_AUTH_HEADERS', `Authorization: expected "Bearer <${variable}>"`)
    }
    if (!constantTimeEqual(match[1], token)) {
      throw new DomainError('INVALID_API_KEY', `Authorization: not the ${variable}`)
    }
  }
}
