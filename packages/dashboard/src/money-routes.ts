// Refunds, payouts and balances on the dashboard (docs/dashboard.md, "Refunds and payouts"),
// registered by dashboard-routes.ts. Each route calls what the merchant API's routes call
// (packages/gateway/src/routes/outgoing.ts): payment-command's OutgoingCommands for creates, cancels
// and balances, the refunds and payouts read model for the lists, and the gateway's write-through
// after each command so the list shows it at once. Reading needs `read`; creating and canceling
// need `move_money` (owners only, access-rules.ts), checked here on the server; every change goes
// to the audit log. A form carries an idempotency key, so a double submit creates one.

import { randomUUID } from 'node:crypto'
import {
  DomainError,
  isPaymentId,
  type Outgoing,
  type OutgoingKind,
  type OutgoingStatus,
  OutgoingStatuses,
  type PayoutView,
  type RefundView,
  toPaymentView,
  toPayoutView,
  toRefundView,
} from '@chainpay/domain'
import type {
  CreateOutgoingOutcome,
  OutgoingCommands,
  OutgoingDocument,
  OutgoingReadModel,
  OutgoingSnapshot,
  PaymentReadModel,
} from '@chainpay/ports'
import { toBalanceView } from '@chainpay/service-kit'
import type { FastifyPluginAsync } from 'fastify'
import { mayDo } from './access-rules.js'
import type { DashboardAccounts } from './dashboard-accounts.js'
import type { AnyRequest, DashboardRouteKit } from './dashboard-kit.js'
import { type MoneyNotice, renderRefundForm, renderRefunds } from './money-pages.js'
import { moneyTexts } from './money-texts.js'

/** what the merchant API's refunds and payouts routes are given (the gateway's app passes the same) */
export interface DashboardMoneyDeps {
  outgoing: Pick<OutgoingCommands, 'createRefund' | 'createPayout' | 'cancelOutgoing' | 'getBalances'>
  outgoingReadModel: Pick<OutgoingReadModel, 'listForMerchant'>
  /** the gateway's read-your-writes of refunds and payouts (packages/gateway/src/routes/outgoing-reading.ts) */
  outgoingReading: {
    saveAfterCommand(
      snapshot: OutgoingSnapshot,
      log: { warn(fields: object, message: string): void },
    ): Promise<void>
    page(documents: OutgoingDocument[]): Promise<Outgoing[]>
  }
  claimLinks: { urlOf(refundId: string): string }
}

export interface MoneyRoutesOptions extends DashboardMoneyDeps {
  kit: DashboardRouteKit
  accounts: Pick<DashboardAccounts, 'recordAudit'>
  readModel: Pick<PaymentReadModel, 'get'>
}

const LIST_SIZE = 25

export const moneyRoutes: FastifyPluginAsync<MoneyRoutesOptions> = async (app, deps) => {
  const { kit, outgoing, claimLinks } = deps
  const { base, signedIn, frameOf, html, field, first } = kit
  const refundView = (item: Outgoing) => toRefundView(item, (id) => claimLinks.urlOf(id))
  const balanceRows = async (merchantId: string) =>
    // what GET /balances answers (service-kit's toBalanceView)
    (await outgoing.getBalances({ merchantId })).map(toBalanceView)
  /** a page of the newest first, after `cursor` (an older page's link); the next page's cursor */
  const list = async (
    merchantId: string,
    kind: OutgoingKind,
    status: OutgoingStatus | undefined,
    cursor: string | undefined,
  ) => {
    const after = cursor === undefined ? null : decodeListCursor(cursor)
    // one more than the page: whether there is an older page, without a count
    const documents = await deps.outgoingReadModel.listForMerchant({
      merchantId,
      kind,
      limit: LIST_SIZE + 1,
      ...(status ? { statuses: [status] } : {}),
      ...(after ? { after } : {}),
    })
    const page = documents.slice(0, LIST_SIZE)
    const last = page.at(-1)?.item
    const next = documents.length > LIST_SIZE && last ? encodeListCursor(last) : null
    // an item this gateway changed that the read model has not stored yet: as payment-command has it
    const items = (await deps.outgoingReading.page(page)).filter(
      (item) => status === undefined || item.status === status,
    )
    return { items, next }
  }

  const refundsPage = async (
    request: Parameters<typeof frameOf>[0],
    reply: Parameters<typeof html>[0],
    signed: NonNullable<Awaited<ReturnType<typeof signedIn>>>,
    code: number,
    notice?: MoneyNotice,
  ) => {
    const frame = frameOf(request, signed, 'refunds')
    const m = moneyTexts[frame.language]
    const merchantId = signed.user.merchantId
    const statusText = (first(request.query.status) ?? '').trim()
    const status = (OutgoingStatuses as readonly string[]).includes(statusText)
      ? (statusText as OutgoingStatus)
      : undefined
    const [balances, refunds, payouts] = await Promise.all([
      balanceRows(merchantId),
      list(merchantId, 'refund', status, first(request.query.refundsAfter)),
      list(merchantId, 'payout', status, first(request.query.payoutsAfter)),
    ])
    const olderHref = (name: string, cursor: string | null) =>
      cursor === null
        ? null
        : `${base}/refunds?${new URLSearchParams({ lang: frame.language, status: status ?? '', [name]: cursor })}`
    return html(
      reply,
      code,
      renderRefunds(frame, m, {
        balances,
        refunds: refunds.items.map(refundView) as RefundView[],
        payouts: payouts.items.map(toPayoutView) as PayoutView[],
        olderRefundsHref: olderHref('refundsAfter', refunds.next),
        olderPayoutsHref: olderHref('payoutsAfter', payouts.next),
        status: status ?? '',
        statuses: OutgoingStatuses,
        mayMoveMoney: mayDo(signed.user.role, 'move_money'),
        idempotencyKey: randomUUID(),
        notice,
      }),
    )
  }

  /** the notice after a create: created or replayed, with a refund's claim link */
  const createdNotice = (language: 'en' | 'de', created: CreateOutgoingOutcome): MoneyNotice => {
    const m = moneyTexts[language]
    const kindText = created.item.kind === 'refund' ? m.refund : m.payout
    return {
      kind: 'ok',
      text: (created.outcome === 'created' ? m.created : m.replayed)(kindText, created.item.id),
      claimUrl: created.item.kind === 'refund' ? refundView(created.item).claimUrl : null,
    }
  }

  app.get('/refunds', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'read')
    if (signed === null) return reply
    return refundsPage(request, reply, signed, 200)
  })

  /** the payment's refund form: a link on the payment's page leads here */
  const paymentOf = async (merchantId: string, text: string) => {
    const document = isPaymentId(text) ? await deps.readModel.get(text.toLowerCase()) : null
    return document !== null && document.merchantId === merchantId ? document : null
  }
  const refundForm = async (
    request: Parameters<typeof frameOf>[0],
    reply: Parameters<typeof html>[0],
    signed: NonNullable<Awaited<ReturnType<typeof signedIn>>>,
    code: number,
    extra: Pick<Parameters<typeof renderRefundForm>[2], 'values' | 'notice' | 'idempotencyKey'> = {
      idempotencyKey: randomUUID(),
    },
  ) => {
    const frame = frameOf(request, signed, 'payments')
    const document = await paymentOf(signed.user.merchantId, request.params.paymentId ?? '')
    if (document === null) {
      return html(reply, 404, kit.messagePage(frame, frame.texts.notFound, frame.texts.notFound))
    }
    const view = toPaymentView(document.state, '')
    const received = view.receivedAmount ?? '0'
    return html(
      reply,
      code,
      renderRefundForm(frame, moneyTexts[frame.language], {
        paymentId: document.paymentId,
        summary: `${view.paymentId} · ${view.network} · ${frame.texts.received}: ${received} ${view.currency}`,
        ...extra,
      }),
    )
  }
  app.get('/payments/:paymentId/refund', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'move_money')
    if (signed === null) return reply
    return refundForm(request, reply, signed, 200)
  })

  app.post('/payments/:paymentId/refunds', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'move_money')
    if (signed === null) return reply
    const merchantId = signed.user.merchantId
    const values = {
      amount: (field(request.body, 'amount') ?? '').trim(),
      address: (field(request.body, 'address') ?? '').trim(),
      reason: (field(request.body, 'reason') ?? '').trim(),
    }
    const idempotencyKey = field(request.body, 'idempotencyKey') ?? ''
    const document = await paymentOf(merchantId, request.params.paymentId ?? '')
    if (document === null) return refundForm(request, reply, signed, 404)
    try {
      const created = await outgoing.createRefund({
        merchantId,
        paymentId: document.paymentId,
        // the merchant API's body (decisions.md section 20); the domain validates it
        request: {
          amount: values.amount,
          idempotencyKey,
          ...(values.address !== '' ? { address: values.address } : {}),
          ...(values.reason !== '' ? { reason: values.reason } : {}),
        },
      })
      await afterCreate(created, signed.user, request.log)
      return refundsPage(
        request,
        reply,
        signed,
        created.outcome === 'created' ? 201 : 200,
        createdNotice(kit.languageOf(request), created),
      )
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      const m = moneyTexts[kit.languageOf(request)]
      return refundForm(request, reply, signed, statusOf(error), {
        idempotencyKey,
        values,
        notice: { kind: 'error', text: m.refused(error.message) },
      })
    }
  })

  app.post('/payouts', async (request: AnyRequest, reply) => {
    const signed = await signedIn(request, reply, 'move_money')
    if (signed === null) return reply
    const text = (name: string) => (field(request.body, name) ?? '').trim()
    try {
      const created = await outgoing.createPayout({
        merchantId: signed.user.merchantId,
        request: {
          network: text('network'),
          currency: text('currency').toUpperCase(),
          amount: text('amount'),
          address: text('address'),
          idempotencyKey: field(request.body, 'idempotencyKey') ?? '',
        },
      })
      await afterCreate(created, signed.user, request.log)
      return refundsPage(
        request,
        reply,
        signed,
        created.outcome === 'created' ? 201 : 200,
        createdNotice(kit.languageOf(request), created),
      )
    } catch (error) {
      if (!(error instanceof DomainError)) throw error
      const m = moneyTexts[kit.languageOf(request)]
      return refundsPage(request, reply, signed, statusOf(error), {
        kind: 'error',
        text: m.refused(error.message),
      })
    }
  })

  for (const kind of ['refund', 'payout'] as const) {
    app.post(`/${kind}s/:id/cancel`, async (request: AnyRequest, reply) => {
      const signed = await signedIn(request, reply, 'move_money')
      if (signed === null) return reply
      const id = request.params.id ?? ''
      try {
        if (!isPaymentId(id)) throw new DomainError('VALIDATION_ERROR', `${kind}Id: must be a UUID`)
        const canceled = await outgoing.cancelOutgoing({
          merchantId: signed.user.merchantId,
          kind,
          id: id.toLowerCase(),
        })
        await deps.outgoingReading.saveAfterCommand(canceled, request.log)
        await deps.accounts.recordAudit(
          signed.user.merchantId,
          signed.user.email,
          `${kind}.canceled`,
          canceled.item.id,
        )
        return reply.redirect(`${base}/refunds?lang=${kit.languageOf(request)}`, 303)
      } catch (error) {
        if (!(error instanceof DomainError)) throw error
        const m = moneyTexts[kit.languageOf(request)]
        return refundsPage(request, reply, signed, statusOf(error), {
          kind: 'error',
          text: m.refused(error.message),
        })
      }
    })
  }

  async function afterCreate(
    created: CreateOutgoingOutcome,
    user: { merchantId: string; email: string },
    log: { warn(fields: object, message: string): void },
  ) {
    await deps.outgoingReading.saveAfterCommand(created, log)
    // a replayed submit changed nothing: the audit log has the first one
    if (created.outcome !== 'created') return
    const { item } = created
    const to = item.address ?? 'claim link'
    await deps.accounts.recordAudit(
      user.merchantId,
      user.email,
      `${item.kind}.created`,
      `${item.id}: ${item.amount} ${item.currency} on ${item.network} to ${to}`,
    )
  }
}

function encodeListCursor(item: { createdAt: string; id: string }): string {
  return Buffer.from(JSON.stringify([item.createdAt, item.id])).toString('base64url')
}

function decodeListCursor(cursor: string): { createdAt: string; id: string } | null {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown
    if (!Array.isArray(decoded) || decoded.length !== 2) return null
    const [createdAt, id] = decoded as unknown[]
    return typeof createdAt === 'string' && typeof id === 'string' ? { createdAt, id } : null
  } catch {
    return null
  }
}

/** the merchant API's status for a refused command (decisions.md section 8) */
function statusOf(error: DomainError): number {
  if (error.code.endsWith('_NOT_FOUND')) return 404
  if (error.code === 'VALIDATION_ERROR') return 400
  return 409
}
