// The operator's views in a browser (docs/operations.md, "The operator's views"; decisions.md
// section 23: "the operator's views on the admin listener only"): merchants (detail with wallet, API
// key ids and status, dashboard users, balances), balances per merchant and asset with the addresses
// still to sweep, the refunds and payouts waiting for the offline procedure, the operator's sessions
// and audit log. buildAdminApp registers this under /admin/dashboard on the admin listener; the
// gateway's public listener never has it. Sign-in: the admin token typed once, exchanged for a session
// cookie (packages/dashboard/src/operator-sessions.ts); every post checked for this listener's origin
// and the session's CSRF token, as the merchant's dashboard checks its own. The pages read through the
// admin API's own use cases (merchants.ts, balances.ts, outgoing.ts), never a query of their own.

import {
  csrfTokenMatches,
  csrfTokenOf,
  DASHBOARD_STYLES,
  type DashboardAccounts,
  firstOf,
  formField,
  isSameOriginPost,
  type OperatorSessions,
  pickDashboardLanguage,
  registerPageBasics,
  storedHashOf,
} from '@chainpay/dashboard'
import { DomainError, defaultAssetRegistry, type OutgoingStatus } from '@chainpay/domain'
import type { MerchantWallets, OutgoingCommands } from '@chainpay/ports'
import { toBalanceView } from '@chainpay/service-kit'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { type BalanceAdminDeps, balancesPage } from './balances.js'
import { describeMerchant, listMerchants, type MerchantAdminDeps } from './merchants.js'
import {
  type MerchantBalanceView,
  type OperatorArea,
  type OperatorFrame,
  renderBalances,
  renderMerchantDetail,
  renderMerchants,
  renderOperatorAudit,
  renderOperatorMessage,
  renderOperatorSessions,
  renderOperatorSignIn,
  renderOutgoing,
} from './operator-pages.js'
import { operatorTexts } from './operator-texts.js'
import { toOutgoingRow } from './outgoing.js'

export const OPERATOR_PAGES_PATH = '/admin/dashboard'

export interface OperatorPagesDeps {
  merchantDeps: MerchantAdminDeps
  sessions: OperatorSessions
  /** the dashboard's accounts: the merchant's users, added and reset with a setup link */
  accounts: Pick<DashboardAccounts, 'addUser' | 'resetUser' | 'listUsers'>
  merchantWallets?: MerchantWallets | undefined
  outgoing?: OutgoingCommands | undefined
  balances?: BalanceAdminDeps | undefined
}

/** what the offline procedure still has to do something about (docs/treasury.md) */
const WAITING: readonly OutgoingStatus[] = ['awaiting_address', 'ready', 'sending', 'sent']
const OUTGOING_PER_NETWORK = 100
const ADDRESS_PAGE = 50
const AUDIT_PAGE = 50
const COOKIE = 'chainpay_operator_session'

type AnyRequest = FastifyRequest<{
  Params: Record<string, string>
  Querystring: Record<string, string | string[] | undefined>
  Body: unknown
}>

export const operatorRoutes: FastifyPluginAsync<OperatorPagesDeps> = async (app, deps) => {
  const { sessions, accounts } = deps
  const base = OPERATOR_PAGES_PATH

  // the merchant dashboard's forms and headers (docs/dashboard.md), without its live updates' script
  registerPageBasics(app, { sameOriginScript: false })
  const first = firstOf
  const field = formField
  const frameOf = (request: AnyRequest, sessionId?: string, current?: OperatorArea): OperatorFrame => {
    const language = pickDashboardLanguage(first(request.query.lang), request.headers['accept-language'])
    return {
      language,
      texts: operatorTexts[language],
      base,
      ...(sessionId ? { csrf: csrfTokenOf(sessionId) } : {}),
      ...(current ? { current } : {}),
    }
  }
  const html = (reply: FastifyReply, code: number, page: string) =>
    reply.code(code).type('text/html; charset=utf-8').send(page)
  // the admin listener has no configured URL: its origin is the one the browser asked for
  const originOf = (request: AnyRequest) => `${request.protocol}://${request.headers.host ?? ''}`
  // Secure over TLS (a proxy in front, or an SSH tunnel's https); on a loopback http listener the
  // browser would not store a Secure cookie. HttpOnly, SameSite=Strict and the path always.
  const cookieAttributes = (request: AnyRequest) =>
    `Path=${base}; HttpOnly; SameSite=Strict${request.protocol === 'https' ? '; Secure' : ''}`
  const sessionIdOf = (request: AnyRequest): string | undefined => {
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=')
      if (name === COOKIE) return value.join('=')
    }
    return undefined
  }
  const clearSession = (request: AnyRequest, reply: FastifyReply) =>
    reply.header('set-cookie', `${COOKIE}=; ${cookieAttributes(request)}; Max-Age=0`)
  const to = (request: AnyRequest, reply: FastifyReply, path: string) =>
    reply.redirect(`${base}/${path}${path.includes('?') ? '&' : '?'}lang=${frameOf(request).language}`, 303)

  /** the session id while the operator's session holds, or null after answering */
  async function signedIn(request: AnyRequest, reply: FastifyReply): Promise<string | null> {
    const sessionId = sessionIdOf(request)
    const { verdict } = await sessions.authenticate(sessionId)
    if (verdict !== 'valid' || sessionId === undefined) {
      if (sessionId !== undefined) clearSession(request, reply)
      if (request.method === 'GET') await to(request, reply, `sign-in${sessionId ? '?ended=1' : ''}`)
      else {
        // the sign-in form itself, not a page without a way on: the form was not taken (403)
        const frame = frameOf(request)
        await html(reply, 403, renderOperatorSignIn(frame, frame.texts.sessionEnded))
      }
      return null
    }
    if (
      request.method !== 'GET' &&
      (!isSameOriginPost(request.headers, originOf(request)) ||
        !csrfTokenMatches(sessionId, field(request.body, 'csrf')))
    ) {
      // a form of another site, or without the session's token, changes nothing
      const frame = frameOf(request, sessionId)
      await html(reply, 403, renderOperatorMessage(frame, frame.texts.refused, frame.texts.refused))
      return null
    }
    return sessionId
  }

  app.get('/assets/dashboard.css', async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(DASHBOARD_STYLES),
  )

  app.get('/', async (request: AnyRequest, reply) => to(request, reply, 'merchants'))

  app.get('/sign-in', async (request: AnyRequest, reply) => {
    const frame = frameOf(request)
    const ended = first(request.query.ended) === '1'
    return html(reply, 200, renderOperatorSignIn(frame, ended ? frame.texts.sessionEnded : undefined))
  })

  app.post('/sign-in', async (request: AnyRequest, reply) => {
    const frame = frameOf(request)
    const t = frame.texts
    // no session yet: the Origin and Sec-Fetch-Site check keeps other sites from signing a browser in
    if (!isSameOriginPost(request.headers, originOf(request))) {
      return html(reply, 403, renderOperatorMessage(frame, t.signIn, t.refused))
    }
    const outcome = await sessions.signIn({
      token: field(request.body, 'token') ?? '',
      address: request.ip,
      userAgent: request.headers['user-agent'] ?? '',
    })
    if (!outcome.ok) {
      const locked = outcome.reason === 'locked' && outcome.lockedUntil
      const text = locked
        ? t.locked(`${outcome.lockedUntil?.toISOString().replace('T', ' ').slice(0, 16)} UTC`)
        : t.signInFailed
      return html(reply, locked ? 429 : 401, renderOperatorSignIn(frame, text))
    }
    reply.header('set-cookie', `${COOKIE}=${outcome.sessionId}; ${cookieAttributes(request)}`)
    return to(request, reply, 'merchants')
  })

  app.post('/sign-out', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    await sessions.revoke(storedHashOf(sessionId), 'session.signed_out')
    clearSession(request, reply)
    return to(request, reply, 'sign-in')
  })

  app.get('/merchants', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const frame = frameOf(request, sessionId, 'merchants')
    return html(reply, 200, renderMerchants(frame, await listMerchants(deps.merchantDeps)))
  })

  const balancesOf = async (merchantId: string): Promise<MerchantBalanceView[]> =>
    deps.outgoing ? (await deps.outgoing.getBalances({ merchantId })).map(toBalanceView) : []

  const merchantPage = async (
    request: AnyRequest,
    reply: FastifyReply,
    sessionId: string,
    code: number,
    extra: { added?: { email: string; setupUrl: string }; problem?: string } = {},
  ) => {
    const frame = frameOf(request, sessionId, 'merchants')
    const merchantId = request.params.merchantId ?? ''
    let described: Awaited<ReturnType<typeof describeMerchant>>
    try {
      described = await describeMerchant(deps.merchantDeps, merchantId)
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return html(reply, 404, renderOperatorMessage(frame, frame.texts.notFound, frame.texts.notFound))
    }
    const wallet = (await deps.merchantWallets?.show(merchantId)) ?? null
    return html(
      reply,
      code,
      renderMerchantDetail(frame, {
        ...described,
        walletId: wallet?.walletId ?? null,
        users: await accounts.listUsers(merchantId),
        balances: await balancesOf(merchantId),
        ...extra,
      }),
    )
  }

  app.get('/merchants/:merchantId', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    return merchantPage(request, reply, sessionId, 200)
  })

  // a dashboard user of the merchant, with a setup link shown this once (as POST /admin/v1/.../users)
  app.post('/merchants/:merchantId/users', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const merchantId = request.params.merchantId ?? ''
    if ((await deps.merchantDeps.merchants.getMerchant(merchantId)) === null)
      return merchantPage(request, reply, sessionId, 404)
    try {
      const added = await accounts.addUser({
        merchantId,
        email: field(request.body, 'email') ?? '',
        role: field(request.body, 'role') ?? '',
        actor: 'operator',
      })
      await sessions.audit('user.created', `${merchantId}: ${added.user.email} (${added.user.role})`)
      return merchantPage(request, reply, sessionId, 201, {
        added: { email: added.user.email, setupUrl: added.setupUrl },
      })
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return merchantPage(request, reply, sessionId, 400, { problem: error.message })
    }
  })

  // a new setup link for a user who lost the password or the authenticator (sessions ended)
  app.post('/merchants/:merchantId/users/reset', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const merchantId = request.params.merchantId ?? ''
    const reset = await accounts.resetUser({
      merchantId,
      email: field(request.body, 'email') ?? '',
      actor: 'operator',
    })
    if (reset === null) {
      const frame = frameOf(request, sessionId, 'merchants')
      return html(reply, 404, renderOperatorMessage(frame, frame.texts.notFound, frame.texts.notFound))
    }
    await sessions.audit('user.reset', `${merchantId}: ${reset.user.email}`)
    return merchantPage(request, reply, sessionId, 200, {
      added: { email: reset.user.email, setupUrl: reset.setupUrl },
    })
  })

  app.get('/balances', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const frame = frameOf(request, sessionId, 'balances')
    const merchants = await listMerchants(deps.merchantDeps)
    const perMerchant = await Promise.all(
      merchants.map(async (merchant) => ({ merchant, balances: await balancesOf(merchant.merchantId) })),
    )
    const cursor = first(request.query.cursor)
    let page: Awaited<ReturnType<typeof balancesPage>> = { data: [], nextCursor: null }
    if (deps.balances) {
      try {
        page = await balancesPage(deps.balances, {
          limit: ADDRESS_PAGE,
          onChain: false,
          ...(cursor === undefined ? {} : { cursor }),
        })
      } catch (error) {
        if (!(error instanceof DomainError)) throw error
        return html(reply, 400, renderOperatorMessage(frame, frame.texts.notFound, error.message))
      }
    }
    const nextHref =
      page.nextCursor === null
        ? null
        : `${base}/balances?lang=${frame.language}&cursor=${encodeURIComponent(page.nextCursor)}`
    return html(reply, 200, renderBalances(frame, { perMerchant, addresses: page.data, nextHref }))
  })

  app.get('/outgoing', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const frame = frameOf(request, sessionId, 'outgoing')
    const { outgoing } = deps
    const registry = deps.balances?.registry ?? deps.merchantDeps.registry ?? defaultAssetRegistry
    const perNetwork = outgoing
      ? await Promise.all(
          registry.networks.map(async ({ network }) => ({
            network,
            rows: (
              await outgoing.listOperatorOutgoing({ network, statuses: WAITING, limit: OUTGOING_PER_NETWORK })
            ).data.map(toOutgoingRow),
          })),
        )
      : []
    return html(reply, 200, renderOutgoing(frame, perNetwork))
  })

  app.get('/sessions', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const frame = frameOf(request, sessionId, 'sessions')
    return html(reply, 200, renderOperatorSessions(frame, await sessions.list(), storedHashOf(sessionId)))
  })

  app.post('/sessions/:sessionHash/revoke', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    await sessions.revoke(request.params.sessionHash ?? '', 'session.revoked')
    return to(request, reply, 'sessions')
  })

  app.get('/audit', async (request: AnyRequest, reply) => {
    const sessionId = await signedIn(request, reply)
    if (sessionId === null) return reply
    const frame = frameOf(request, sessionId, 'audit')
    const [at, entryId] = (first(request.query.before) ?? '').split('~')
    const before = at && entryId ? { at, entryId } : undefined
    const entries = await sessions.listAudit(AUDIT_PAGE + 1, before)
    const page = entries.slice(0, AUDIT_PAGE)
    const last = page.at(-1)
    const olderHref =
      entries.length > AUDIT_PAGE && last
        ? `${base}/audit?lang=${frame.language}&before=${encodeURIComponent(`${last.at}~${last.entryId}`)}`
        : null
    return html(reply, 200, renderOperatorAudit(frame, page, olderHref))
  })
}
