// A merchant's webhook endpoints (docs/api.md, "Webhook endpoints"): URLs the merchant registers
// through the API, each with the kinds it wants and a secret of its own. Secrets arrive sealed
// (webhookEndpointSecretContext); the store never sees a plain secret.

export interface WebhookEndpointRecord {
  endpointId: string
  merchantId: string
  url: string
  /** the webhook kinds it is sent; null: every kind, those added later too */
  events: string[] | null
  description: string | null
  enabled: boolean
  /** sealed signing secret */
  secret: string
  /** sealed secret before the latest rotation, still signed with until previousSecretExpiresAt */
  previousSecret: string | null
  previousSecretExpiresAt: string | null
  createdAt: string
  updatedAt: string
}

export type WebhookEndpointPatch = Partial<
  Pick<
    WebhookEndpointRecord,
    'url' | 'events' | 'description' | 'enabled' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'
  >
>

export interface WebhookEndpointStore {
  /** inserts the endpoint unless its merchant has `maxPerMerchant` already; false then */
  create(endpoint: WebhookEndpointRecord, maxPerMerchant: number): Promise<boolean>
  /** null when unknown or another merchant's */
  get(merchantId: string, endpointId: string): Promise<WebhookEndpointRecord | null>
  /** the merchant's endpoints, oldest first */
  list(merchantId: string): Promise<WebhookEndpointRecord[]>
  /**
   * the endpoint after the change; null when unknown or another merchant's, or, with `expected`,
   * when its sealed secrets are no longer those (a compare-and-set: a rotation that read them
   * before another rotation wrote changes nothing, docs/api.md "Rotating an endpoint's secret")
   */
  update(
    merchantId: string,
    endpointId: string,
    patch: WebhookEndpointPatch,
    updatedAt: string,
    expected?: SealedEndpointSecrets,
  ): Promise<WebhookEndpointRecord | null>
  /** false when unknown or another merchant's */
  delete(merchantId: string, endpointId: string): Promise<boolean>
  /**
   * Re-sealing (a new key, or a new format): replaces the endpoint's sealed secret and previous
   * secret by `replacement` only while both are still `expected`, so that a re-seal never undoes a
   * rotation that happened meanwhile; `updatedAt` is left alone. False when they changed or the
   * endpoint is gone.
   */
  replaceSealedSecrets(
    merchantId: string,
    endpointId: string,
    expected: SealedEndpointSecrets,
    replacement: SealedEndpointSecrets,
  ): Promise<boolean>
}

export type SealedEndpointSecrets = Pick<WebhookEndpointRecord, 'secret' | 'previousSecret'>

/** what an endpoint's sealed secrets are bound to: the endpoint and its merchant */
export function webhookEndpointSecretContext(
  endpoint: Pick<WebhookEndpointRecord, 'merchantId' | 'endpointId'>,
): string {
  return JSON.stringify(['webhook-endpoint', endpoint.merchantId, endpoint.endpointId, 'secret'])
}

/** whether the endpoint is sent events of `kind` */
export function endpointWants(
  endpoint: Pick<WebhookEndpointRecord, 'enabled' | 'events'>,
  kind: string,
): boolean {
  return endpoint.enabled && (endpoint.events === null || endpoint.events.includes(kind))
}
