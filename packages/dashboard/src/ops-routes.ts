// The dashboard's webhook pages and the payments export (docs/dashboard.md, "Webhooks", "Exporting
// payments"), doing what the merchant API does through service-kit's use cases (the same functions
// the gateway's /webhook-endpoints and /webhook-deliveries routes call). Reading is every role's;
// adding, enabling, disabling, rotating and redelivering is `configure` (owners and developers,
// access-rules.ts): a viewer's forged post is refused with 403 and changes nothing. Every change is
// recorded in the audit log.

import { Readable } from 'node:stream'
import { DomainError } from '@chainpay/domain'
import type { DashboardUser, PaymentReadModel } from '@chainpay/ports'
import {
  RedeliveryTooSoon,
  readDeliveriesQuery,
  type WebhookDeliveryActions,
  type WebhookEndpointActions,
} from '@chainpay/service-kit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type DashboardAction, mayDo } from './access-rules.js'
import type { DashboardAccounts } from './dashboard-accounts.js'
import { escapeHtml, message, type PageFrame, renderMessagePage, renderPage } from './dashboard-pages.js'
import { LIVE_SCRIPT, SETTLED_STATUSES } from './live-updates.js'
import { dailyVolume } from './payment-volume.js'
import { paymentCsvChunks, paymentListQueryOf } from './payments-csv.js'
import { volumeSections } from './volume-chart.js'
import { renderWebhookDeliveries, renderWebhookEndpoints } from './webhook-pages.js'
import { webhookTexts } from './webhook-texts.js'

/** how long one CSV export may stream (http-app.ts's deadline for every other request is a minute) */
const CSV_EXPORT_TIMEOUT_MS = 24 * 60 * 60 * 1000

type AnyRequest = FastifyRequest<{
  Params: Record<string, string>
  Querystring: Record<string, string | string[] | undefined>
  Body: unknown
}>

/** what the dashboard's routes share with the routes of an area (dashboard-routes.ts builds it) */
export interface OpsKit {
  base: string
  /** the signed-in user allowed `action`, or null after answering (sign-in, 403) */
  signedIn(
    request: AnyRequest,
    reply: FastifyReply,
    action: DashboardAction,
  ): Promise<{ user: DashboardUser; sessionId: string } | null>
  frameOf(
    request: AnyRequest,
    signed: { user: DashboardUser; sessionId: string },
    current?: PageFrame['current'],
  ): PageFrame
  html(reply: FastifyReply, code: number, page: string): FastifyReply
  field(body: unknown, name: string): string | undefined
}

export interface OpsDeps {
  accounts: Pick<DashboardAccounts, 'recordUserAudit'>
  readModel: Pick<PaymentReadModel, 'get' | 'list'>
  /** the merchant API's webhook use cases; absent: no webhook pages */
  webhooks?: { endpoints: WebhookEndpointActions; deliveries: WebhookDeliveryActions } | undefined
}

export async function registerOpsRoutes(app: FastifyInstance, kit: OpsKit, deps: OpsDeps): Promise<void> {
  const { base } = kit
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

  // live updates of a payment's page (live-updates.ts): the script, and the revision it watches
  app.get('/assets/live.js', async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=3600')
      .type('text/javascript; charset=utf-8')
      .send(LIVE_SCRIPT),
  )
  app.get('/payments/:paymentId/status', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'read')
    if (signed === null) return reply
    const document = await deps.readModel.get((request.params.paymentId ?? '').toLowerCase())
    if (document === null || document.merchantId !== signed.user.merchantId) {
      return reply.code(404).type('application/json').send({ error: 'not found' })
    }
    return reply.type('application/json').send({
      revision: document.revision,
      status: document.state.status,
      settled: SETTLED_STATUSES.includes(document.state.status),
    })
  })

  // the payments list's filters applied, every page of the read model streamed (payments-csv.ts)
  // any size: the export's own deadline (a day) instead of the one every other request has
  app.get('/payments.csv', { handlerTimeout: CSV_EXPORT_TIMEOUT_MS }, async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'read')
    if (signed === null) return reply
    const text = (name: string) => (first(request.query[name]) ?? '').trim().slice(0, 200)
    const parsed = paymentListQueryOf(signed.user.merchantId, {
      status: text('status'),
      network: text('network'),
      currency: text('currency'),
      createdFrom: text('createdFrom'),
      createdTo: text('createdTo'),
    })
    if ('problem' in parsed) {
      const frame = kit.frameOf(request, signed)
      return kit.html(
        reply,
        400,
        renderMessagePage(frame, frame.texts.payments, frame.texts.invalidFilter(parsed.problem)),
      )
    }
    const day = new Date().toISOString().slice(0, 10)
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="payments-${day}.csv"`)
      .send(Readable.from(paymentCsvChunks(deps.readModel, parsed.query)))
  })

  const textsOf = (frame: PageFrame) => webhookTexts[frame.language]

  // daily volume per asset, last 30 days (payment-volume.ts, volume-chart.ts)
  app.get('/volume', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'read')
    if (signed === null) return reply
    const frame = kit.frameOf(request, signed, 'volume')
    const w = textsOf(frame)
    const volume = await dailyVolume(deps.readModel, signed.user.merchantId, new Date())
    const body =
      volume.series.length === 0
        ? `<p role="status">${escapeHtml(w.noVolume)}</p>`
        : volumeSections(volume, { day: w.day, amount: w.received, caption: w.perDay })
    return kit.html(
      reply,
      200,
      renderPage(
        frame,
        w.volume,
        `<p>${escapeHtml(w.volumeIntro)}</p>${volume.truncated ? message('error', w.truncated) : ''}\n${body}`,
      ),
    )
  })

  const { webhooks } = deps
  if (webhooks === undefined) return

  const endpointsPage = async (
    request: AnyRequest,
    reply: FastifyReply,
    signed: { user: DashboardUser; sessionId: string },
    code: number,
    extra: {
      secret?: { url: string; secret: string; previousSecretExpiresAt: string | null }
      problem?: string
    } = {},
  ) => {
    const frame = kit.frameOf(request, signed, 'webhooks')
    return kit.html(
      reply,
      code,
      renderWebhookEndpoints(frame, textsOf(frame), {
        endpoints: await webhooks.endpoints.list(signed.user.merchantId),
        mayConfigure: mayDo(signed.user.role, 'configure'),
        ...extra,
      }),
    )
  }

  app.get('/webhooks', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'read')
    if (signed === null) return reply
    return endpointsPage(request, reply, signed, 200)
  })

  app.post('/webhooks/endpoints', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'configure')
    if (signed === null) return reply
    const description = kit.field(request.body, 'description')?.trim()
    try {
      const created = await webhooks.endpoints.create(signed.user.merchantId, {
        url: kit.field(request.body, 'url') ?? '',
        ...(description ? { description } : {}),
      })
      await deps.accounts.recordUserAudit(signed.user, 'webhook_endpoint.created', created.url)
      return endpointsPage(request, reply, signed, 201, {
        secret: { url: created.url, secret: created.secret, previousSecretExpiresAt: null },
      })
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return endpointsPage(request, reply, signed, 400, { problem: error.message })
    }
  })

  for (const enabled of [true, false]) {
    app.post(
      `/webhooks/endpoints/:endpointId/${enabled ? 'enable' : 'disable'}`,
      async (request: AnyRequest, reply) => {
        const signed = await kit.signedIn(request, reply, 'configure')
        if (signed === null) return reply
        try {
          const updated = await webhooks.endpoints.update(
            signed.user.merchantId,
            request.params.endpointId ?? '',
            {
              enabled,
            },
          )
          await deps.accounts.recordUserAudit(
            signed.user,
            enabled ? 'webhook_endpoint.enabled' : 'webhook_endpoint.disabled',
            updated.url,
          )
          return reply.redirect(`${base}/webhooks?lang=${kit.frameOf(request, signed).language}`, 303)
        } catch (error) {
          return refused(request, reply, signed, error)
        }
      },
    )
  }

  app.post('/webhooks/endpoints/:endpointId/rotate', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'configure')
    if (signed === null) return reply
    const merchantId = signed.user.merchantId
    try {
      const endpoint = await webhooks.endpoints.get(merchantId, request.params.endpointId ?? '')
      // the API's default overlap: the old secret keeps signing for 24 hours
      const rotated = await webhooks.endpoints.rotateSecret(merchantId, endpoint.id, undefined)
      await deps.accounts.recordUserAudit(signed.user, 'webhook_endpoint.secret_rotated', endpoint.url)
      return endpointsPage(request, reply, signed, 200, {
        secret: {
          url: endpoint.url,
          secret: rotated.secret,
          previousSecretExpiresAt: rotated.previousSecretExpiresAt,
        },
      })
    } catch (error) {
      return refused(request, reply, signed, error)
    }
  })

  const deliveriesPage = async (
    request: AnyRequest,
    reply: FastifyReply,
    signed: { user: DashboardUser; sessionId: string },
    notice?: { kind: 'ok' | 'error'; text: string },
    code = 200,
  ) => {
    const frame = kit.frameOf(request, signed, 'webhooks')
    const w = textsOf(frame)
    const paymentId = first(request.query.paymentId)?.trim() || undefined
    const status = first(request.query.status)?.trim() || undefined
    const cursor = first(request.query.cursor) || undefined
    // redelivered=1 is the notice's, not a filter
    let listed: Awaited<ReturnType<WebhookDeliveryActions['list']>>
    try {
      const query = readDeliveriesQuery({
        ...(paymentId ? { paymentId } : {}),
        ...(status ? { status } : {}),
        ...(cursor ? { cursor } : {}),
        limit: '25',
      })
      listed = await webhooks.deliveries.list(signed.user.merchantId, query)
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      return kit.html(reply, 400, renderMessagePage(frame, w.deliveries, error.message))
    }
    let nextHref: string | null = null
    if (listed.nextCursor !== null) {
      const next = new URLSearchParams({ lang: frame.language, cursor: listed.nextCursor })
      if (paymentId) next.set('paymentId', paymentId)
      if (status) next.set('status', status)
      nextHref = `${base}/webhooks/deliveries?${next}`
    }
    return kit.html(
      reply,
      code,
      renderWebhookDeliveries(frame, w, {
        deliveries: listed.data,
        mayConfigure: mayDo(signed.user.role, 'configure'),
        paymentId: paymentId?.toLowerCase() ?? null,
        status: status ?? '',
        nextHref,
        notice,
      }),
    )
  }

  app.get('/webhooks/deliveries', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'read')
    if (signed === null) return reply
    const w = textsOf(kit.frameOf(request, signed))
    const notice =
      first(request.query.redelivered) === '1' ? { kind: 'ok' as const, text: w.redelivered } : undefined
    return deliveriesPage(request, reply, signed, notice)
  })

  app.post('/webhooks/deliveries/:deliveryId/redeliver', async (request: AnyRequest, reply) => {
    const signed = await kit.signedIn(request, reply, 'configure')
    if (signed === null) return reply
    const frame = kit.frameOf(request, signed)
    const deliveryId = request.params.deliveryId ?? ''
    try {
      const requeued = await webhooks.deliveries.redeliver(signed.user.merchantId, deliveryId)
      await deps.accounts.recordUserAudit(signed.user, 'webhook_delivery.redelivered', deliveryId)
      const back = new URLSearchParams({
        lang: frame.language,
        paymentId: requeued.paymentId,
        redelivered: '1',
      })
      return reply.redirect(`${base}/webhooks/deliveries?${back}`, 303)
    } catch (error) {
      if (error instanceof RedeliveryTooSoon) {
        reply.header('retry-after', String(error.retryAfterSeconds))
        return deliveriesPage(request, reply, signed, { kind: 'error', text: error.message }, 429)
      }
      return refused(request, reply, signed, error)
    }
  })

  /** a DomainError as a page: 404 for what is not the merchant's, 400 otherwise */
  function refused(
    request: AnyRequest,
    reply: FastifyReply,
    signed: { user: DashboardUser; sessionId: string },
    error: unknown,
  ) {
    if (!(error instanceof DomainError)) throw error
    const frame = kit.frameOf(request, signed)
    const code = error.code === 'NOT_FOUND' ? 404 : 400
    return kit.html(reply, code, renderMessagePage(frame, frame.texts.notFound, error.message))
  }
}
