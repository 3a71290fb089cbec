import { statusByErrorCode } from '@chainpay/contracts'
import { DomainError, ErrorCodes } from '@chainpay/domain'
import { StoreUnavailableError, UnavailableError } from '@chainpay/ports'
import { describe, expect, it } from 'vitest'
import { describeValidationErrors, pathOf, toErrorAnswer } from './errors.js'
import { requestIdFor, saneRequestId } from './request-id.js'

describe('toErrorAnswer', () => {
  it('answers every domain error code with the status of docs/api.md, "Errors"', () => {
    // the table itself is pinned to docs/api.md, value by value, in contracts' errors test
    for (const code of ErrorCodes) {
      if (code === 'INTERNAL_ERROR') continue
      const answer = toErrorAnswer(new DomainError(code, `${code} happened`), 'req-1')
      expect(answer.status, code).toBe(statusByErrorCode[code])
      expect(answer.body).toEqual({ error: { code, message: `${code} happened` } })
    }
  })

  it('hides the message of anything unexpected behind the request id', () => {
    for (const error of [
      new Error('SQLITE_BUSY at /var/lib/chainpay'),
      new DomainError('INTERNAL_ERROR', 'payment state is missing'),
      'a thrown string',
    ]) {
      const answer = toErrorAnswer(error, 'req-42')
      expect(answer).toEqual({
        status: 500,
        body: { error: { code: 'INTERNAL_ERROR', message: 'internal error; request id req-42' } },
        headers: {},
        unexpected: true,
      })
    }
  })

  it("answers a port's UnavailableError with 503 and Retry-After, saying nothing internal", () => {
    for (const error of [
      new UnavailableError('payment-command http://10.0.0.7:8090 refused the connection'),
      new StoreUnavailableError('SQLite: database is locked'),
      new Error('appending to payment-1 failed', { cause: new StoreUnavailableError('MongoDB: timeout') }),
    ]) {
      const answer = toErrorAnswer(error, 'req-1')
      expect(answer).toMatchObject({ status: 503, unexpected: true })
      expect(answer.body).toEqual({
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'a service chainpay depends on is unavailable; retry later',
        },
      })
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0)
    }
  })

  it('answers an error no port translated with 500, whatever its driver meant (adapters translate)', () => {
    // shaped as node:sqlite throws them: only its adapter knows that code 5 is "busy"
    const sqliteError = Object.assign(new Error('database is locked'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 5,
    })
    expect(toErrorAnswer(sqliteError, 'req-2')).toMatchObject({ status: 500, headers: {} })
  })

  it("maps fastify's body errors to the merchant codes", () => {
    const fastifyError = (code: string, statusCode: number) =>
      Object.assign(new Error(code), { code, statusCode })
    expect(toErrorAnswer(fastifyError('FST_ERR_CTP_BODY_TOO_LARGE', 413), 'r', 65_536).body).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'body: larger than the limit of 64 KiB' },
    })
    expect(toErrorAnswer(fastifyError('FST_ERR_CTP_INVALID_MEDIA_TYPE', 415), 'r').body.error.code).toBe(
      'UNSUPPORTED_MEDIA_TYPE',
    )
    expect(toErrorAnswer(fastifyError('FST_ERR_CTP_INVALID_JSON_BODY', 400), 'r').body).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'body: malformed JSON' },
    })
    expect(toErrorAnswer(fastifyError('FST_ERR_SOMETHING_NEW', 500), 'r').status).toBe(500)
  })

  it("answers a body cut short by the caller or the request timeout as the caller's doing, not a 500", () => {
    // what Node hands the body reader when the connection closes mid-body
    const aborted = Object.assign(new Error('aborted'), { code: 'ECONNRESET', statusCode: 400 })
    expect(toErrorAnswer(aborted, 'r')).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', message: 'body: cut short' } },
      unexpected: false,
    })
    const elsewhere = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })
    expect(toErrorAnswer(elsewhere, 'r')).toMatchObject({ status: 500, unexpected: true })
  })
})

describe('describeValidationErrors', () => {
  const describeOne = (problem: Record<string, unknown>) =>
    describeValidationErrors([{ params: {}, ...problem } as never], 'body')

  it('names the field and the rule', () => {
    expect(describeOne({ instancePath: '/amount', keyword: 'type', params: { type: 'string' } })).toBe(
      'amount: must be a string',
    )
    expect(
      describeOne({
        instancePath: '',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'foo' },
      }),
    ).toBe("body: unknown field 'foo'")
    expect(
      describeOne({ instancePath: '', keyword: 'required', params: { missingProperty: 'network' } }),
    ).toBe('network: is required')
    expect(
      describeOne({ instancePath: '/expiresInMinutes', keyword: 'maximum', params: { limit: 1440 } }),
    ).toBe('expiresInMinutes: must be at most 1440')
    expect(describeOne({ instancePath: '/callbackUrl', keyword: 'format', params: { format: 'uri' } })).toBe(
      'callbackUrl: must be an absolute http(s) URL',
    )
  })

  it('writes nested and escaped paths as dotted field names', () => {
    expect(
      describeOne({ instancePath: '/metadata/a~1b~0c', keyword: 'maxLength', params: { limit: 500 } }),
    ).toBe('metadata.a/b~c: must be at most 500 characters')
  })

  it('reports a union by its most telling branch', () => {
    const branch = (keyword: string, params: Record<string, unknown>) => ({
      instancePath: '/metadata/note',
      keyword,
      params,
    })
    const tooLong = [
      branch('maxLength', { limit: 500 }),
      branch('type', { type: 'number' }),
      branch('type', { type: 'boolean' }),
      branch('type', { type: 'null' }),
      branch('anyOf', {}),
    ]
    expect(describeValidationErrors(tooLong as never, 'body')).toBe(
      'metadata.note: must be at most 500 characters',
    )
    const wrongType = [
      branch('type', { type: 'string' }),
      branch('type', { type: 'number' }),
      branch('type', { type: 'boolean' }),
      branch('type', { type: 'null' }),
      branch('anyOf', {}),
    ]
    expect(describeValidationErrors(wrongType as never, 'body')).toBe(
      'metadata.note: must be a string, a number, a boolean or null',
    )
  })

  it('names the context outside the body', () => {
    expect(
      describeValidationErrors(
        [{ instancePath: '/paymentId', keyword: 'type', params: { type: 'string' } }],
        'params',
      ),
    ).toBe('params.paymentId: must be a string')
  })
})

describe('request ids', () => {
  it('keeps a sane caller id and replaces anything else with a UUID', () => {
    expect(saneRequestId('abc-123_x.y:z')).toBe('abc-123_x.y:z')
    expect(saneRequestId('a'.repeat(128))).toBe('a'.repeat(128))
    for (const insane of ['', 'a'.repeat(129), 'has space', 'new\nline', 'émoji', undefined, ['a', 'b']]) {
      expect(saneRequestId(insane)).toBeNull()
    }
    const generated = requestIdFor({ headers: { 'x-request-id': 'bad id' } } as never)
    expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('paths drop the query string', () => {
    expect(pathOf('/api/merchant/v1/payments?secret=1')).toBe('/api/merchant/v1/payments')
    expect(pathOf('/healthz')).toBe('/healthz')
  })
})
