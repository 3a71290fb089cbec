// The dashboard's routes under {PUBLIC_URL}/dashboard (docs/dashboard.md), a fastify plugin the
// gateway registers on its public listener in both shapes. Sign-in, the one-time setup, payments
// (list with the filters of decisions.md section 14 and support's search, detail with history),
// users and the audit log for owners, the user's own sessions, sign-out. Every page carries the
// customer pages' headers (strict CSP, nothing from another origin, no framing, no caching); every
// post is checked for the dashboard's own origin and, once signed in, for the session's CSRF token
// and for the role's permission (access-rules.ts), on the server.

import { PaymentStatuses } from '@chainpay/contracts'
import {
  DomainError,
  isPaymentId,
  refundHistoryEventTypes,
  toPaymentHistoryView,
  toPaymentView,
} from '@chainpay/domain'
import {
  type DashboardRole,
  DashboardRoles,
  type OutgoingCommands,
  type PaymentCommands,
  type PaymentDocument,
  type PaymentListQuery,
  type PaymentReadModel,
  type PaymentSearch,
} from '@chainpay/ports'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import {
  csrfTokenMatches,
  csrfTokenOf,
  type DashboardAction,
  isSameOriginPost,
  mayDo,
  sessionCookieFor,
  storedHashOf,
} from './access-rules.js'
import { apiKeyRoutes, type DashboardApiKeys } from './api-key-routes.js'
import type { DashboardAccounts } from './dashboard-accounts.js'
import type { AnyRequest, DashboardRouteKit, Signed } from './dashboard-kit.js'
import {
  type PageFrame,
  type PaymentFilters,
  renderAudit,
  renderMessagePage,
  renderPaymentDetail,
  renderPayments,
  renderSessions,
  renderSetup,
  renderSignIn,
  renderUsers,
} from './dashboard-pages.js'
import { DASHBOARD_STYLES } from './dashboard-styles.js'
import { type DashboardLanguage, dashboardTexts, pickDashboardLanguage } from './dashboard-texts.js'
import { SETTLED_STATUSES } from './live-updates.js'
import { type DashboardMoneyDeps, moneyRoutes } from './money-routes.js'
import { type OpsDeps, registerOpsRoutes } from './ops-routes.js'
import { firstOf, formField, registerPageBasics } from './page-basics.js'
import { type DashboardReadingDeps, readingRoutes } from './reading-routes.js'
import { newTotpSecret, totpUri } from './totp.js'

export interface DashboardDeps {
  accounts: DashboardAccounts
  /** the read model the merchant API's GET /payments reads (packages/gateway/src/routes/payment-reading.ts) */
  readModel: Pick<PaymentReadModel, 'get' | 'list'>
  search: PaymentSearch
  /** a payment's history from the source of truth, as GET /payments/{id}/events reads it */
  commands: Pick<PaymentCommands, 'getPaymentHistory'>
  /** the payment's refunds in its history; absent: none shown */
  outgoing?: Pick<OutgoingCommands, 'getRefundHistory'> | undefined
  checkoutLinks: { urlOf(paymentId: string): string }
  /** PUBLIC_URL: the origin forms must come from, the cookie's attributes */
  publicUrl: string
  /** refunds, payouts and balances, as the merchant API's routes have them; absent: none shown */
  money?: DashboardMoneyDeps | undefined
  /** the merchant's API keys through the admin API's use cases (admin-api's merchantApiKeys); absent: none */
  apiKeys?: DashboardApiKeys | undefined
  /** the webhook pages: the merchant API's use cases (ops-routes.ts); absent: none */
  webhooks?: OpsDeps['webhooks']
  /** invoices, deposits and the merchant's settings, read as the merchant API reads them; absent: none */
  reading?: DashboardReadingDeps | undefined
}

const PAGE_SIZE = 25
const AUDIT_PAGE_SIZE = 50

export const dashboardRoutes: FastifyPluginAsync<DashboardDeps> = async (app, deps) => {
  const { accounts } = deps
  const publicOrigin = new URL(deps.publicUrl).origin
  const base = `${new URL(deps.publicUrl).pathname.replace(/\/$/, '')}/dashboard`
  const cookie = sessionCookieFor(deps.publicUrl)

  registerPageBasics(app, { sameOriginScript: true })
  const first = firstOf
  const field = formField
  const languageOf = (request: AnyRequest): DashboardLanguage =>
    pickDashboardLanguage(first(request.query.lang), request.headers['accept-language'])
  const frameOf = (request: AnyRequest, signed?: Signed, current?: PageFrame['current']): PageFrame => {
    const language = languageOf(request)
    return {
      language,
      texts: dashboardTexts[language],
      base,
      ...(signed
        ? { user: { email: signed.user.email, role: signed.user.role, csrf: csrfTokenOf(signed.sessionId) } }
        : {}),
      ...(current ? { current } : {}),
    }
  }
  const html = (reply: FastifyReply, code: number, page: string) =>
    reply.code(code).type('text/html; charset=utf-8').send(page)
  const sessionIdOf = (request: AnyRequest): string | undefined => {
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=')
      if (name === cookie.name) return value.join('=')
    }
    return undefined
  }
  const setSession = (reply: FastifyReply, sessionId: string) =>
    reply.header('set-cookie', `${cookie.name}=${sessionId}; ${cookie.attributes}`)
  const clearSession = (reply: FastifyReply) =>
    reply.header('set-cookie', `${cookie.name}=; ${cookie.attributes}; Max-Age=0`)
  const toSignIn = (request: AnyRequest, reply: FastifyReply, ended = false) => {
    if (ended) clearSession(reply)
    return reply.redirect(`${base}/sign-in?lang=${languageOf(request)}${ended ? '&ended=1' : ''}`, 303)
  }

  /** the signed-in user, or null after answering (to sign-in, or 403 for a post) */
  async function signedIn(
    request: AnyRequest,
    reply: FastifyReply,
    action: DashboardAction,
  ): Promise<Signed | null> {
    const sessionId = sessionIdOf(request)
    const { verdict, user } = await accounts.authenticate(sessionId)
    if (verdict !== 'valid' || user === undefined || sessionId === undefined) {
      if (request.method === 'GET') {
        await toSignIn(request, reply, sessionId !== undefined)
      } else {
        clearSession(reply)
        // the sign-in form itself, not a page without a way on: the form was not taken (403)
        const frame = frameOf(request)
        await html(reply, 403, renderSignIn(frame, { kind: 'error', text: frame.texts.sessionEnded }))
      }
      return null
    }
    const signed = { user, sessionId, sessionHash: storedHashOf(sessionId) }
    if (request.method !== 'GET') {
      // a form of another site, or without the session's token, changes nothing
      if (
        !isSameOriginPost(request.headers, publicOrigin) ||
        !csrfTokenMatches(sessionId, field(request.body, 'csrf'))
      ) {
        const frame = frameOf(request, signed)
        await html(reply, 403, renderMessagePage(frame, frame.texts.refused, frame.texts.refused))
        return null
      }
    }
    if (!mayDo(user.role, action)) {
      const frame = frameOf(request, signed)
      await html(reply, 403, renderMessagePage(frame, frame.texts.forbidden, frame.texts.forbidden))
      return null
    }
    return signed
  }

  app.get('/assets/dashboard.css', async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=3600')
      .type('text/css; charset=utf-8')
      .send(DASHBOARD_STYLES),
  )

  app.get('/', async (request: AnyRequest, reply) =>
    reply.redirect(`${base}/payments?lang=${languageOf(request)}`, 303),
  )

  app.get('/sign-in', async (request: AnyRequest, reply) => {
    const frame = frameOf(request)
    const t = frame.texts
    const notice =
      first(request.query.ended) === '1'
        ? { kind: 'error' as const, text: t.sessionEnded }
        : first(request.query.ready) === '1'
          ? { kind: 'ok' as const, text: t.setupDone }
          : undefined
    return html(reply, 200, renderSignIn(frame, notice))
  })

  app.post('/sign-in', async (request: AnyRequest, reply) => {
    const frame = frameOf(request)
    const t = frame.texts
    // no session yet: the Origin and Sec-Fetch-Site check keeps other sites from signing a browser in
    if (!isSameOriginPost(request.headers, publicOrigin)) {
      return html(reply, 403, renderMessagePage(frame, t.signIn, t.refused))
    }
    const email = field(request.body, 'email') ?? ''
    const outcome = await accounts.signIn({
      email,
      password: field(request.body, 'password') ?? '',
      code: field(request.body, 'code'),
      address: request.ip,
      userAgent: request.headers['user-agent'] ?? '',
    })
    if (!outcome.ok) {
      const text =
        outcome.reason === 'locked' && outcome.lockedUntil
          ? t.locked(`${outcome.lockedUntil.toISOString().replace('T', ' ').slice(0, 16)} UTC`)
          : t.signInFailed
      return html(
        reply,
        outcome.reason === 'locked' ? 429 : 401,
        renderSignIn(frame, { kind: 'error', text }, email),
      )
    }
    setSession(reply, outcome.sessionId)
    return reply.redirect(`${base}/payments?lang=${frame.language}`, 303)
  })

  app.post('/sign-out', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    await accounts.signOut(signed.user, signed.sessionHash)
    clearSession(reply)
    return reply.redirect(`${base}/sign-in?lang=${languageOf(request)}`, 303)
  })

  // the one-time setup link: the password, and TOTP for an owner
  const setupPage = async (
    request: AnyRequest,
    reply: FastifyReply,
    code: number,
    problem?: Parameters<typeof renderSetup>[1]['problem'],
    secret?: string,
  ) => {
    const frame = frameOf(request)
    const user = await accounts.userOfSetupToken(request.params.token ?? '')
    if (user === null)
      return html(reply, 404, renderMessagePage(frame, frame.texts.setupTitle, frame.texts.setupUsed))
    const totpSecret =
      user.role === 'owner' ? (secret && /^[A-Z2-7]{32}$/.test(secret) ? secret : newTotpSecret()) : null
    return html(
      reply,
      code,
      renderSetup(frame, {
        path: `${base}/setup/${request.params.token}`,
        email: user.email,
        totp: totpSecret === null ? null : { secret: totpSecret, uri: totpUri(totpSecret, user.email) },
        problem,
      }),
    )
  }
  app.get('/setup/:token', async (request: AnyRequest, reply) => setupPage(request, reply, 200))
  app.post('/setup/:token', async (request: AnyRequest, reply) => {
    const frame = frameOf(request)
    if (!isSameOriginPost(request.headers, publicOrigin)) {
      return html(reply, 403, renderMessagePage(frame, frame.texts.setupTitle, frame.texts.refused))
    }
    const totpSecret = field(request.body, 'totpSecret')
    const outcome = await accounts.completeSetup({
      token: request.params.token ?? '',
      password: field(request.body, 'password') ?? '',
      confirmation: field(request.body, 'confirmation') ?? '',
      totpSecret,
      totpCode: field(request.body, 'code'),
    })
    if (!outcome.ok) return setupPage(request, reply, 400, outcome.problem, totpSecret)
    return reply.redirect(`${base}/sign-in?lang=${frame.language}&ready=1`, 303)
  })

  app.get('/payments', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'payments')
    const merchantId = signed.user.merchantId
    const text = (name: string) => (first(request.query[name]) ?? '').trim().slice(0, 200)
    const filters: PaymentFilters = {
      q: text('q'),
      status: text('status'),
      network: text('network'),
      currency: text('currency'),
      createdFrom: text('createdFrom'),
      createdTo: text('createdTo'),
    }
    const render = (documents: PaymentDocument[], nextHref: string | null, problem?: string) =>
      html(
        reply,
        problem ? 400 : 200,
        renderPayments(frame, {
          filters,
          statuses: PaymentStatuses,
          rows: documents.map(({ state }) => {
            const view = toPaymentView(state, '')
            return {
              paymentId: view.paymentId,
              status: view.status,
              amount: view.amount,
              currency: view.currency,
              network: view.network,
              address: view.generatedAddress,
              createdAt: view.createdAt,
            }
          }),
          nextHref,
          problem,
        }),
      )
    // support's search: a payment id, else a receiving address or a transaction hash
    if (filters.q !== '') {
      if (isPaymentId(filters.q)) {
        const found = await deps.readModel.get(filters.q.toLowerCase())
        return render(found !== null && found.merchantId === merchantId ? [found] : [], null)
      }
      return render(await deps.search.findByReference(merchantId, filters.q, PAGE_SIZE), null)
    }
    const query: PaymentListQuery = { merchantId, limit: PAGE_SIZE + 1 }
    if (filters.status !== '') {
      if (!(PaymentStatuses as readonly string[]).includes(filters.status))
        return render([], null, frame.texts.status)
      query.statuses = [filters.status as (typeof PaymentStatuses)[number]]
    }
    if (filters.network !== '') query.network = filters.network
    if (filters.currency !== '') query.currency = filters.currency.toUpperCase()
    for (const [name, label] of [
      ['createdFrom', frame.texts.createdFrom],
      ['createdTo', frame.texts.createdTo],
    ] as const) {
      if (filters[name] === '') continue
      const day = dayStart(filters[name])
      if (day === null) return render([], null, label)
      query[name] = day
    }
    const cursor = first(request.query.cursor)
    if (cursor !== undefined) {
      const after = decodeCursor(cursor)
      if (after === null) return render([], null, 'cursor')
      query.after = after
    }
    const documents = await deps.readModel.list(query)
    const page = documents.slice(0, PAGE_SIZE)
    const last = page.at(-1)
    let nextHref: string | null = null
    if (documents.length > PAGE_SIZE && last !== undefined) {
      const next = new URLSearchParams({ ...filters, lang: frame.language })
      next.set('cursor', encodeCursor({ createdAt: last.state.created.createdAt, paymentId: last.paymentId }))
      nextHref = `${base}/payments?${next}`
    }
    return render(page, nextHref)
  })

  app.get('/payments/:paymentId', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'payments')
    const t = frame.texts
    const merchantId = signed.user.merchantId
    const text = request.params.paymentId ?? ''
    const document = isPaymentId(text) ? await deps.readModel.get(text.toLowerCase()) : null
    const history =
      document === null || document.merchantId !== merchantId
        ? null
        : await deps.commands.getPaymentHistory({ merchantId, paymentId: document.paymentId })
    if (document === null || history === null) {
      return html(reply, 404, renderMessagePage(frame, t.notFound, t.notFound))
    }
    const paymentId = document.paymentId
    const view = toPaymentView(document.state, deps.checkoutLinks.urlOf(paymentId))
    const events = toPaymentHistoryView(history, { confirmations: 'last' }).data
    const refunds = (await deps.outgoing?.getRefundHistory({ merchantId, paymentId })) ?? []
    const rows = [
      ...events.map(({ type, occurredAt, data }) => ({ type, occurredAt, data })),
      ...refunds.map((entry) => ({
        type: refundHistoryEventTypes[entry.type],
        occurredAt: entry.recordedAt,
        data: entry.data as Record<string, unknown>,
      })),
    ].sort((a, b) => a.occurredAt.localeCompare(b.occurredAt))
    const fields: [string, string, boolean?][] = [
      ['ID', view.paymentId, true],
      [t.status, view.status],
      [t.amount, `${view.amount} ${view.currency}`],
      [t.received, view.receivedAmount === null ? '—' : `${view.receivedAmount} ${view.currency}`],
      [t.fee, `${view.receivedFeeAmount ?? view.feeAmount} ${view.currency}`],
      [t.net, `${view.receivedNetAmount ?? view.netAmount} ${view.currency}`],
      [t.network, `${view.network} · ${view.tokenStandard}`],
      [t.address, view.generatedAddress, true],
      [t.txHash, view.txHash ?? '—', true],
      [t.created, view.createdAt],
      [t.expiresAt, view.expiresAt],
      [t.confirmedAt, view.confirmedAt ?? '—'],
      [t.description, view.description ?? '—'],
      [t.metadata, JSON.stringify(view.metadata), true],
    ]
    // an owner refunds from here (money-routes.ts)
    const refundHref =
      deps.money && mayDo(signed.user.role, 'move_money')
        ? `${base}/payments/${paymentId}/refund?lang=${frame.language}`
        : undefined
    return html(
      reply,
      200,
      renderPaymentDetail(frame, {
        fields,
        checkoutUrl: view.checkoutUrl,
        history: rows,
        refundHref,
        // while it can still change, the page follows it (live-updates.ts)
        ...(SETTLED_STATUSES.includes(view.status)
          ? {}
          : {
              live: { statusUrl: `${base}/payments/${view.paymentId}/status`, revision: document.revision },
            }),
        ...(deps.webhooks
          ? {
              deliveriesHref: `${base}/webhooks/deliveries?paymentId=${view.paymentId}&lang=${frame.language}`,
            }
          : {}),
      }),
    )
  })

  app.get('/audit', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'manage_users')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'audit')
    const before = decodeAuditCursor(first(request.query.before))
    const entries = await accounts.listAudit(signed.user.merchantId, AUDIT_PAGE_SIZE + 1, before ?? undefined)
    const page = entries.slice(0, AUDIT_PAGE_SIZE)
    const last = page.at(-1)
    const olderHref =
      entries.length > AUDIT_PAGE_SIZE && last
        ? `${base}/audit?lang=${frame.language}&before=${encodeURIComponent(`${last.at}~${last.entryId}`)}`
        : null
    return html(reply, 200, renderAudit(frame, page, olderHref))
  })

  app.get('/users', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'manage_users')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'users')
    return html(reply, 200, renderUsers(frame, await accounts.listUsers(signed.user.merchantId)))
  })

  app.post('/users', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'manage_users')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'users')
    const merchantId = signed.user.merchantId
    try {
      const added = await accounts.addUser({
        merchantId,
        email: field(request.body, 'email') ?? '',
        role: field(request.body, 'role') ?? '',
        actor: signed.user.email,
      })
      const users = await accounts.listUsers(merchantId)
      return html(
        reply,
        201,
        renderUsers(frame, users, { email: added.user.email, setupUrl: added.setupUrl }),
      )
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return html(
        reply,
        400,
        renderUsers(frame, await accounts.listUsers(merchantId), undefined, error.message),
      )
    }
  })

  // an owner changes a user's role, or disables or enables the user
  const changeUser = async (
    request: AnyRequest,
    reply: FastifyReply,
    change: { role?: DashboardRole; enabled?: boolean },
  ) => {
    const signed = await signedIn(request, reply, 'manage_users')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'users')
    const outcome = await accounts.changeUser(signed.user, request.params.userId ?? '', change)
    const users = () => accounts.listUsers(signed.user.merchantId)
    if (outcome === 'unknown')
      return html(reply, 404, renderMessagePage(frame, frame.texts.notFound, frame.texts.notFound))
    if (outcome === 'last_owner')
      return html(reply, 409, renderUsers(frame, await users(), undefined, frame.texts.lastOwner))
    if (outcome === 'needs_totp')
      return html(reply, 409, renderUsers(frame, await users(), undefined, frame.texts.ownerNeedsTotp))
    return reply.redirect(`${base}/users?lang=${frame.language}`, 303)
  }
  app.post('/users/:userId/role', async (request: AnyRequest, reply) => {
    const role = field(request.body, 'role')
    if (!(DashboardRoles as readonly string[]).includes(role ?? '')) {
      const signed = await signedIn(request, reply, 'manage_users')
      if (signed === null) return reply
      const frame = frameOf(request, signed, 'users')
      return html(
        reply,
        400,
        renderUsers(frame, await accounts.listUsers(signed.user.merchantId), undefined, frame.texts.role),
      )
    }
    return changeUser(request, reply, { role: role as DashboardRole })
  })
  // a new setup link for a user who lost the password or the authenticator, shown this once
  app.post('/users/:userId/reset', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'manage_users')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'users')
    const merchantId = signed.user.merchantId
    const target = (await accounts.listUsers(merchantId)).find(
      (user) => user.userId === request.params.userId,
    )
    const reset =
      target === undefined
        ? null
        : await accounts.resetUser({ merchantId, email: target.email, actor: signed.user.email })
    if (reset === null)
      return html(reply, 404, renderMessagePage(frame, frame.texts.notFound, frame.texts.notFound))
    const users = await accounts.listUsers(merchantId)
    return html(reply, 200, renderUsers(frame, users, { email: reset.user.email, setupUrl: reset.setupUrl }))
  })
  // every session of another user ends; the user stays enabled and may sign in again
  app.post('/users/:userId/sign-out', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'manage_users')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'users')
    if (!(await accounts.endUserSessions(signed.user, request.params.userId ?? '')))
      return html(reply, 404, renderMessagePage(frame, frame.texts.notFound, frame.texts.notFound))
    return reply.redirect(`${base}/users?lang=${frame.language}`, 303)
  })
  app.post('/users/:userId/disable', async (request: AnyRequest, reply) =>
    changeUser(request, reply, { enabled: false }),
  )
  app.post('/users/:userId/enable', async (request: AnyRequest, reply) =>
    changeUser(request, reply, { enabled: true }),
  )

  app.get('/sessions', async (request: AnyRequest, reply) => {
    // one's own sessions: every role may see and end them (signing out changes nothing of the merchant's)
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    const frame = frameOf(request, signed, 'sessions')
    return html(
      reply,
      200,
      renderSessions(frame, await accounts.listSessions(signed.user), signed.sessionHash),
    )
  })

  // webhook endpoints and deliveries, the CSV export (ops-routes.ts)
  await registerOpsRoutes(
    app,
    {
      base,
      signedIn,
      frameOf: (request, signed, current) => frameOf(request, { ...signed, sessionHash: '' }, current),
      html,
      field,
    },
    { accounts, readModel: deps.readModel, webhooks: deps.webhooks },
  )

  app.post('/sessions/:sessionHash/revoke', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    await accounts.revokeSession(signed.user, request.params.sessionHash ?? '')
    return reply.redirect(`${base}/sessions?lang=${languageOf(request)}`, 303)
  })

  // the refunds and API key pages, in files of their own, with this file's helpers
  const routeKit: DashboardRouteKit = {
    base,
    signedIn,
    frameOf,
    html,
    field,
    first,
    languageOf,
    messagePage: renderMessagePage,
  }
  if (deps.money)
    await app.register(moneyRoutes, { ...deps.money, kit: routeKit, accounts, readModel: deps.readModel })
  if (deps.apiKeys) await app.register(apiKeyRoutes, { apiKeys: deps.apiKeys, kit: routeKit, accounts })
  if (deps.reading) await app.register(readingRoutes, { ...deps.reading, kit: routeKit })
}

/** the start of a day typed in a date field (YYYY-MM-DD), as payments record instants; null if none */
function dayStart(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null
  const time = Date.parse(`${text}T00:00:00.000Z`)
  if (Number.isNaN(time)) return null
  const instant = new Date(time).toISOString()
  return instant.startsWith(text) ? instant : null
}

function encodeCursor(position: { createdAt: string; paymentId: string }): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.paymentId])).toString('base64url')
}

function decodeCursor(cursor: string): { createdAt: string; paymentId: string } | null {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (!Array.isArray(decoded) || decoded.length !== 2) return null
    const [createdAt, paymentId] = decoded as unknown[]
    return typeof createdAt === 'string' && typeof paymentId === 'string' ? { createdAt, paymentId } : null
  } catch {
    return null
  }
}

function decodeAuditCursor(text: string | undefined): { at: string; entryId: string } | null {
  if (text === undefined) return null
  const [at, entryId] = text.split('~')
  return at && entryId ? { at, entryId } : null
}
