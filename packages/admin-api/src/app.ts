// The admin API: merchants, their API keys, webhook secrets and URLs, fee policies, the webhook
// delivery log, and the balances and sweeps of payment addresses, all under /admin/v1 behind one
// operator token. It listens apart from the merchant
// API (loopback or an internal network), never on the public port. /metrics is not here: it has a
// listener of its own (METRICS_PORT), so that a scraper never reaches the admin API.

import { createOperatorSessions, type DashboardAccounts } from '@chainpay/dashboard'
import { DomainError } from '@chainpay/domain'
import { adminTokenProblem, constantTimeEqual, type Logger } from '@chainpay/platform'
import type {
  DashboardUserStore,
  OutgoingCommands,
  OutgoingReadModel,
  WebhookDeliveryStore,
} from '@chainpay/ports'
import { acceptStrictJsonBodies, createHttpApp, type HttpRequestMetrics } from '@chainpay/service-kit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { apiKeyAdminRoutes } from './api-key-routes.js'
import type { BalanceAdminDeps } from './balances.js'
import { type DashboardUserAdminDeps, dashboardUserAdminRoutes } from './dashboard-users.js'
import { OPERATOR_PAGES_PATH, operatorRoutes } from './operator-routes.js'
import { type OutgoingAdminReading, outgoingAdminRoutes } from './outgoing.js'
import {
  type AdminRoutesDeps,
  balanceAdminRoutes,
  deliveryAdminRoutes,
  merchantAdminRoutes,
} from './routes.js'

export const ADMIN_BASE_PATH = '/admin/v1'

export interface AdminDeps extends AdminRoutesDeps {
  /** the operator's token, sent as `Authorization: Bearer <token>`; strong (see adminTokenProblem) */
  adminToken: string
  logger: Logger
  deliveries?: WebhookDeliveryStore
  /** tells the notifier's dispatcher of deliveries put back in line (the gateway's context: on the bus) */
  wakeDeliveries?: (deliveryIds: string[]) => void
  /** balances and sweeps (docs/api.md, "Balances and sweeps"); none when absent */
  balances?: BalanceAdminDeps
  /** refunds and payouts for the offline procedure (docs/treasury.md); none when absent */
  outgoing?: OutgoingCommands
  /** the refunds and payouts read model GET /outgoing reads; with `outgoing` */
  outgoingReadModel?: Pick<OutgoingReadModel, 'listForNetwork'>
  /** the write-through of the steps and the reads that see it (the gateway's); with `outgoing` */
  outgoingReading?: OutgoingAdminReading
  /** observes every request, by route pattern */
  requestMetrics?: HttpRequestMetrics
  /** adds the dashboard's users (docs/operations.md, "Dashboard users"); none when absent */
  dashboardUsers?: DashboardUserAdminDeps['dashboardUsers']
  /**
   * the operator's views in a browser under /admin/dashboard (docs/operations.md, "The operator's
   * views"): the dashboard's store (the operator's sessions and audit log) and accounts; none when absent
   */
  operatorPages?: {
    users: DashboardUserStore
    accounts: Pick<DashboardAccounts, 'addUser' | 'resetUser' | 'listUsers'>
  }
}

export async function buildAdminApp(deps: AdminDeps): Promise<FastifyInstance> {
  // the configuration readers refuse a weak token already; this holds for every other composition
  const problem = adminTokenProblem(deps.adminToken)
  if (problem !== null) throw new Error(`admin API: weak admin token: ${problem}`)
  const app = createHttpApp({
    logger: deps.logger,
    component: 'admin',
    ...(deps.requestMetrics ? { requestMetrics: deps.requestMetrics } : {}),
  })
  // JSON as the merchant API reads it: UTF-8, no repeated key, no number that would change
  acceptStrictJsonBodies(app)
  const { deliveries } = deps

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => checkAdminToken(request, deps.adminToken))
      await admin.register(merchantAdminRoutes, deps)
      await admin.register(apiKeyAdminRoutes, deps)
      if (deliveries)
        await admin.register(deliveryAdminRoutes, {
          deliveries,
          clock: deps.clock,
          wakeDeliveries: deps.wakeDeliveries,
        })
      if (deps.balances) await admin.register(balanceAdminRoutes, deps.balances)
      if (deps.outgoing) {
        if (!deps.outgoingReadModel || !deps.outgoingReading)
          throw new Error(
            'admin API: refunds and payouts need their read model (outgoingReadModel, outgoingReading)',
          )
        await admin.register(outgoingAdminRoutes, {
          outgoing: deps.outgoing,
          outgoingReadModel: deps.outgoingReadModel,
          outgoingReading: deps.outgoingReading,
        })
      }
      if (deps.dashboardUsers) {
        await admin.register(dashboardUserAdminRoutes, {
          merchants: deps.merchants,
          dashboardUsers: deps.dashboardUsers,
        })
      }
    },
    { prefix: ADMIN_BASE_PATH },
  )
  // apart from /admin/v1: a browser signs in with a form and holds a session cookie, not the token
  if (deps.operatorPages) {
    await app.register(operatorRoutes, {
      prefix: OPERATOR_PAGES_PATH,
      merchantDeps: deps,
      sessions: createOperatorSessions({
        users: deps.operatorPages.users,
        clock: deps.clock,
        adminToken: deps.adminToken,
      }),
      accounts: deps.operatorPages.accounts,
      merchantWallets: deps.merchantWallets,
      outgoing: deps.outgoing,
      balances: deps.balances,
    })
  }
  return app
}

function checkAdminToken(request: FastifyRequest, adminToken: string): void {
  const header = request.headers.authorization
  const match = typeof header === 'string' ? /^Bearer +(\S+)$/i.exec(header) : null
  if (match?.[1] === undefined) {
    throw new DomainError('MISSING_AUTH_HEADERS', 'Authorization: expected "Bearer <admin token>"')
  }
  if (!constantTimeEqual(match[1], adminToken)) {
    throw new DomainError('INVALID_API_KEY', 'Authorization: invalid admin token')
  }
}
