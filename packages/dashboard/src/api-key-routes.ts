// The merchant's API keys on the dashboard (docs/dashboard.md, "API keys"), registered by
// dashboard-routes.ts: list, create, roll with an overlap, revoke, through the admin API's own use
// cases (packages/admin-api/src/api-keys.ts, merchantApiKeys), for owners only (`manage_api_keys`,
// access-rules.ts), checked on the server. A new key's secret is in the answer to the post that made
// it, this once; every change goes to the audit log.

import type { ApiKeyView } from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { type IssuedKeyNotice, renderApiKeys } from './api-key-pages.js'
import { apiKeyTexts } from './api-key-texts.js'
import type { DashboardAccounts } from './dashboard-accounts.js'
import type { AnyRequest, DashboardRouteKit, Signed } from './dashboard-kit.js'

/** the admin API's key use cases for one merchant at a time (admin-api's merchantApiKeys) */
export interface DashboardApiKeys {
  list(merchantId: string): Promise<ApiKeyView[]>
  issue(merchantId: string): Promise<{ apiKey: string; apiSecret: string }>
  roll(
    merchantId: string,
    apiKey: string,
    options?: { overlapHours?: number },
  ): Promise<{ apiKey: string; apiSecret: string; rolled: { apiKey: string; expiresAt: string } }>
  revoke(merchantId: string, apiKey: string): Promise<{ apiKey: string; revokedAt: string }>
}

export interface ApiKeyRoutesOptions {
  apiKeys: DashboardApiKeys
  kit: DashboardRouteKit
  accounts: Pick<DashboardAccounts, 'recordAudit'>
}

export const apiKeyRoutes: FastifyPluginAsync<ApiKeyRoutesOptions> = async (app, deps) => {
  const { apiKeys, kit, accounts } = deps
  const page = async (
    request: AnyRequest,
    reply: FastifyReply,
    signed: Signed,
    code: number,
    extra: { issued?: IssuedKeyNotice; problem?: string } = {},
  ) => {
    const frame = kit.frameOf(request, signed, 'api-keys')
    const keys = await apiKeys.list(signed.user.merchantId)
    return kit.html(reply, code, renderApiKeys(frame, apiKeyTexts[frame.language], { keys, ...extra }))
  }
  /** the change, audited; a refused one answered on the page with the use case's words */
  const change = async (
    request: AnyRequest,
    reply: FastifyReply,
    act: (signed: Signed) => Promise<{ code: number; issued?: IssuedKeyNotice; audit: [string, string] }>,
  ) => {
    const signed = await kit.signedIn(request, reply, 'manage_api_keys')
    if (signed === null) return reply
    try {
      const done = await act(signed)
      await accounts.recordAudit(signed.user.merchantId, signed.user.email, ...done.audit)
      if (done.issued === undefined)
        return reply.redirect(`${kit.base}/api-keys?lang=${kit.languageOf(request)}`, 303)
      return page(request, reply, signed, done.code, { issued: done.issued })
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return page(request, reply, signed, error.code === 'NOT_FOUND' ? 404 : 400, { problem: error.message })
    }
  }

  app.get('/api-keys', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'manage_api_keys')
    if (signed === null) return reply
    return page(request, reply, signed, 200)
  })

  app.post('/api-keys', async (request: AnyRequest, reply) =>
    change(request, reply, async (signed) => {
      const issued = await apiKeys.issue(signed.user.merchantId)
      return { code: 201, issued, audit: ['api_key.created', issued.apiKey] }
    }),
  )

  app.post('/api-keys/:apiKey/roll', async (request: AnyRequest, reply) =>
    change(request, reply, async (signed) => {
      const hoursText = (kit.field(request.body, 'overlapHours') ?? '').trim()
      if (!/^[0-9]{1,4}$/.test(hoursText)) {
        throw new DomainError('VALIDATION_ERROR', 'overlapHours: must be a whole number of hours')
      }
      const rolled = await apiKeys.roll(signed.user.merchantId, request.params.apiKey ?? '', {
        overlapHours: Number(hoursText),
      })
      return {
        code: 201,
        issued: rolled,
        audit: [
          'api_key.rolled',
          `${rolled.rolled.apiKey} → ${rolled.apiKey}, old until ${rolled.rolled.expiresAt}`,
        ],
      }
    }),
  )

  app.post('/api-keys/:apiKey/revoke', async (request: AnyRequest, reply) =>
    change(request, reply, async (signed) => {
      const revoked = await apiKeys.revoke(signed.user.merchantId, request.params.apiKey ?? '')
      return { code: 303, audit: ['api_key.revoked', revoked.apiKey] }
    }),
  )
}
