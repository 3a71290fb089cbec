// A merchant's webhook endpoints (docs/api.md, "Webhook endpoints"), what the merchant API's routes
// (packages/gateway/src/routes/webhook-endpoints.ts) and the dashboard's pages both do with them: a
// merchant's own webhook URLs, each with the kinds it wants and a signing secret of its own, shown
// once and sealed at rest. A rotation keeps the old secret signing alongside the new one for an
// overlap, so that receivers can switch without losing a delivery. The bodies are the domain's to
// validate. The merchant's default webhook URL, set by the operator, is shown as the endpoint
// `merchant-default` (managedBy "operator"): read-only, outside the 16-endpoint limit.

import { randomUUID } from 'node:crypto'
import { type WebhookEndpointView, WebhookEventKinds } from '@chainpay/contracts'
import {
  DomainError,
  validateNewWebhookEndpoint,
  validateSecretRotation,
  validateWebhookEndpointPatch,
  webhookEndpointLimits,
} from '@chainpay/domain'
import { type Clock, isoNow, randomToken, type SecretBox } from '@chainpay/platform'
import {
  MERCHANT_DEFAULT_TARGET,
  type MerchantRecord,
  type MerchantStore,
  type WebhookEndpointRecord,
  type WebhookEndpointStore,
  webhookEndpointSecretContext,
} from '@chainpay/ports'

export interface WebhookEndpointActionsDeps {
  webhookEndpoints: WebhookEndpointStore
  /** where the default URL set by the operator is read */
  merchants: Pick<MerchantStore, 'getMerchant'>
  /** seals the endpoints' secrets */
  secretBox: SecretBox
  clock: Clock
  /** development: http and private hosts allowed, as for callbackUrl */
  allowInsecureUrls: boolean
}

/** POST /webhook-endpoints' answer: the endpoint and its secret, shown this once */
export type CreatedWebhookEndpoint = WebhookEndpointView & { secret: string }
/** POST /webhook-endpoints/{id}/rotate-secret's answer */
export interface RotatedEndpointSecret {
  id: string
  secret: string
  previousSecretExpiresAt: string | null
}

export interface WebhookEndpointActions {
  /** the new endpoint and its secret, shown this once */
  create(merchantId: string, body: unknown): Promise<CreatedWebhookEndpoint>
  /** the operator's endpoint first (when set), then the merchant's own, oldest first */
  list(merchantId: string): Promise<WebhookEndpointView[]>
  get(merchantId: string, endpointId: string): Promise<WebhookEndpointView>
  /** a PATCH body: url, events, enabled, description */
  update(merchantId: string, endpointId: string, body: unknown): Promise<WebhookEndpointView>
  remove(merchantId: string, endpointId: string): Promise<void>
  /** the new secret, shown this once; `body` absent: the default overlap (24 h) */
  rotateSecret(merchantId: string, endpointId: string, body: unknown): Promise<RotatedEndpointSecret>
}

export function webhookEndpointActions(deps: WebhookEndpointActionsDeps): WebhookEndpointActions {
  const { webhookEndpoints: store, secretBox, clock } = deps
  const rules = { kinds: WebhookEventKinds, allowInsecure: deps.allowInsecureUrls }

  const found = async (merchantId: string, endpointId: string) => {
    const endpoint = await store.get(merchantId, endpointId)
    if (endpoint === null) throw endpointNotFound(endpointId)
    return endpoint
  }
  /** the default URL as an endpoint; null when the operator set none */
  const operatorEndpoint = async (merchantId: string): Promise<WebhookEndpointView | null> => {
    const merchant = await deps.merchants.getMerchant(merchantId)
    return merchant === null ? null : operatorEndpointView(merchant)
  }
  /** a change to the operator's endpoint is refused (404 when there is none), whatever the body */
  const refuseOperatorEndpoint = async (merchantId: string, endpointId: string) => {
    if (endpointId !== MERCHANT_DEFAULT_TARGET) return
    if ((await operatorEndpoint(merchantId)) === null) throw endpointNotFound(endpointId)
    throw new DomainError(
      'VALIDATION_ERROR',
      `endpointId: webhook endpoint ${MERCHANT_DEFAULT_TARGET} is set by your operator: ask them to change it`,
    )
  }

  return {
    async create(merchantId, body) {
      const input = validateNewWebhookEndpoint(body, rules)
      const endpointId = randomUUID()
      const secret = newEndpointSecret()
      const now = isoNow(clock)
      const endpoint: WebhookEndpointRecord = {
        endpointId,
        merchantId,
        url: input.url as string,
        events: input.events ?? null,
        description: input.description ?? null,
        enabled: true,
        secret: secretBox.seal(secret, webhookEndpointSecretContext({ merchantId, endpointId })),
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      }
      if (!(await store.create(endpoint, webhookEndpointLimits.perMerchant))) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `url: a merchant has at most ${webhookEndpointLimits.perMerchant} webhook endpoints; delete one first`,
        )
      }
      return { ...toView(endpoint), secret }
    },

    async list(merchantId) {
      const [byOperator, own] = await Promise.all([operatorEndpoint(merchantId), store.list(merchantId)])
      return [...(byOperator === null ? [] : [byOperator]), ...own.map(toView)]
    },

    async get(merchantId, endpointId) {
      if (endpointId !== MERCHANT_DEFAULT_TARGET) return toView(await found(merchantId, endpointId))
      const byOperator = await operatorEndpoint(merchantId)
      if (byOperator === null) throw endpointNotFound(endpointId)
      return byOperator
    },

    async update(merchantId, endpointId, body) {
      await refuseOperatorEndpoint(merchantId, endpointId)
      const patch = validateWebhookEndpointPatch(body, rules)
      const updated = await store.update(merchantId, endpointId, patch, isoNow(clock))
      if (updated === null) throw endpointNotFound(endpointId)
      return toView(updated)
    },

    async remove(merchantId, endpointId) {
      await refuseOperatorEndpoint(merchantId, endpointId)
      if (!(await store.delete(merchantId, endpointId))) throw endpointNotFound(endpointId)
    },

    async rotateSecret(merchantId, endpointId, body) {
      await refuseOperatorEndpoint(merchantId, endpointId)
      const hours = validateSecretRotation(body)
      const secret = newEndpointSecret()
      const now = clock.now()
      // the secret signing until now keeps signing for the overlap; one before it stops at once
      const previousSecretExpiresAt =
        hours === 0 ? null : new Date(now.getTime() + hours * 3_600_000).toISOString()
      // Compare-and-set on the secrets read: of two rotations at once, the later one written takes
      // the earlier one's new secret as its previous one, as if they had come one after the other,
      // so that the secret answered to each caller signs during the overlap (docs/api.md).
      let rotated: WebhookEndpointRecord | null = null
      for (let tries = 0; rotated === null; tries++) {
        if (tries === MAX_ROTATION_TRIES) throw rotationContended(endpointId)
        const current = await found(merchantId, endpointId)
        rotated = await store.update(
          merchantId,
          current.endpointId,
          {
            secret: secretBox.seal(secret, webhookEndpointSecretContext(current)),
            previousSecret: previousSecretExpiresAt === null ? null : current.secret,
            previousSecretExpiresAt,
          },
          now.toISOString(),
          { secret: current.secret, previousSecret: current.previousSecret },
        )
      }
      return { id: rotated.endpointId, secret, previousSecretExpiresAt }
    },
  }
}

function toView(endpoint: WebhookEndpointRecord): WebhookEndpointView {
  return {
    id: endpoint.endpointId,
    url: endpoint.url,
    events: endpoint.events as WebhookEndpointView['events'],
    description: endpoint.description,
    enabled: endpoint.enabled,
    managedBy: 'merchant',
    previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  }
}

/**
 * Every kind goes to the default URL, always enabled, signed with the merchant's webhook secret (no
 * overlap on its rotation). Its times are the merchant record's: no time of the URL alone is kept.
 */
function operatorEndpointView(merchant: MerchantRecord): WebhookEndpointView | null {
  if (merchant.webhookUrl === null) return null
  return {
    id: MERCHANT_DEFAULT_TARGET,
    url: merchant.webhookUrl,
    events: null,
    description: 'your default webhook URL, set by your operator',
    enabled: true,
    managedBy: 'operator',
    previousSecretExpiresAt: null,
    createdAt: merchant.createdAt,
    updatedAt: merchant.updatedAt,
  }
}

/** rotations of one endpoint that may overtake one another before this one gives up */
const MAX_ROTATION_TRIES = 8

function rotationContended(endpointId: string): DomainError {
  // not expected in practice (a try loses only to another rotation that was written meanwhile);
  // 503 with Retry-After says to try again, which is what the caller should do
  return new DomainError(
    'SERVICE_UNAVAILABLE',
    `webhook endpoint ${endpointId}: too many rotations at once; retry later`,
  )
}

function newEndpointSecret(): string {
  return randomToken('whsec', 32)
}

function endpointNotFound(endpointId: string): DomainError {
  return new DomainError('NOT_FOUND', `webhook endpoint ${endpointId} not found`)
}
