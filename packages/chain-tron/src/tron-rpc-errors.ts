// What a failed tronweb call becomes: tronweb hands over axios's errors untouched (HttpProvider
// does no catching), so the classification reads axios's code and response status.
import { ChainRpcError, type ChainRpcFailure, isChainRpcError } from '@chainpay/ports'

interface HttpFailureLike {
  isAxiosError?: unknown
  code?: unknown
  message?: unknown
  response?: { status?: unknown; headers?: unknown } | undefined
}

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT'])

/**
 * The ChainRpcError for an error thrown while calling `what` (e.g. "TRON wallet/getnowblock").
 * Neither the message nor the cause carries the request's headers (axios errors hold the API key
 * in their config), and `secret` is blanked wherever it appears.
 */
export function toChainRpcError(error: unknown, what: string, secret?: string): ChainRpcError {
  if (isChainRpcError(error)) {
    if (!secret || !error.message.includes(secret)) return error
    const { failure, retryAfterMs, cause } = error
    return new ChainRpcError(failure, redact(error.message, secret), { retryAfterMs, cause })
  }
  const failure = error as HttpFailureLike
  const code = typeof failure?.code === 'string' ? failure.code : undefined
  const reason = redact(error instanceof Error ? error.message : String(error), secret)
  const cause = new Error(code === undefined ? reason : `${code}: ${reason}`)
  if (failure?.isAxiosError !== true) {
    // tronweb's own argument checks, or a bug: retrying the same call does not help
    return new ChainRpcError('bad-response', `${what} failed: ${reason}`, { cause })
  }
  const status = typeof failure.response?.status === 'number' ? failure.response.status : undefined
  if (status === undefined) {
    const kind: ChainRpcFailure = code !== undefined && TIMEOUT_CODES.has(code) ? 'timeout' : 'unavailable'
    return new ChainRpcError(kind, `${what} failed: ${code ?? reason}`, { cause })
  }
  // TronGrid answers 403 when a key's quota is spent
  if (status === 429 || status === 403) {
    const retryAfterMs = parseRetryAfter(header(failure.response?.headers, 'retry-after'), Date.now())
    return new ChainRpcError('rate-limited', `${what} failed: HTTP ${status}`, { cause, retryAfterMs })
  }
  if (status === 408 || status === 504) {
    return new ChainRpcError('timeout', `${what} failed: HTTP ${status}`, { cause })
  }
  const kind: ChainRpcFailure = status >= 500 ? 'unavailable' : 'bad-response'
  return new ChainRpcError(kind, `${what} failed: HTTP ${status}`, { cause })
}

/** Retry-After as milliseconds from `nowMs`: delta-seconds or an HTTP date; undefined if neither */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs)
}

function header(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined
  const value = (headers as Record<string, unknown>)[name]
  return Array.isArray(value) ? String(value[0]) : typeof value === 'string' ? value : undefined
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text
}
