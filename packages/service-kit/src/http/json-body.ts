// The JSON bodies chainpay's HTTP servers accept (docs/api.md, "Conventions" and "Validation"):
// `application/json` in UTF-8, and a JSON text that means one thing only. JSON.parse alone lets a
// body say one thing to us and another to the merchant's own tools: a repeated key keeps its last
// value (another parser may keep the first), and a number beyond what a 64-bit float carries comes
// back changed (12345678901234567890 as 12345678901234567000). Both are refused, with the field.
//
// JSON.parse stays the parser (exact RFC 8259 grammar, a "__proto__" key is a plain own property);
// jsonc-parser's visitor only walks the text JSON.parse has already accepted, for what JSON.parse
// does not report: each object's keys and each number's source text.

import { DomainError } from '@chainpay/domain'
import type { FastifyInstance } from 'fastify'
import jsonc from 'jsonc-parser'

/** deepest nesting of objects and arrays; the walk descends a few stack frames per level */
export const JSON_MAX_DEPTH = 64

/** null when `contentType` is application/json in UTF-8 (no charset, or utf-8), else the message */
export function jsonMediaTypeProblem(contentType: string | undefined): string | null {
  const [mediaType = '', ...parameters] = (contentType ?? '').split(';')
  if (mediaType.trim().toLowerCase() !== 'application/json') return 'Content-Type: must be application/json'
  for (const parameter of parameters) {
    const separator = parameter.indexOf('=')
    const name = (separator === -1 ? parameter : parameter.slice(0, separator)).trim().toLowerCase()
    if (name !== 'charset') continue
    const value = separator === -1 ? '' : parameter.slice(separator + 1).trim()
    const unquoted = /^"(.*)"$/.exec(value)?.[1] ?? value
    // any other charset would be read as UTF-8 all the same, that is, as something else than was sent
    if (unquoted.toLowerCase() !== 'utf-8') return 'Content-Type: charset must be utf-8'
  }
  return null
}

// fatal: a byte sequence that is not UTF-8 is refused rather than read as U+FFFD, which would make
// different bodies (and idempotency keys) the same text. ignoreBOM: a BOM stays, and JSON.parse
// refuses it as before.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** the text of a body, which must be UTF-8 */
export function decodeUtf8Body(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes)
  } catch {
    throw invalid('body', 'must be valid UTF-8')
  }
}

/**
 * JSON.parse, and then refuses what it would silently change: a key repeated in one object, a
 * number that does not come back with the value written, nesting deeper than JSON_MAX_DEPTH.
 */
export function parseStrictJson(text: string): unknown {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw invalid('body', 'malformed JSON')
  }
  checkJsonText(text)
  return value
}

/** the body of a request: its media type (415), its encoding, then its JSON (400) */
export function parseJsonBody(bytes: Uint8Array, contentType: string | undefined): unknown {
  const problem = jsonMediaTypeProblem(contentType)
  if (problem !== null) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', problem)
  return parseStrictJson(decodeUtf8Body(bytes))
}

/**
 * Replaces fastify's JSON parser (which reads any charset as UTF-8 and keeps the last of repeated
 * keys) with parseJsonBody, for `app` and what it registers afterwards. The error goes to the app's
 * error handler like any other. Not part of createHttpApp: a plugin may not add its own JSON parser
 * below a custom one (fastify refuses), and the chain simulator's node-shaped routes do.
 */
export function acceptStrictJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer, request.headers['content-type']))
    } catch (error) {
      done(error as Error, undefined)
    }
  })
}

/** `text` is valid JSON (JSON.parse accepted it); throws on the first key, number or depth refused */
function checkJsonText(text: string): void {
  const openObjectsKeys: Set<string>[] = []
  let depth = 0
  const enter = () => {
    depth += 1
    // thrown before the walk descends further, so no body can exhaust the stack
    if (depth > JSON_MAX_DEPTH) throw invalid('body', `must not nest deeper than ${JSON_MAX_DEPTH} levels`)
  }
  jsonc.visit(text, {
    onObjectBegin: () => {
      enter()
      openObjectsKeys.push(new Set())
    },
    onObjectEnd: () => {
      depth -= 1
      openObjectsKeys.pop()
    },
    onArrayBegin: () => enter(),
    onArrayEnd: () => {
      depth -= 1
    },
    // the path is that of the object holding the key
    onObjectProperty: (key, _offset, _length, _line, _column, path) => {
      const keys = openObjectsKeys.at(-1)
      if (keys === undefined) return
      if (keys.has(key)) throw invalid(fieldOf(path()), `duplicate key '${shortened(key)}'`)
      keys.add(key)
    },
    onLiteralValue: (value, offset, length, _line, _column, path) => {
      if (typeof value !== 'number') return
      const written = text.slice(offset, offset + length)
      if (!carriedExactly(written)) {
        throw invalid(
          fieldOf(path()),
          `the number ${shortened(written)} would not come back as sent (JSON numbers are 64-bit floats here); send it as a string`,
        )
      }
    },
  })
}

/**
 * Whether the number written as `written` comes back with the same value: what JSON.stringify
 * writes for it must be the same decimal number. 1.0 (as 1), 1e2 (as 100), 1E-7 (as 1e-7) and -0
 * (as 0) do; 12345678901234567890, 0.1000000000000000055511151231257827, 1e400 and 1e-400 do not.
 */
export function carriedExactly(written: string): boolean {
  const value = Number(written)
  if (!Number.isFinite(value)) return false
  return decimalValue(written) === decimalValue(String(value))
}

/** a JSON number's value as `${sign}${digits}e${exponent}`, digits without leading or trailing zeros; '0' for zero */
function decimalValue(number: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(number)
  if (match === null) return `not a number: ${number}`
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match
  const digits = `${whole}${fraction}`.replace(/^0+/, '')
  if (digits === '') return '0'
  // not /0+$/: tried at every zero of a long run that is not at the end, that regex takes time
  // proportional to the square of the run, and a signed body of 64 KiB held the event loop for seconds
  let end = digits.length
  while (digits.charCodeAt(end - 1) === 48) end -= 1
  const significant = digits.slice(0, end)
  const scale = Number(exponent) - fraction.length + (digits.length - significant.length)
  return `${sign}${significant}e${scale}`
}

/** 'metadata.n' for ['metadata', 'n'], 'body' for the body itself (as schema errors name fields) */
function fieldOf(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? 'body' : path.join('.')
}

function shortened(text: string): string {
  return text.length > 40 ? `${text.slice(0, 32)}…` : text
}

function invalid(field: string, rule: string): DomainError {
  return new DomainError('VALIDATION_ERROR', `${field}: ${rule}`)
}
