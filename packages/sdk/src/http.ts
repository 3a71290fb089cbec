// One signed request, with the SDK's retries: a request that got no answer (when it is safe to send
// again) and the API's 503 and 429 are tried again after a backoff, honouring Retry-After, each try
// signed afresh (the timestamp is part of the signature). A create carries the same idempotency key
// on every try, so a retry never makes a second payment.

import { ChainpayApiError, ChainpayConnectionError } from './errors.js'
import { signRequest } from './signing.js'

export const API_BASE_PATH = '/api/merchant/v1'

export interface HttpOptions {
  /** your chainpay's origin (https://pay.example.com) or its API root (…/api/merchant/v1) */
  baseUrl: string
  apiKey: string
  apiSecret: string
  /** tries after the first, for answers that may be retried; default 2 */
  maxRetries?: number
  /** per try; default 30 000 */
  timeoutMs?: number
  /** longest wait between tries, Retry-After included; a longer Retry-After is not waited for; default 30 000 */
  maxRetryDelayMs?: number
  /** a fetch of your own (a proxy agent, a test); the runtime's by default */
  fetch?: typeof fetch
  /** Unix milliseconds for the signature; Date.now by default */
  now?: () => number
  /** how the SDK waits between tries; setTimeout by default */
  sleep?: (ms: number) => Promise<void>
}

/**
 * `always`: the request may be sent again after no answer (reads, deletes, updates to a given state,
 * creates with an idempotency key, cancel). `answered`: only after an answer that says nothing was
 * done (503, 429): a request that got no answer may have been carried out (a secret rotated).
 */
export type RetryPolicy = 'always' | 'answered'

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** below the API root, e.g. /payments */
  path: string
  query?: Record<string, string | undefined>
  /** sent as JSON; none when undefined */
  body?: unknown
  retry: RetryPolicy
  /** a delete: a 404 after a try whose answer was lost means that try deleted it */
  goneOnRetryIsDone?: boolean
}

export interface ApiAnswer<T> {
  status: number
  headers: Headers
  data: T
}

export type Transport = <T>(request: ApiRequest) => Promise<ApiAnswer<T>>

function apiRoot(baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '')
  return trimmed.endsWith(API_BASE_PATH) ? trimmed : `${trimmed}${API_BASE_PATH}`
}

function retryAfterSeconds(headers: Headers): number | null {
  const value = headers.get('retry-after')
  if (value === null || !/^[0-9]{1,6}$/.test(value.trim())) return null
  return Number(value.trim())
}

async function errorFrom(response: Response): Promise<ChainpayApiError> {
  const text = await response.text()
  let code = `HTTP_${response.status}`
  let message = text.slice(0, 200) || response.statusText
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
    if (typeof body.error?.code === 'string') code = body.error.code
    if (typeof body.error?.message === 'string') message = body.error.message
  } catch {
    // not the API's error body (a proxy's page): the status and the text say what there is
  }
  return new ChainpayApiError({
    status: response.status,
    code,
    message,
    requestId: response.headers.get('x-request-id'),
    retryAfter: retryAfterSeconds(response.headers),
  })
}

export function createTransport(options: HttpOptions): Transport {
  const root = apiRoot(options.baseUrl)
  const send = options.fetch ?? globalThis.fetch
  const now = options.now ?? Date.now
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const maxRetries = options.maxRetries ?? 2
  const timeoutMs = options.timeoutMs ?? 30_000
  const maxDelayMs = options.maxRetryDelayMs ?? 30_000
  const credentials = { apiKey: options.apiKey, apiSecret: options.apiSecret }

  // full jitter over an exponential ceiling: 0.5 s, 1 s, 2 s, … (at most maxDelayMs)
  const backoffMs = (retry: number) => Math.random() * Math.min(maxDelayMs, 500 * 2 ** retry)

  return async function request<T>(call: ApiRequest): Promise<ApiAnswer<T>> {
    const url = new URL(`${root}${call.path}`)
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value)
    }
    const body = call.body === undefined ? undefined : JSON.stringify(call.body)
    // the signed path is the request target fetch puts on the wire
    const target = `${url.pathname}${url.search}`
    let answerLost = false
    for (let retry = 0; ; retry++) {
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(await signRequest(credentials, { method: call.method, path: target, body: body ?? '' }, now())),
      }
      let response: Response
      try {
        response = await send(url, {
          method: call.method,
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        if (call.retry === 'always' && retry < maxRetries) {
          answerLost = true
          await sleep(backoffMs(retry))
          continue
        }
        throw new ChainpayConnectionError(
          `${call.method} ${target}: no answer from ${url.origin} (${String(error)})`,
          {
            cause: error,
          },
        )
      }
      if (response.ok) {
        const text = await response.text()
        return {
          status: response.status,
          headers: response.headers,
          data: (text === '' ? null : JSON.parse(text)) as T,
        }
      }
      const error = await errorFrom(response)
      if (response.status === 404 && answerLost && call.goneOnRetryIsDone) {
        return { status: 204, headers: response.headers, data: null as T }
      }
      const waitMs = Math.max(backoffMs(retry), (error.retryAfter ?? 0) * 1000)
      if (
        (response.status === 503 || response.status === 429) &&
        retry < maxRetries &&
        waitMs <= maxDelayMs
      ) {
        await sleep(waitMs)
        continue
      }
      throw error
    }
  }
}
