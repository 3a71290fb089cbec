// Bodies arrive as raw bytes: the signature covers the bytes as sent, and they are decoded (UTF-8
// only) and parsed as JSON only after the request is authenticated (auth.ts).

import { DomainError } from '@chainpay/domain'
import { payloadTooLargeMessage } from '@chainpay/service-kit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { BODY_LIMIT_BYTES } from './limits.js'

/**
 * Replaces fastify's parsers with one that only collects the body's bytes, for every content type
 * (and none): read as a string, bytes that are not UTF-8 would already be U+FFFD. fastify enforces
 * the body limit while reading: a larger body is 413.
 */
export function collectRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
}

/**
 * The raw body: what the parser collected, or, for a GET (fastify never reads a GET's body), read
 * here with the same limit.
 */
export async function readRawBody(request: FastifyRequest): Promise<Buffer> {
  if (Buffer.isBuffer(request.body)) return request.body
  if (request.body !== undefined && request.body !== null) {
    throw new Error('readRawBody: the body was parsed before authentication')
  }
  const { headers } = request.raw
  const declared = headers['content-length']
  if (headers['transfer-encoding'] === undefined && (declared === undefined || declared === '0')) {
    return Buffer.alloc(0)
  }
  if (declared !== undefined && Number(declared) > BODY_LIMIT_BYTES) throw payloadTooLarge()
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request.raw) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    size += bytes.length
    if (size > BODY_LIMIT_BYTES) throw payloadTooLarge()
    chunks.push(bytes)
  }
  return Buffer.concat(chunks)
}

function payloadTooLarge(): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', payloadTooLargeMessage(BODY_LIMIT_BYTES))
}
