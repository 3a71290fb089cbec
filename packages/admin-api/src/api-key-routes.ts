// A merchant's API keys on the admin API (docs/operations.md, "API keys"), besides issue and revoke
// (routes.ts): the list, and a roll with an overlap. The use cases are api-keys.ts's, which the
// dashboard calls for a merchant's owners too.

import { ApiKeyParamsSchema, MerchantParamsSchema, RollApiKeyBodySchema } from '@chainpay/contracts'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiKeyAuthenticator } from './api-key-authenticator.js'
import { listApiKeys, rollApiKey } from './api-keys.js'
import type { MerchantAdminDeps } from './merchants.js'

export const apiKeyAdminRoutes: FastifyPluginAsyncTypebox<
  MerchantAdminDeps & { authenticator: Pick<ApiKeyAuthenticator, 'invalidate'> }
> = async (app, deps) => {
  app.get(
    '/merchants/:merchantId/api-keys',
    { schema: { params: MerchantParamsSchema } },
    async (request) => ({
      apiKeys: await listApiKeys(deps, request.params.merchantId),
    }),
  )

  app.post(
    '/merchants/:merchantId/api-keys/:apiKey/roll',
    { schema: { params: ApiKeyParamsSchema, body: RollApiKeyBodySchema } },
    async (request, reply) => {
      const { merchantId, apiKey } = request.params
      const rolled = await rollApiKey(deps, merchantId, apiKey, request.body)
      // the cached key learns its end of overlap at once
      deps.authenticator.invalidate(apiKey)
      // ids and the end of overlap only: the new secret is never logged
      request.log.info(
        { merchantId, apiKey, newApiKey: rolled.apiKey, expiresAt: rolled.rolled.expiresAt },
        'API key rolled',
      )
      return reply.code(201).send(rolled)
    },
  )
}
