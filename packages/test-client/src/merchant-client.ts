// A small merchant API client: every request is signed as docs/api.md, "Authentication" says, and every
// response comes back as data, HTTP errors included, so callers and tests can look at any status.

import type { CreatePaymentBody } from '@chainpay/contracts'
import { apiAuthHeaders } from '@chainpay/signing'

/** how long a request waits for its answer */
const REQUEST_DEADLINE_MS = 90_000

export interface MerchantClientOptions {
  /** the API root, ending in /api/merchant/v1, e.g. https://pay.example.com/api/merchant/v1 */
  baseUrl: string
  apiKey: string
  apiSecret: string
  /** Unix milliseconds for X-Service-Timestamp; Date.now by default */
  now?: () => number
}

export interface ApiResponse {
  status: number
  /** lower-case header names */
  headers: Record<string, string>
  /** parsed JSON; the raw text when it is not JSON; null when empty */
  body: unknown
}

export interface MerchantClient {
  /** POST /payments with the body as JSON, or `rawBody` verbatim */
  createPayment(body: CreatePaymentBody, options?: { rawBody?: string }): Promise<ApiResponse>
  getPayment(paymentId: string): Promise<ApiResponse>
  /** POST /payments/:id/cancel, with no body unless one is given */
  cancelPayment(paymentId: string, options?: { body?: string }): Promise<ApiResponse>
  /**
   * Any request, signed. `path` is relative to the base URL and may carry a query string;
   * extraHeaders are applied last, so they can replace the signing headers.
   */
  request(
    method: string,
    path: string,
    body?: string,
    extraHeaders?: Record<string, string>,
  ): Promise<ApiResponse>
}

function parseBody(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export function createMerchantClient(options: MerchantClientOptions): MerchantClient {
  const base = options.baseUrl.replace(/\/+$/, '')
  const now = options.now ?? Date.now
  const credentials = { apiKey: options.apiKey, apiSecret: options.apiSecret }

  const request: MerchantClient['request'] = async (method, path, body, extraHeaders = {}) => {
    const url = new URL(`${base}${path.startsWith('/') ? path : `/${path}`}`)
    const verb = method.toUpperCase()
    // the signed path is the request target fetch will put on the wire, after URL normalisation
    const target = `${url.pathname}${url.search}`
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...apiAuthHeaders(credentials, { method: verb, path: target, body: body ?? '' }, now()),
      ...extraHeaders,
    }
    // past the server's own deadline for every request (a minute: service-kit's http-app.ts), a
    // request that has no answer fails here, naming itself, rather than holding a test to its timeout
    const response = await fetch(url, {
      method: verb,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    }).catch((error: unknown) => {
      throw new Error(`${verb} ${target}: no answer (${(error as Error).message})`, { cause: error })
    })
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: parseBody(await response.text()),
    }
  }

  const paymentPath = (paymentId: string) => `/payments/${encodeURIComponent(paymentId)}`

  return {
    request,
    createPayment: (body, createOptions = {}) =>
      request('POST', '/payments', createOptions.rawBody ?? JSON.stringify(body)),
    getPayment: (paymentId) => request('GET', paymentPath(paymentId)),
    cancelPayment: (paymentId, cancelOptions = {}) =>
      request('POST', `${paymentPath(paymentId)}/cancel`, cancelOptions.body),
  }
}
