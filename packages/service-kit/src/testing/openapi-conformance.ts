// For the merchant API's tests in both shapes: every response the tests provoke, checked against the
// OpenAPI document the gateway serves (docs/api.md). A response of a documented operation
// must have a documented status and a body its schema accepts, so that the document cannot drift from
// what is served. Responses of what the document does not describe (health, metrics, the document
// itself, an unknown path or method) are left alone.

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

export interface ServedResponse {
  method: string
  /** the request target as sent, query string included */
  url: string
  statusCode: number
  contentType: string | undefined
  body: string
}

type Json = Record<string, unknown>

const API_BASE_PATH = '/api/merchant/v1'
const DOCUMENT_ID = 'openapi.json'
// ajv-formats is CommonJS: its function is the default export's default under NodeNext
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

interface Checker {
  document: Json
  ajv: Ajv2020
  validators: Map<string, ValidateFunction>
}

/** one checker per document text: the tests of a run all see the same document */
const checkers = new Map<string, Checker>()

/**
 * What is wrong with each response against `documentText` (the served openapi.json), one line per
 * problem; empty when every response conforms.
 */
export function openApiProblems(documentText: string, responses: readonly ServedResponse[]): string[] {
  let checker = checkers.get(documentText)
  if (checker === undefined) {
    const document = JSON.parse(documentText) as Json
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
    ajv.addSchema(document, DOCUMENT_ID)
    checker = { document, ajv, validators: new Map() }
    checkers.set(documentText, checker)
  }
  const using = checker
  return responses.flatMap((response) =>
    problemsOf(using, response).map((problem) => `${describe(response)}: ${problem}`),
  )
}

function problemsOf({ document, ajv, validators }: Checker, response: ServedResponse): string[] {
  const operation = operationOf(document, response)
  if (operation === null) return []
  const responses = operation.operation.responses as Json
  const status = String(response.statusCode)
  const declared = status in responses ? status : 'default' in responses ? 'default' : null
  if (declared === null) return [`status ${status} is not documented`]
  const pointer = `/paths/${pointerSegment(operation.template)}/${operation.method}/responses/${declared}`
  const { target, pointer: resolved } = resolve(document, responses[declared] as Json, pointer)
  const content = target.content as Record<string, Json> | undefined
  if (content === undefined) return response.body === '' ? [] : ['a body where the document declares none']
  if (!response.contentType?.startsWith('application/json')) {
    return [`content type ${String(response.contentType)}, documented application/json`]
  }
  const schemaPointer = `${resolved}/content/application~1json/schema`
  let validate = validators.get(schemaPointer)
  if (validate === undefined) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${schemaPointer}` })
    validators.set(schemaPointer, validate)
  }
  if (validate(JSON.parse(response.body))) return []
  return (validate.errors ?? []).map((error) => `body${error.instancePath} ${error.message ?? 'invalid'}`)
}

function operationOf(
  document: Json,
  response: ServedResponse,
): { template: string; method: string; operation: Json } | null {
  const paths = document.paths as Record<string, Json>
  const path = response.url.split('?')[0] ?? ''
  if (!path.startsWith(`${API_BASE_PATH}/`)) return null
  const relative = path.slice(API_BASE_PATH.length)
  const method = response.method.toLowerCase()
  for (const [template, item] of Object.entries(paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`)
    if (!pattern.test(relative)) continue
    const operation = item[method] as Json | undefined
    return operation === undefined ? null : { template, method, operation }
  }
  return null
}

/** a response object, following its $ref into components, and the pointer where it was found */
function resolve(document: Json, value: Json, pointer: string): { target: Json; pointer: string } {
  const ref = value.$ref
  if (typeof ref !== 'string') return { target: value, pointer }
  const resolved = ref.slice(1)
  const target = resolved
    .split('/')
    .slice(1)
    .reduce<unknown>((node, key) => (node as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], document)
  return resolve(document, target as Json, resolved)
}

function pointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1')
}

function describe(response: ServedResponse): string {
  return `${response.method} ${response.url} ${response.statusCode}`
}
