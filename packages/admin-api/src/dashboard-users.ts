// The operator's side of the dashboard's users (docs/operations.md, "Dashboard users"): POST
// /admin/v1/merchants/{merchantId}/users adds a user of the merchant with a role and answers the
// one-time setup link, shown this once (the store keeps its hash). `chainpay-admin users add` calls
// it. The audit log records the operator as the one who added the user.

import { DomainError } from '@chainpay/domain'
import type { MerchantStore } from '@chainpay/ports'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'

export interface DashboardUserAdminDeps {
  merchants: Pick<MerchantStore, 'getMerchant'>
  /** the dashboard's accounts (packages/dashboard, createDashboardAccounts) */
  dashboardUsers: {
    addUser(input: { merchantId: string; email: string; role: string; actor: string }): Promise<{
      user: { userId: string; merchantId: string; email: string; role: string; createdAt: string }
      setupUrl: string
      setupExpiresAt: string
    }>
  }
}

const strict = { additionalProperties: false } as const
const MerchantParams = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 200 }) }, strict)
const AddUserBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254 }),
    role: Type.Union([Type.Literal('owner'), Type.Literal('developer'), Type.Literal('viewer')]),
  },
  strict,
)

export const dashboardUserAdminRoutes: FastifyPluginAsyncTypebox<DashboardUserAdminDeps> = async (
  app,
  deps,
) => {
  app.post(
    '/merchants/:merchantId/users',
    { schema: { params: MerchantParams, body: AddUserBody } },
    async (request, reply) => {
      const { merchantId } = request.params
      if ((await deps.merchants.getMerchant(merchantId)) === null) {
        throw new DomainError('NOT_FOUND', `merchant ${merchantId} not found`)
      }
      const added = await deps.dashboardUsers.addUser({ merchantId, ...request.body, actor: 'operator' })
      return reply.code(201).send({
        userId: added.user.userId,
        merchantId: added.user.merchantId,
        email: added.user.email,
        role: added.user.role,
        createdAt: added.user.createdAt,
        setupUrl: added.setupUrl,
        setupExpiresAt: added.setupExpiresAt,
      })
    },
  )
}
