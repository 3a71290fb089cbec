// Merchant authentication (docs/api.md, "Authentication"): every /api/merchant/v1 request is signed with an
// API secret over `${timestamp}.${METHOD}.${path}.${body}`. It is checked before the body is even
// parsed, so that an unauthenticated caller learns nothing about what the API would accept.

import type { ApiKeyAuthenticator } from '@chainpay/admin-api'
import { DomainError } from '@chainpay/domain'
import type { Clock } from '@chainpay/platform'
import type { MerchantRecord } from '@chainpay/ports'
import { parseJsonBody } from '@chainpay/service-kit'
import { API_SIGNATURE_HEADERS, checkApiTimestamp, verifyApiSignature } from '@chainpay/signing'
import type { FastifyRequest } from 'fastify'
import { readRawBody } from './http/raw-body.js'

/** The merchant, as authentication found it, on every authenticated request. */
export interface MerchantCaller {
  apiKey: string
  merchant: MerchantRecord
}

declare module 'fastify' {
  interface FastifyRequest {
    /** set by authentication; null before it and on unauthenticated routes */
    caller: MerchantCaller | null
    /** the body's text, '' when there is none; the signature covers its bytes as received */
    rawBody: string
  }
}

const HEADER_NAMES = {
  [API_SIGNATURE_HEADERS.key]: 'X-Service-Key',
  [API_SIGNATURE_HEADERS.timestamp]: 'X-Service-Timestamp',
  [API_SIGNATURE_HEADERS.signature]: 'X-Service-Signature',
} as const

/**
 * The preValidation hook of every authenticated route: headers, timestamp, key, signature over the
 * raw request, and only then the body: JSON media type in UTF-8, then the strict JSON parse into
 * request.body (service-kit's parseJsonBody). A GET's body is signed but never validated.
 */
export function merchantAuthentication(deps: { authenticator: ApiKeyAuthenticator; clock: Clock }) {
  return async (request: FastifyRequest): Promise<void> => {
    const headers = readAuthHeaders(request)
    const timestampCheck = checkApiTimestamp(headers.timestamp, deps.clock.now().getTime())
    if (timestampCheck === 'malformed') {
      throw new DomainError('INVALID_TIMESTAMP', 'X-Service-Timestamp: must be Unix time in milliseconds')
    }
    if (timestampCheck === 'outside_window') {
      throw new DomainError(
        'INVALID_TIMESTAMP',
        'X-Service-Timestamp: more than 5 minutes away from the server clock',
      )
    }
    const found = await deps.authenticator.authenticate(headers.key)
    if (found === null)
      throw new DomainError('INVALID_API_KEY', 'X-Service-Key: unknown, revoked or expired API key')

    const rawBody = await readRawBody(request)
    const signed = {
      timestamp: headers.timestamp,
      method: request.raw.method ?? request.method,
      path: request.raw.url ?? request.url,
      body: rawBody,
    }
    if (!verifyApiSignature(found.apiSecret, signed, headers.signature)) {
      throw new DomainError('INVALID_SIGNATURE', 'X-Service-Signature: does not match the request')
    }
    request.caller = { apiKey: headers.key, merchant: found.merchant }
    request.body = parseAuthenticatedBody(request, rawBody)
    // valid UTF-8 once parsed; a GET's body is never parsed, and its text never looked at
    request.rawBody = rawBody.toString('utf8')
  }
}

function readAuthHeaders(request: FastifyRequest): { key: string; timestamp: string; signature: string } {
  const value = (name: keyof typeof HEADER_NAMES) => {
    const header = request.headers[name]
    return typeof header === 'string' && header !== '' ? header : undefined
  }
  const key = value(API_SIGNATURE_HEADERS.key)
  const timestamp = value(API_SIGNATURE_HEADERS.timestamp)
  const signature = value(API_SIGNATURE_HEADERS.signature)
  if (key === undefined || timestamp === undefined || signature === undefined) {
    const missing = Object.entries(HEADER_NAMES)
      .filter(([name]) => value(name as keyof typeof HEADER_NAMES) === undefined)
      .map(([, display]) => display)
    throw new DomainError('MISSING_AUTH_HEADERS', `missing header: ${missing.join(', ')}`)
  }
  return { key, timestamp, signature }
}

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE'])

/** the JSON body, after its media type and charset (415), its UTF-8 and its JSON (400) are checked */
function parseAuthenticatedBody(request: FastifyRequest, rawBody: Buffer): unknown {
  if (BODYLESS_METHODS.has(request.method) || rawBody.length === 0) return undefined
  return parseJsonBody(rawBody, request.headers['content-type'])
}
