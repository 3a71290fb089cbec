// The admin API's routes, relative to /admin/v1. Handlers are thin: the use cases in merchants.ts
// validate and act.

import {
  ApiKeyParamsSchema,
  BalanceQuerySchema,
  BalanceTotalsQuerySchema,
  CreateMerchantBodySchema,
  DeliveryParamsSchema,
  DisplayNameBodySchema,
  FeePolicyBodySchema,
  LogoUrlBodySchema,
  MerchantParamsSchema,
  MerchantWalletKeysSchema,
  PaymentDeliveriesParamsSchema,
  RecordSweepBodySchema,
  UnderpaymentToleranceBodySchema,
  WebhookUrlBodySchema,
} from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import { type Clock, isoNow } from '@chainpay/platform'
import type {
  DeliveryCursor,
  MerchantStore,
  MerchantWallets,
  WebhookDeliveryStore,
  WebhookEndpointStore,
} from '@chainpay/ports'
import { deliveriesPage, readDeliveriesQuery } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiKeyAuthenticator } from './api-key-authenticator.js'
import {
  type BalanceAdminDeps,
  balancePageLimit,
  balancesPage,
  balanceTotals,
  recordSweep,
} from './balances.js'
import {
  createMerchant,
  describeMerchant,
  issueApiKey,
  listMerchants,
  type MerchantAdminDeps,
  revokeApiKey,
  rotateWebhookSecret,
  setDisplayName,
  setFeePolicy,
  setLogoUrl,
  setUnderpaymentTolerance,
  setWebhookUrl,
} from './merchants.js'
import { resealMerchantSecrets } from './reseal.js'

export interface AdminRoutesDeps extends MerchantAdminDeps {
  /** re-sealed with the merchants' secrets; none when absent */
  webhookEndpoints?: WebhookEndpointStore
  /** forgets cached API keys, so that a revoke or a merchant change takes effect at once */
  authenticator: Pick<ApiKeyAuthenticator, 'invalidate'>
  /** merchants' own wallets, kept by payment-command; no wallet routes when absent */
  merchantWallets?: MerchantWallets
}

export const merchantAdminRoutes: FastifyPluginAsyncTypebox<AdminRoutesDeps> = async (app, deps) => {
  app.post('/merchants', { schema: { body: CreateMerchantBodySchema } }, async (request, reply) =>
    reply.code(201).send(await createMerchant(deps, request.body)),
  )

  app.get('/merchants', async () => ({ merchants: await listMerchants(deps) }))

  app.get('/merchants/:merchantId', { schema: { params: MerchantParamsSchema } }, async (request) =>
    describeMerchant(deps, request.params.merchantId),
  )

  app.post(
    '/merchants/:merchantId/api-keys',
    { schema: { params: MerchantParamsSchema } },
    async (request, reply) => reply.code(201).send(await issueApiKey(deps, request.params.merchantId)),
  )

  app.post(
    '/merchants/:merchantId/api-keys/:apiKey/revoke',
    { schema: { params: ApiKeyParamsSchema } },
    async (request) => {
      const revoked = await revokeApiKey(deps, request.params.merchantId, request.params.apiKey)
      deps.authenticator.invalidate(request.params.apiKey)
      return revoked
    },
  )

  app.post(
    '/merchants/:merchantId/webhook-secret/rotate',
    { schema: { params: MerchantParamsSchema } },
    async (request) => rotateWebhookSecret(deps, request.params.merchantId),
  )

  app.put(
    '/merchants/:merchantId/webhook-url',
    { schema: { params: MerchantParamsSchema, body: WebhookUrlBodySchema } },
    async (request) => {
      const merchant = await setWebhookUrl(deps, request.params.merchantId, request.body.webhookUrl)
      return { merchant }
    },
  )

  app.put(
    '/merchants/:merchantId/display-name',
    { schema: { params: MerchantParamsSchema, body: DisplayNameBodySchema } },
    async (request) => {
      const merchant = await setDisplayName(deps, request.params.merchantId, request.body.displayName)
      return { merchant }
    },
  )

  app.put(
    '/merchants/:merchantId/logo-url',
    { schema: { params: MerchantParamsSchema, body: LogoUrlBodySchema } },
    async (request) => {
      const merchant = await setLogoUrl(deps, request.params.merchantId, request.body.logoUrl)
      return { merchant }
    },
  )

  app.put(
    '/merchants/:merchantId/underpayment-tolerance',
    { schema: { params: MerchantParamsSchema, body: UnderpaymentToleranceBodySchema } },
    async (request) => {
      const { merchantId } = request.params
      const merchant = await setUnderpaymentTolerance(
        deps,
        merchantId,
        request.body.underpaymentTolerancePercent,
      )
      deps.authenticator.invalidate()
      return { merchant }
    },
  )

  app.put(
    '/merchants/:merchantId/fee-policy',
    { schema: { params: MerchantParamsSchema, body: FeePolicyBodySchema } },
    async (request) => {
      const { feeBps, fixedFees = {} } = request.body
      const merchant = await setFeePolicy(deps, request.params.merchantId, { feeBps, fixedFees })
      // authenticated requests carry the merchant record, fee policy included, from the key cache
      deps.authenticator.invalidate()
      return { merchant }
    },
  )

  // every sealed secret under the current key (docs/operations.md, "Rotating the encryption key")
  app.post('/secrets/reseal', async (request) => {
    const report = await resealMerchantSecrets(deps)
    const { currentKeyId, webhookSecrets, apiSecrets, merchantWalletSeeds, unopenable } = report
    request.log.info(
      { currentKeyId, webhookSecrets, apiSecrets, merchantWalletSeeds, unopenable: unopenable.length },
      'merchant secrets re-sealed',
    )
    return report
  })

  const { merchantWallets } = deps
  if (merchantWallets)
    await app.register(merchantWalletRoutes, { merchantWallets, merchants: deps.merchants })
}

/** a merchant's own wallet (docs/api.md, "Merchant wallets"): set, shown and removed by the operator */
const merchantWalletRoutes: FastifyPluginAsyncTypebox<{
  merchantWallets: MerchantWallets
  merchants: Pick<MerchantStore, 'getMerchant'>
}> = async (app, { merchantWallets, merchants }) => {
  // an unknown merchant is said to be unknown, not to be served by the operator's wallet
  const noWallet = async (merchantId: string) =>
    (await merchants.getMerchant(merchantId)) === null
      ? new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
      : new DomainError(
          'NOT_FOUND',
          `merchant ${merchantId} has no wallet of its own: the operator's serves it`,
        )

  app.put(
    '/merchants/:merchantId/wallet',
    { schema: { params: MerchantParamsSchema, body: MerchantWalletKeysSchema } },
    async (request) => {
      const wallet = await merchantWallets.set(request.params.merchantId, request.body)
      // the public parts only: the seed is never logged (docs/security.md)
      request.log.info({ merchantId: wallet.merchantId, walletId: wallet.walletId }, 'merchant wallet set')
      return { wallet }
    },
  )

  app.get('/merchants/:merchantId/wallet', { schema: { params: MerchantParamsSchema } }, async (request) => {
    const wallet = await merchantWallets.show(request.params.merchantId)
    if (wallet === null) throw await noWallet(request.params.merchantId)
    return { wallet }
  })

  app.delete(
    '/merchants/:merchantId/wallet',
    { schema: { params: MerchantParamsSchema } },
    async (request) => {
      const { merchantId } = request.params
      if (!(await merchantWallets.remove(merchantId))) throw await noWallet(merchantId)
      request.log.info({ merchantId }, 'merchant wallet removed')
      return { merchantId, removed: true }
    },
  )
}

/** failed deliveries read and redelivered per query by redeliver-failed */
const REDELIVER_PAGE = 100

export const deliveryAdminRoutes: FastifyPluginAsyncTypebox<{
  deliveries: WebhookDeliveryStore
  clock: Clock
  /** tells the notifier's dispatcher of deliveries put back in line, to send them at once */
  wakeDeliveries?: ((deliveryIds: string[]) => void) | undefined
}> = async (app, { deliveries, clock, wakeDeliveries }) => {
  app.get(
    '/merchants/:merchantId/payments/:paymentId/deliveries',
    { schema: { params: PaymentDeliveriesParamsSchema } },
    async (request) => {
      const { merchantId, paymentId } = request.params
      const owned = (await deliveries.listByPayment(paymentId)).filter(
        (delivery) => delivery.merchantId === merchantId,
      )
      const withAttempts = await Promise.all(
        owned.map(async (delivery) => ({
          delivery,
          attempts: await deliveries.listAttempts(delivery.deliveryId),
        })),
      )
      return { deliveries: withAttempts }
    },
  )

  // A merchant's deliveries, newest first, page by page (docs/operations.md, "Webhook deliveries"),
  // e.g. ?status=failed; as the merchant API lists them, with the attempts of each.
  app.get(
    '/merchants/:merchantId/deliveries',
    { schema: { params: MerchantParamsSchema } },
    async (request) => {
      const { merchantId } = request.params
      const query = readDeliveriesQuery(request.query as Record<string, unknown>)
      const { page, nextCursor } = await deliveriesPage(deliveries, merchantId, query)
      const withAttempts = await Promise.all(
        page.map(async (delivery) => ({
          delivery,
          attempts: await deliveries.listAttempts(delivery.deliveryId),
        })),
      )
      return { deliveries: withAttempts, nextCursor }
    },
  )

  // Every failed delivery of the merchant back in line, each with a fresh schedule; page by page, so
  // that the work per query stays bounded however many there are.
  app.post(
    '/merchants/:merchantId/deliveries/redeliver-failed',
    { schema: { params: MerchantParamsSchema } },
    async (request) => {
      const { merchantId } = request.params
      const now = isoNow(clock)
      let redelivered = 0
      let after: DeliveryCursor | undefined
      for (;;) {
        const page = await deliveries.listByMerchant(merchantId, {
          status: 'failed',
          limit: REDELIVER_PAGE,
          ...(after === undefined ? {} : { after }),
        })
        const requeued: string[] = []
        for (const delivery of page)
          if (await deliveries.redeliver(delivery.deliveryId, now)) requeued.push(delivery.deliveryId)
        if (requeued.length > 0) wakeDeliveries?.(requeued)
        redelivered += requeued.length
        const last = page.at(-1)
        if (page.length < REDELIVER_PAGE || last === undefined) break
        after = { createdAt: last.createdAt, deliveryId: last.deliveryId }
      }
      request.log.info({ merchantId, redelivered }, 'failed webhook deliveries redelivered')
      return { redelivered }
    },
  )

  app.post(
    '/deliveries/:deliveryId/redeliver',
    { schema: { params: DeliveryParamsSchema } },
    async (request) => {
      const { deliveryId } = request.params
      if (!(await deliveries.redeliver(deliveryId, isoNow(clock)))) {
        throw new DomainError('NOT_FOUND', `delivery ${deliveryId} not found`)
      }
      wakeDeliveries?.([deliveryId])
      return { delivery: await deliveries.get(deliveryId) }
    },
  )
}

/** docs/api.md, "Balances and sweeps" */
export const balanceAdminRoutes: FastifyPluginAsyncTypebox<BalanceAdminDeps> = async (app, deps) => {
  app.post('/sweeps', { schema: { body: RecordSweepBodySchema } }, async (request, reply) => {
    const { created, sweep } = await recordSweep(deps, request.body)
    return reply.code(created ? 201 : 200).send({ sweep })
  })

  app.get('/balances', { schema: { querystring: BalanceQuerySchema } }, async (request) => {
    const { limit: limitText, onChain, cursor, ...filters } = request.query
    const limit = limitText === undefined ? balancePageLimit.default : Number(limitText)
    if (limit < 1 || limit > balancePageLimit.max) {
      throw new DomainError('VALIDATION_ERROR', `limit: must be an integer from 1 to ${balancePageLimit.max}`)
    }
    return balancesPage(deps, {
      ...filters,
      limit,
      onChain: onChain === 'true',
      ...(cursor === undefined ? {} : { cursor }),
    })
  })

  app.get('/balances/totals', { schema: { querystring: BalanceTotalsQuerySchema } }, async (request) => ({
    data: await balanceTotals(deps, request.query),
  }))
}
