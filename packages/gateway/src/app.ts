// The gateway's HTTP app: the merchant API under /api/merchant/v1, the customer's page under /pay/,
// health and readiness, the OpenAPI document. Built on service-kit's HTTP foundation (errors, 404/405, request ids and metrics), started
// by the context (packages/gateway/src/context.ts), so that tests can inject requests.

import type { ApiKeyAuthenticator } from '@chainpay/admin-api'
import { API_BASE_PATH, buildOpenApiDocument } from '@chainpay/contracts'
import { type DashboardDeps, dashboardRoutes } from '@chainpay/dashboard'
import type { AssetRegistry } from '@chainpay/domain'
import type { Clock, Logger } from '@chainpay/platform'
import type {
  MerchantStore,
  OutgoingCommands,
  OutgoingReadModel,
  PaymentCommands,
  PaymentReadModel,
} from '@chainpay/ports'
import {
  type CheckoutLinks,
  type ClaimLinks,
  createHttpApp,
  type HttpRefusalMetrics,
  type HttpRequestMetrics,
  healthRoutes,
  type MetricsExposition,
  webhookDeliveryActions,
  webhookEndpointActions,
} from '@chainpay/service-kit'
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import { merchantAuthentication } from './auth.js'
import { type CheckoutSettings, checkoutRoutes } from './checkout/checkout-routes.js'
import type { MerchantLogos } from './checkout/merchant-logos.js'
import { BODY_LIMIT_BYTES } from './http/limits.js'
import { collectRawBodies } from './http/raw-body.js'
import {
  createRateLimitedAnswers,
  limitRequestsPerAddress,
  limitRequestsPerApiKey,
  type RateLimitSettings,
} from './rate-limit.js'
import { refundClaimRoutes } from './refund-claim/refund-claim-routes.js'
import { type DepositAddressRoutesDeps, depositAddressRoutes } from './routes/deposit-addresses.js'
import { type DepositRoutesDeps, depositRoutes } from './routes/deposits.js'
import { type InvoiceRoutesDeps, invoiceRoutes } from './routes/invoices.js'
import { outgoingRoutes } from './routes/outgoing.js'
import { createOutgoingReading, type OutgoingReading } from './routes/outgoing-reading.js'
import { paymentReadingRoutes } from './routes/payment-reading.js'
import { paymentRoutes } from './routes/payments.js'
import { createReadYourWrites } from './routes/read-your-writes.js'
import { type WebhookDeliveryRoutesDeps, webhookDeliveryRoutes } from './routes/webhook-deliveries.js'
import { type WebhookEndpointRoutesDeps, webhookEndpointRoutes } from './routes/webhook-endpoints.js'

export interface GatewayDeps {
  commands: PaymentCommands
  readModel: PaymentReadModel
  authenticator: ApiKeyAuthenticator
  clock: Clock
  logger: Logger
  rateLimit: RateLimitSettings
  /** the customer's page, /pay/{token} (docs/api.md, "The customer's page") */
  checkout: CheckoutSettings
  checkoutLinks: CheckoutLinks
  merchantLogos: Pick<MerchantLogos, 'logoAt' | 'knownLogoAt'>
  merchants: Pick<MerchantStore, 'getMerchant'>
  registry: AssetRegistry
  /** true when the gateway can serve; GET /readyz answers 503 otherwise. Always ready when absent. */
  readiness?: () => Promise<boolean>
  /** more routes on the same server (the chain simulator's dev routes, where chains are simulated) */
  extraRoutes?: FastifyPluginAsync
  /** observes every request, by route pattern */
  requestMetrics?: HttpRequestMetrics
  /** counts the answers past a rate limit (which are logged sampled) */
  refusalMetrics?: HttpRefusalMetrics
  /** served at GET /metrics, unauthenticated; no /metrics when absent */
  metricsRegistry?: MetricsExposition
  /** the invoices: their merchant API and their page (docs/api.md, "Invoices"); absent: none */
  invoices?: InvoiceRoutesDeps
  /** the webhook endpoint and delivery routes (docs/api.md, "Webhook endpoints"); absent: none */
  webhooks?: Omit<WebhookEndpointRoutesDeps & WebhookDeliveryRoutesDeps, 'merchants'>
  /** refunds, payouts and balances (docs/api.md, "Refunds and payouts"); absent: none */
  outgoing?: OutgoingCommands
  /** the refunds and payouts read model the lists read and commands write through; with `outgoing` */
  outgoingReadModel?: OutgoingReadModel
  /** read your writes of refunds and payouts, shared with the admin API's app; made here when absent */
  outgoingReading?: OutgoingReading
  /** the refund claim page's addresses, {PUBLIC_URL}/refund/{token}; with `outgoing` */
  claimLinks?: ClaimLinks
  /** the merchant's dashboard at {PUBLIC_URL}/dashboard (docs/dashboard.md); absent: none */
  dashboard?: DashboardDeps
  /** customers' deposit addresses (docs/api.md, "Deposit addresses"); absent: none */
  depositAddresses?: DepositAddressRoutesDeps
  /** deposits at those addresses (docs/api.md, "Deposits"); absent: none */
  deposits?: DepositRoutesDeps
}

export async function buildGatewayApp(deps: GatewayDeps): Promise<FastifyInstance> {
  const app = createHttpApp({
    logger: deps.logger,
    component: 'gateway',
    bodyLimit: BODY_LIMIT_BYTES,
    ...(deps.requestMetrics ? { requestMetrics: deps.requestMetrics } : {}),
    ...(deps.rateLimit.trustedProxies ? { trustedProxies: deps.rateLimit.trustedProxies } : {}),
  })
  app.decorateRequest('caller', null)
  app.decorateRequest('rawBody', '')

  await app.register(healthRoutes, {
    readiness: deps.readiness ?? (async () => true),
    metricsRegistry: deps.metricsRegistry,
  })
  // one for every route that writes or reads a payment: what one wrote, the others read
  const readYourWrites = createReadYourWrites(deps)
  if (deps.outgoing && !deps.outgoingReadModel)
    throw new Error('gateway: refunds and payouts need their read model (outgoingReadModel)')
  const outgoingReading =
    deps.outgoingReading ??
    (deps.outgoing && deps.outgoingReadModel
      ? createOutgoingReading({
          readModel: deps.outgoingReadModel,
          commands: deps.outgoing,
          clock: deps.clock,
        })
      : undefined)
  const openApiDocument = JSON.stringify(buildOpenApiDocument())
  const rateLimitedAnswers = createRateLimitedAnswers({
    logger: deps.logger,
    clock: deps.clock,
    metrics: deps.refusalMetrics,
  })
  const merchantApiLimits = { group: 'merchant_api', answers: rateLimitedAnswers } as const
  app.get(`${API_BASE_PATH}/openapi.json`, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(openApiDocument),
  )

  await app.register(
    async (merchantApi) => {
      // first: the address's budget is spent before authentication and before the body is read
      await limitRequestsPerAddress(merchantApi, deps.rateLimit, merchantApiLimits)
      // raw bodies only here: the signature covers the bytes as sent (auth.ts)
      collectRawBodies(merchantApi)
      merchantApi.addHook('preValidation', merchantAuthentication(deps))
      await limitRequestsPerApiKey(merchantApi, deps.rateLimit, merchantApiLimits)
      await merchantApi.register(paymentRoutes, { ...deps, readYourWrites })
      await merchantApi.register(paymentReadingRoutes, { ...deps, readYourWrites })
      if (deps.invoices) await merchantApi.register(invoiceRoutes, deps.invoices)
      if (deps.outgoing && deps.outgoingReadModel && outgoingReading && deps.claimLinks) {
        await merchantApi.register(outgoingRoutes, {
          outgoing: deps.outgoing,
          claimLinks: deps.claimLinks,
          outgoingReadModel: deps.outgoingReadModel,
          outgoingReading,
        })
      }
      if (deps.depositAddresses) await merchantApi.register(depositAddressRoutes, deps.depositAddresses)
      if (deps.deposits) await merchantApi.register(depositRoutes, deps.deposits)
      if (deps.webhooks) {
        const webhookDeps = { ...deps.webhooks, merchants: deps.merchants }
        await merchantApi.register(webhookEndpointRoutes, webhookDeps)
        await merchantApi.register(webhookDeliveryRoutes, webhookDeps)
      }
    },
    { prefix: API_BASE_PATH },
  )
  await app.register(checkoutRoutes, {
    ...deps,
    readYourWrites,
    settings: deps.checkout,
    rateLimitedAnswers,
    ...(deps.invoices ? { invoices: deps.invoices } : {}),
  })

  // the refund claim page, /refund/{token} (docs/api.md, "The refund claim page")
  if (deps.outgoing && outgoingReading && deps.claimLinks) {
    await app.register(refundClaimRoutes, {
      ...deps,
      outgoing: deps.outgoing,
      outgoingReading,
      claimLinks: deps.claimLinks,
      settings: deps.checkout,
      rateLimitedAnswers,
    })
  }

  // the merchant's dashboard, for the merchant's staff (docs/dashboard.md)
  if (deps.dashboard) {
    await app.register(
      async (dashboard) => {
        // the sign-in's own lockout is per account and address; this bounds every other request too
        await limitRequestsPerAddress(dashboard, deps.rateLimit, {
          group: 'dashboard',
          answers: rateLimitedAnswers,
        })
        // refunds, payouts and balances through what the merchant API's routes use (outgoing.ts)
        const money =
          deps.outgoing && deps.outgoingReadModel && outgoingReading && deps.claimLinks
            ? {
                outgoing: deps.outgoing,
                outgoingReadModel: deps.outgoingReadModel,
                outgoingReading,
                claimLinks: deps.claimLinks,
              }
            : undefined
        // the webhook pages do what the merchant API's webhook routes do, with the same deps
        const webhookDeps = deps.webhooks ? { ...deps.webhooks, merchants: deps.merchants } : undefined
        await dashboard.register(dashboardRoutes, {
          ...(deps.dashboard as DashboardDeps),
          money,
          // invoices, deposits and settings read as the merchant API's invoice and deposit routes read them
          reading: {
            merchants: deps.merchants,
            invoices: deps.invoices,
            depositAddresses: deps.depositAddresses,
            deposits: deps.deposits,
          },
          ...(webhookDeps
            ? {
                webhooks: {
                  endpoints: webhookEndpointActions(webhookDeps),
                  deliveries: webhookDeliveryActions(webhookDeps),
                },
              }
            : {}),
        })
      },
      { prefix: '/dashboard' },
    )
  }

  if (deps.extraRoutes) await app.register(deps.extraRoutes)
  return app
}
