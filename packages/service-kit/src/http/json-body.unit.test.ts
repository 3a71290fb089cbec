import { describe, expect, it } from 'vitest'
import {
  carriedExactly,
  decodeUtf8Body,
  JSON_MAX_DEPTH,
  jsonMediaTypeProblem,
  parseJsonBody,
  parseStrictJson,
} from './json-body.js'

/** the DomainError code and message `run` throws */
function failure(run: () => unknown): { code: string; message: string } {
  try {
    run()
  } catch (error) {
    const { code, message } = error as { code: string; message: string }
    return { code, message }
  }
  throw new Error('expected a DomainError, nothing was thrown')
}

describe('jsonMediaTypeProblem (docs/api.md, "Conventions")', () => {
  it.each([
    'application/json',
    'Application/JSON',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json; boundary=x; Charset=Utf-8',
  ])('accepts %s', (contentType) => {
    expect(jsonMediaTypeProblem(contentType)).toBeNull()
  })

  it.each([[undefined], [''], ['text/plain'], ['application/json-patch+json'], ['application/jsonx']])(
    'wants application/json, not %j',
    (contentType) => {
      expect(jsonMediaTypeProblem(contentType)).toBe('Content-Type: must be application/json')
    },
  )

  it.each([
    'application/json; charset=utf-16',
    'application/json; charset=UTF-16BE',
    'application/json; charset=utf8',
    'application/json; charset=iso-8859-1',
    'application/json; charset="utf-16"',
    'application/json; charset=',
    'application/json; charset',
    'application/json; charset=utf-8; charset=utf-16',
  ])('wants charset utf-8, not %s', (contentType) => {
    expect(jsonMediaTypeProblem(contentType)).toBe('Content-Type: charset must be utf-8')
  })
})

describe('decodeUtf8Body', () => {
  it('reads UTF-8, a BOM included (for JSON.parse to refuse)', () => {
    expect(decodeUtf8Body(Buffer.from('{"a":"café ☕ 💸"}'))).toBe('{"a":"café ☕ 💸"}')
    expect(decodeUtf8Body(Buffer.from('\ufeff{}'))).toBe('\ufeff{}')
  })

  it.each([
    ['a byte that is never UTF-8', [0x61, 0xff]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
    ['a sequence cut short', [0xe2, 0x82]],
    ['a continuation byte alone', [0x80]],
  ])('refuses %s, which would be read as U+FFFD', (_what, bytes) => {
    expect(failure(() => decodeUtf8Body(Buffer.from(bytes)))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'body: must be valid UTF-8',
    })
  })
})

describe('parseStrictJson', () => {
  const invalid = (message: string) => ({ code: 'VALIDATION_ERROR', message })

  it('parses what JSON.parse parses, a "__proto__" key as a plain property', () => {
    const parsed = parseStrictJson('{"a":[1,{"b":null}],"__proto__":{"polluted":true}}') as Record<
      string,
      unknown
    >
    expect(parsed.a).toEqual([1, { b: null }])
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it.each(['', '{', '{"a":1,}', '{"a":1} x', "{'a':1}", '{"a":01}', '\ufeff{}', '// c\n{}', 'NaN'])(
    'refuses the malformed %j',
    (text) => {
      expect(failure(() => parseStrictJson(text))).toEqual(invalid('body: malformed JSON'))
    },
  )

  it.each([
    ['{"a":1,"a":1}', "body: duplicate key 'a'"],
    ['{"a":1,"b":{"c":1,"c":2}}', "b: duplicate key 'c'"],
    ['{"m":{"x":[{"k":1},{"k":1,"k":2}]}}', "m.x.1: duplicate key 'k'"],
    ['[{"k":1,"k":2}]', "0: duplicate key 'k'"],
    ['{"a":1,"\\u0061":2}', "body: duplicate key 'a'"],
    ['{"__proto__":1,"__proto__":2}', "body: duplicate key '__proto__'"],
    ['{"":1,"":2}', "body: duplicate key ''"],
    [`{"${'k'.repeat(100)}":1,"${'k'.repeat(100)}":2}`, `body: duplicate key '${'k'.repeat(32)}…'`],
  ])('refuses a repeated key: %s', (text, message) => {
    expect(failure(() => parseStrictJson(text))).toEqual(invalid(message))
  })

  it.each([
    '{"a":{"k":1},"b":{"k":1}}',
    '{"k":{"k":{"k":1}}}',
    '[{"k":1},{"k":2}]',
    '{"a":1,"A":2,"a ":3}',
    '{"\\ud800":1,"\\ud801":2}',
  ])('keeps keys apart that are not the same: %s', (text) => {
    expect(parseStrictJson(text)).toEqual(JSON.parse(text))
  })

  it('names the field of a number that would change, and shortens a long one', () => {
    expect(failure(() => parseStrictJson('{"metadata":{"n":12345678901234567890}}'))).toEqual(
      invalid(
        'metadata.n: the number 12345678901234567890 would not come back as sent (JSON numbers are 64-bit floats here); send it as a string',
      ),
    )
    expect(failure(() => parseStrictJson(`[1,${'9'.repeat(100)}]`)).message).toMatch(
      /^1: the number 9{32}… would not come back as sent/,
    )
  })

  it(`accepts ${JSON_MAX_DEPTH} levels of nesting and refuses more, however many more`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
    expect(parseStrictJson(nested(JSON_MAX_DEPTH))).toBeDefined()
    expect(parseStrictJson(`{"a":${nested(JSON_MAX_DEPTH - 1)}}`)).toBeDefined()
    for (const depth of [JSON_MAX_DEPTH + 1, 60_000]) {
      expect(failure(() => parseStrictJson(nested(depth)))).toEqual(
        invalid(`body: must not nest deeper than ${JSON_MAX_DEPTH} levels`),
      )
    }
    expect(failure(() => parseStrictJson(`{"a":${nested(JSON_MAX_DEPTH)}}`)).message).toBe(
      `body: must not nest deeper than ${JSON_MAX_DEPTH} levels`,
    )
  })
})

describe('carriedExactly', () => {
  it.each([
    '0',
    '-0',
    '0.0',
    '0e5',
    '1',
    '1.0',
    '1.50',
    '1e2',
    '1E+2',
    '100e-2',
    '0.1',
    '0.30000000000000004',
    '1e21',
    '1e-7',
    '0.0000001',
    '-2.5e-3',
    '9007199254740991',
    '9007199254740992',
    '123456789012345680000',
    '1.7976931348623157e308',
    '5e-324',
  ])('%s comes back with the value written', (written) => {
    expect(carriedExactly(written)).toBe(true)
  })

  it.each([
    '12345678901234567890',
    '9007199254740993',
    '0.1000000000000000055511151231257827',
    '0.30000000000000001',
    '1e400',
    '-1e400',
    '1.7976931348623159e308',
    '1e-400',
    '2e-324',
    `0.${'0'.repeat(400)}1`,
  ])('%s does not', (written) => {
    expect(carriedExactly(written)).toBe(false)
  })

  // the shape of a 64 KiB signed body that made a /0+$/ regex hold the event loop for seconds
  it('reads a run of 60 000 zeros, trailing or followed by a digit', () => {
    expect(carriedExactly(`1.${'0'.repeat(60_000)}`)).toBe(true)
    expect(carriedExactly(`1.${'0'.repeat(60_000)}1`)).toBe(false)
    expect(carriedExactly(`1${'0'.repeat(20)}`)).toBe(true)
  })
})

describe('parseJsonBody', () => {
  it('checks the media type (415), then UTF-8, then the JSON (400)', () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x7d])
    expect(failure(() => parseJsonBody(bytes, 'application/json; charset=utf-16')).code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    )
    expect(failure(() => parseJsonBody(bytes, 'application/json')).message).toBe('body: must be valid UTF-8')
    expect(failure(() => parseJsonBody(Buffer.from('{"a":1,"a":2}'), 'application/json')).message).toBe(
      "body: duplicate key 'a'",
    )
    expect(parseJsonBody(Buffer.from('{"a":"☕"}'), 'application/json; charset=UTF-8')).toEqual({ a: '☕' })
  })
})
