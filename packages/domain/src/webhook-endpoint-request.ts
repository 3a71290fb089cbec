// What a merchant may send to create or change a webhook endpoint (docs/api.md, "Webhook
// endpoints"): the one place these bodies are validated. The webhook kinds come in, so that the list
// stays @chainpay/contracts' alone.

import { displayTextProblem } from './display-text.js'
import { DomainError } from './errors.js'
import { callbackUrlProblem } from './url-policy.js'

export const webhookEndpointLimits = {
  /** endpoints per merchant */
  perMerchant: 16,
  descriptionMaxLength: 200,
  /** how long the previous secret still signs after a rotation, hours */
  rotationOverlapHours: { default: 24, min: 0, max: 168 },
} as const

export interface WebhookEndpointInput {
  url?: string
  /** null: every kind */
  events?: string[] | null
  description?: string | null
  enabled?: boolean
}

export interface WebhookEndpointRules {
  /** the webhook kinds there are */
  kinds: readonly string[]
  /** development: http and private hosts allowed, as for callbackUrl */
  allowInsecure: boolean
}

/** a create body: `url` required, `events` (default every kind) and `description` optional */
export function validateNewWebhookEndpoint(body: unknown, rules: WebhookEndpointRules): WebhookEndpointInput {
  const input = validateFields(body, rules, ['url', 'events', 'description'])
  if (input.url === undefined) throw invalid('url: is required')
  return input
}

/** a PATCH body: at least one of `url`, `events`, `enabled`, `description` */
export function validateWebhookEndpointPatch(
  body: unknown,
  rules: WebhookEndpointRules,
): WebhookEndpointInput {
  const input = validateFields(body, rules, ['url', 'events', 'enabled', 'description'])
  if (Object.keys(input).length === 0)
    throw invalid('body: must change at least one of url, events, enabled, description')
  return input
}

/** a rotate-secret body: empty, {} or {"expiresInHours": 0..168}; the overlap in hours */
export function validateSecretRotation(body: unknown): number {
  const { default: fallback, min, max } = webhookEndpointLimits.rotationOverlapHours
  if (body === undefined || body === null) return fallback
  const object = asObject(body)
  for (const field of Object.keys(object)) {
    if (field !== 'expiresInHours') throw invalid(`${field}: unknown field`)
  }
  const hours = object.expiresInHours
  if (hours === undefined) return fallback
  if (typeof hours !== 'number' || !Number.isInteger(hours) || hours < min || hours > max) {
    throw invalid(`expiresInHours: must be an integer from ${min} to ${max}`)
  }
  return hours
}

function validateFields(
  body: unknown,
  rules: WebhookEndpointRules,
  allowed: readonly string[],
): WebhookEndpointInput {
  const object = asObject(body)
  const input: WebhookEndpointInput = {}
  for (const [field, value] of Object.entries(object)) {
    if (!allowed.includes(field)) throw invalid(`${field}: unknown field`)
    switch (field) {
      case 'url': {
        if (typeof value !== 'string') throw invalid('url: must be a string')
        const problem = callbackUrlProblem(value, { allowInsecure: rules.allowInsecure })
        if (problem !== null) throw invalid(`url: ${problem}`)
        input.url = value
        break
      }
      case 'events': {
        if (value === null) {
          input.events = null
          break
        }
        if (!Array.isArray(value) || value.length === 0)
          throw invalid('events: must be a non-empty array of webhook kinds')
        for (const kind of value) {
          if (typeof kind !== 'string' || !rules.kinds.includes(kind)) {
            throw invalid(`events: unknown kind ${JSON.stringify(kind)}; known: ${rules.kinds.join(', ')}`)
          }
        }
        input.events = [...new Set(value as string[])]
        break
      }
      case 'description': {
        if (value !== null && typeof value !== 'string')
          throw invalid('description: must be a string or null')
        if (typeof value === 'string' && value.length > webhookEndpointLimits.descriptionMaxLength) {
          throw invalid(
            `description: must be at most ${webhookEndpointLimits.descriptionMaxLength} characters`,
          )
        }
        const problem = typeof value === 'string' ? displayTextProblem(value) : null
        if (problem !== null) throw invalid(`description: ${problem}`)
        input.description = value
        break
      }
      case 'enabled':
        if (typeof value !== 'boolean') throw invalid('enabled: must be true or false')
        input.enabled = value
        break
    }
  }
  return input
}

function asObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body: must be a JSON object')
  return body as Record<string, unknown>
}

function invalid(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', message)
}
