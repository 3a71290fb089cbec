// One GET of a JSON document from a price API (undici), with a deadline for the whole exchange;
// every way it can fail becomes a RateSourceFailure of the source that asked. The body is parsed
// with each number's source text kept (JSON.parse's context.source), so that a price written as a
// JSON number reaches the rate as the digits the source sent, never through a float.

import { Agent, errors, request } from 'undici'
import { RateSourceFailure } from './rate-source.js'

/** a JSON number, as its exact text */
export class JsonNumberText {
  constructor(readonly text: string) {}
}

export interface JsonGetter {
  get(url: string, headers?: Record<string, string>): Promise<unknown>
  close(): Promise<void>
}

/** the largest answer read: a price is a few hundred bytes; anything bigger is not the documented shape */
const MAX_BODY_BYTES = 256 * 1024

export function createJsonGetter(source: string, timeoutMs: number): JsonGetter {
  const agent = new Agent({
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: { timeout: timeoutMs },
  })
  return {
    async get(url, headers = {}) {
      let text: string
      let status: number
      try {
        const response = await request(url, {
          method: 'GET',
          dispatcher: agent,
          headers: { accept: 'application/json', ...headers },
          signal: AbortSignal.timeout(timeoutMs),
        })
        status = response.statusCode
        text = await readBounded(response.body)
      } catch (error) {
        throw failureOf(source, error, timeoutMs)
      }
      if (status !== 200) {
        throw new RateSourceFailure(source, 'http_status', `answered HTTP ${status}`)
      }
      try {
        return parseJsonKeepingNumbers(text)
      } catch {
        throw new RateSourceFailure(source, 'malformed', 'answered a body that is not JSON')
      }
    },
    close: () => agent.close(),
  }
}

async function readBounded(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      body.destroy()
      throw new BodyTooLargeError()
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

class BodyTooLargeError extends Error {}

function failureOf(source: string, error: unknown, timeoutMs: number): RateSourceFailure {
  if (error instanceof BodyTooLargeError) {
    return new RateSourceFailure(source, 'malformed', `answered more than ${MAX_BODY_BYTES} bytes`)
  }
  const timedOut =
    error instanceof errors.HeadersTimeoutError ||
    error instanceof errors.BodyTimeoutError ||
    error instanceof errors.ConnectTimeoutError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
  if (timedOut) return new RateSourceFailure(source, 'timeout', `no answer within ${timeoutMs} ms`)
  const message = error instanceof Error ? error.message : String(error)
  return new RateSourceFailure(source, 'unreachable', `no answer: ${message}`)
}

/** JSON.parse, with every number kept as its source text (a JsonNumberText) */
export function parseJsonKeepingNumbers(text: string): unknown {
  const reviver = (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? new JsonNumberText(context.source) : value
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumberText)
  )
}
