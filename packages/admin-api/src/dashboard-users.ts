// The operator's side of the dashboard's users (docs/operations.md, "Dashboard users"): POST
// /admin/v1/merchants/{merchantId}/users adds a user of the merchant with a role and answers the
// one-time setup link, shown this once (the store keeps its hash); POST .../users/reset gives a user
// who lost the password or the authenticator a new one (the old password and key cleared, the
// sessions ended). `chainpay-admin users add|reset` call them. The audit log records the operator.

import { DomainError } from '@chainpay/domain'
import type { MerchantStore } from '@chainpay/ports'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'

export interface DashboardUserAdminDeps {
  merchants: Pick<MerchantStore, 'getMerchant'>
  /** the dashboard's accounts (packages/dashboard, createDashboardAccounts) */
  dashboardUsers: {
    addUser(input: { merchantId: string; email: string; role: string; actor: string }): Promise<AddedUser>
    resetUser(input: { merchantId: string; email: string; actor: string }): Promise<AddedUser | null>
  }
}

interface AddedUser {
  user: { userId: string; merchantId: string; email: string; role: string; createdAt: string }
  setupUrl: string
  setupExpiresAt: string
}

const strict = { additionalProperties: false } as const
const ResetUserBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) }, strict)

function toAddedUserView(added: AddedUser) {
  return {
    userId: added.user.userId,
    merchantId: added.user.merchantId,
    email: added.user.email,
    role: added.user.role,
    createdAt: added.user.createdAt,
    setupUrl: added.setupUrl,
    setupExpiresAt: added.setupExpiresAt,
  }
}
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
      return reply.code(201).send(toAddedUserView(added))
    },
  )

  app.post(
    '/merchants/:merchantId/users/reset',
    { schema: { params: MerchantParams, body: ResetUserBody } },
    async (request) => {
      const { merchantId } = request.params
      const reset = await deps.dashboardUsers.resetUser({ merchantId, ...request.body, actor: 'operator' })
      if (reset === null) {
        throw new DomainError(
          'NOT_FOUND',
          `merchant ${merchantId} has no dashboard user ${request.body.email}`,
        )
      }
      return toAddedUserView(reset)
    },
  )
}
