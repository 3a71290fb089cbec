// The one place where an error becomes an HTTP answer, for every HTTP server of every service
// (docs/api.md, "Errors"): the body is exactly {"error":{"code","message"}}, the status comes from
// the one table in @chainpay/contracts, and nothing internal reaches a caller. A port's
// UnavailableError is 503 with Retry-After; anything unknown is a 500 logged with its details.

import { type ErrorBody, httpStatusOf } from '@chainpay/contracts'
import { DECIMAL_AMOUNT_PATTERN, DomainError, type ErrorCode, isDomainError } from '@chainpay/domain'
import { isUnavailable } from '@chainpay/ports'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'

/** seconds a caller is asked to wait after a 503 */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5

export interface ErrorAnswer {
  status: number
  body: ErrorBody
  headers: Record<string, string>
  /** an error the operator must look at: logged with its details, which the caller never sees */
  unexpected: boolean
}

export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { error: { code, message } }
}

/**
 * The answer for anything thrown while handling a request. `bodyLimitBytes`: the limit a too large
 * body broke, for the message.
 */
export function toErrorAnswer(error: unknown, requestId: string, bodyLimitBytes?: number): ErrorAnswer {
  const answer = (code: ErrorCode, message: string, headers: Record<string, string> = {}): ErrorAnswer => ({
    status: httpStatusOf(code),
    body: errorBody(code, message),
    headers,
    unexpected: false,
  })
  if (isDomainError(error)) {
    // INTERNAL_ERROR raised by our own code carries internals in its message: hide it like any other.
    if (error.code === 'INTERNAL_ERROR') return internalError(requestId)
    // a dependency down, or no usable exchange rate now (docs/api.md, "Prices in fiat"): try again
    if (error.code !== 'SERVICE_UNAVAILABLE' && error.code !== 'RATE_UNAVAILABLE') {
      return answer(error.code, error.message)
    }
    return answer(error.code, error.message, {
      'retry-after': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
    })
  }
  if (isUnavailable(error)) {
    return {
      ...answer('SERVICE_UNAVAILABLE', 'a service chainpay depends on is unavailable; retry later', {
        'retry-after': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
      }),
      // worth an operator's attention, but the caller has its answer
      unexpected: true,
    }
  }
  if ((error as Partial<FastifyError>).code === 'FST_ERR_HANDLER_TIMEOUT') {
    // http-app.ts's deadline: the request waited on something that did not answer in time
    return {
      ...answer(
        'SERVICE_UNAVAILABLE',
        'the request took too long and may still complete; retry later (a create with its same idempotency key)',
        {
          'retry-after': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS),
        },
      ),
      unexpected: true,
    }
  }
  const framework = frameworkErrorAnswer(error as Partial<FastifyError>, bodyLimitBytes)
  if (framework) return answer(framework.code, framework.message)
  return internalError(requestId)
}

function internalError(requestId: string): ErrorAnswer {
  return {
    status: 500,
    body: errorBody('INTERNAL_ERROR', `internal error; request id ${requestId}`),
    headers: {},
    unexpected: true,
  }
}

/** fastify's own errors: schema validation, body parsing and size, routing */
function frameworkErrorAnswer(
  error: Partial<FastifyError>,
  bodyLimitBytes: number | undefined,
): { code: ErrorCode; message: string } | null {
  if (Array.isArray(error.validation)) {
    return {
      code: 'VALIDATION_ERROR',
      message: describeValidationErrors(error.validation, error.validationContext ?? 'body'),
    }
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 'PAYLOAD_TOO_LARGE', message: payloadTooLargeMessage(bodyLimitBytes) }
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type: must be application/json' }
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 'VALIDATION_ERROR', message: 'body: malformed JSON' }
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { code: 'VALIDATION_ERROR', message: 'Content-Length: does not match the body' }
    case 'FST_ERR_BAD_URL':
      return { code: 'VALIDATION_ERROR', message: 'path: malformed URL' }
    case 'ECONNRESET':
      // Node's error for a body cut short: the caller hung up, or the request timeout closed it
      if (error.message === 'aborted') return { code: 'VALIDATION_ERROR', message: 'body: cut short' }
      break
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // only past http-app.ts's MAX_PATH_PARAMETER_LENGTH, with Node's header limit raised
      return { code: 'VALIDATION_ERROR', message: 'path: a segment is too long' }
  }
  const status = error.statusCode
  if (typeof error.code === 'string' && error.code.startsWith('FST_') && status === 400) {
    return { code: 'VALIDATION_ERROR', message: 'request: malformed' }
  }
  return null
}

export interface SchemaProblem {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
  message?: string | undefined
  /** set by ajv on the problems of a key checked by propertyNames */
  propertyName?: string | undefined
}

/**
 * One readable sentence that names the field: "amount: must be a string",
 * "body: unknown field 'foo'", "metadata.note: must be at most 500 characters".
 */
export function describeValidationErrors(problems: readonly SchemaProblem[], context: string): string {
  const problem = mostTelling(problems)
  if (problem === undefined) return `${context}: invalid`
  const field = fieldName(problem.instancePath, context)
  const { params } = problem
  switch (problem.keyword) {
    case 'additionalProperties':
      return `${field}: unknown field '${String(params.additionalProperty)}'`
    case 'required': {
      const missing = String(params.missingProperty)
      return `${problem.instancePath === '' ? missing : `${field}.${missing}`}: is required`
    }
    case 'type':
      return `${field}: must be ${article(String(params.type))}`
    case 'anyOf':
      return `${field}: must be ${alternatives(problems, problem.instancePath)}`
    case 'pattern':
      return params.pattern === DECIMAL_AMOUNT_PATTERN
        ? `${field}: must be a decimal string such as "10.5" (no sign, exponent or leading zeros)`
        : `${field}: must match the pattern ${String(params.pattern)}`
    case 'format':
      return params.format === 'uri'
        ? `${field}: must be an absolute http(s) URL`
        : `${field}: must be a valid ${String(params.format)}`
    case 'minimum':
      return `${field}: must be at least ${String(params.limit)}`
    case 'maximum':
      return `${field}: must be at most ${String(params.limit)}`
    case 'minLength':
      return `${field}: must be at least ${String(params.limit)} characters`
    case 'maxLength':
      return `${field}: must be at most ${String(params.limit)} characters`
    case 'maxProperties':
      return `${field}: must have at most ${String(params.limit)} keys`
    case 'minProperties':
      return `${field}: must have at least ${String(params.limit)} keys`
    case 'propertyNames':
      return `${field}: key '${String(params.propertyName)}' is not allowed (${keyRule(problems)})`
    case 'enum':
      return `${field}: must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`
    case 'const':
      return `${field}: must be ${JSON.stringify(params.allowedValue)}`
    default:
      return `${field}: ${problem.message ?? 'is invalid'}`
  }
}

/**
 * ajv stops at the first failing keyword, except inside anyOf, where it reports every branch and then
 * the anyOf itself. A branch that failed on something other than its type (a too-long string) says
 * the most; otherwise the anyOf, which lists the types allowed.
 */
function mostTelling(problems: readonly SchemaProblem[]): SchemaProblem | undefined {
  const anyOf = problems.find((problem) => problem.keyword === 'anyOf')
  if (anyOf === undefined) {
    return problems.find((problem) => problem.keyword === 'propertyNames') ?? problems[0]
  }
  const branches = problems.filter(
    (problem) => problem.instancePath === anyOf.instancePath && problem.keyword !== 'anyOf',
  )
  return branches.find((problem) => problem.keyword !== 'type') ?? anyOf
}

function alternatives(problems: readonly SchemaProblem[], instancePath: string): string {
  const types = problems
    .filter((problem) => problem.instancePath === instancePath && problem.keyword === 'type')
    .map((problem) => String(problem.params.type))
  if (types.length === 0) return 'one of the allowed forms'
  const named = types.map((type) => (type === 'null' ? 'null' : article(type)))
  return named.length === 1 ? (named[0] ?? '') : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`
}

function keyRule(problems: readonly SchemaProblem[]): string {
  const rule = problems.find(
    (problem) => problem.propertyName !== undefined && problem.keyword !== 'propertyNames',
  )
  switch (rule?.keyword) {
    case 'minLength':
      return `keys must be at least ${String(rule.params.limit)} characters`
    case 'maxLength':
      return `keys must be at most ${String(rule.params.limit)} characters`
    case 'pattern':
      return `keys must match ${String(rule.params.pattern)}`
    default:
      return 'invalid key'
  }
}

/** '/metadata/a.b' in the body -> 'metadata.a.b'; '' -> 'body' */
function fieldName(instancePath: string, context: string): string {
  if (instancePath === '') return context
  const segments = instancePath
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
  const field = segments.join('.')
  return context === 'body' ? field : `${context}.${field}`
}

function article(type: string): string {
  switch (type) {
    case 'integer':
      return 'an integer'
    case 'object':
      return 'an object'
    case 'array':
      return 'an array'
    case 'null':
      return 'null'
    default:
      return `a ${type}`
  }
}

/** 'body: larger than the limit of 64 KiB' */
export function payloadTooLargeMessage(bodyLimitBytes: number | undefined): string {
  if (bodyLimitBytes === undefined) return 'body: larger than the limit'
  return `body: larger than the limit of ${bodyLimitBytes % 1024 === 0 ? `${bodyLimitBytes / 1024} KiB` : `${bodyLimitBytes} bytes`}`
}

/** sends the answer for `error`, logging what the caller must not see */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const answer = toErrorAnswer(error, request.id, request.routeOptions.bodyLimit)
  if (answer.unexpected) {
    request.log[answer.status === 500 ? 'error' : 'warn']({ err: error }, 'request failed')
  }
  return reply.code(answer.status).headers(answer.headers).send(answer.body)
}

export function notFoundError(method: string, url: string): DomainError {
  return new DomainError('NOT_FOUND', `no route for ${method} ${pathOf(url)}`)
}

/** the path of a request target, without its query string */
export function pathOf(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}
