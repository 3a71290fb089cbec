// The merchant API's refunds, payouts and balances (docs/api.md, "Refunds and payouts" and
// "Balances"). Thin: a create's body goes to payment-command as the merchant sent it (the domain
// validates it); lists and GETs read the refunds and payouts read model, and what a create or a cancel
// answered is written through to it first (outgoing-reading.ts), so a GET right after shows it as it
// now is.

import { API_BASE_PATH } from '@chainpay/contracts'
import {
  DomainError,
  isPaymentId,
  type Outgoing,
  type OutgoingKind,
  type OutgoingStatus,
  OutgoingStatuses,
  toPayoutView,
  toRefundView,
} from '@chainpay/domain'
import type { MerchantOutgoingQuery, OutgoingCommands, OutgoingReadModel } from '@chainpay/ports'
import { type ClaimLinks, toBalanceView } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { merchantIdOf } from './merchant-id-of.js'
import type { OutgoingReading } from './outgoing-reading.js'
import { decodeCursor, encodeCursor } from './payment-reading.js'

export interface OutgoingRoutesDeps {
  outgoing: OutgoingCommands
  /** a refund without an address carries its claim page (docs/api.md, "Refunds and payouts") */
  claimLinks: Pick<ClaimLinks, 'urlOf'>
  /** the lists' pages (docs/architecture.md, "The refunds and payouts read model") */
  outgoingReadModel: Pick<OutgoingReadModel, 'listForMerchant'>
  /** write-through after a command, and reads that see it */
  outgoingReading: OutgoingReading
}

const PAGE_LIMIT = { default: 20, max: 100 } as const

export const outgoingRoutes: FastifyPluginAsyncTypebox<OutgoingRoutesDeps> = async (app, deps) => {
  const { outgoing, claimLinks, outgoingReadModel, outgoingReading } = deps
  const viewOf = (item: Outgoing) =>
    item.kind === 'refund' ? toRefundView(item, (id) => claimLinks.urlOf(id)) : toPayoutView(item)
  const plural = (kind: OutgoingKind) => (kind === 'refund' ? 'refunds' : 'payouts')

  app.post<{ Params: { paymentId: string } }>('/payments/:paymentId/refunds', async (request, reply) => {
    const paymentId = readId('paymentId', request.params.paymentId)
    const created = await outgoing.createRefund({
      merchantId: merchantIdOf(request),
      paymentId,
      request: request.body,
    })
    await outgoingReading.saveAfterCommand(created, request.log)
    return answerCreated(
      reply,
      created.outcome,
      viewOf(created.item),
      `${API_BASE_PATH}/refunds/${created.item.id}`,
    )
  })

  app.post('/payouts', async (request, reply) => {
    const created = await outgoing.createPayout({ merchantId: merchantIdOf(request), request: request.body })
    await outgoingReading.saveAfterCommand(created, request.log)
    return answerCreated(
      reply,
      created.outcome,
      viewOf(created.item),
      `${API_BASE_PATH}/payouts/${created.item.id}`,
    )
  })

  for (const kind of ['refund', 'payout'] as const) {
    const idField = `${kind}Id`
    app.get(`/${plural(kind)}`, async (request) => {
      const query = readListQuery(request, kind)
      // one more than the page: whether there is a next page, without a count
      const documents = await outgoingReadModel.listForMerchant({ ...query, limit: query.limit + 1 })
      const page = documents.slice(0, query.limit)
      const last = page.at(-1)?.item
      const nextCursor =
        documents.length > query.limit && last !== undefined
          ? encodeCursor({ createdAt: last.createdAt, paymentId: last.id })
          : null
      // an item this gateway changed that the read model has not stored yet: as payment-command has it
      const items = (await outgoingReading.page(page)).filter(
        (item) => query.statuses === undefined || query.statuses.includes(item.status),
      )
      return { data: items.map(viewOf), nextCursor }
    })

    app.get<{ Params: Record<string, string> }>(`/${plural(kind)}/:${idField}`, async (request) => {
      const id = readId(idField, request.params[idField] ?? '')
      const item = await outgoingReading.read(kind, id, merchantIdOf(request))
      if (item === null) throw notFound(kind, id)
      return viewOf(item)
    })

    app.post<{ Params: Record<string, string> }>(`/${plural(kind)}/:${idField}/cancel`, async (request) => {
      const id = readId(idField, request.params[idField] ?? '')
      if (request.rawBody !== '' && !isEmptyObject(request.body)) {
        throw new DomainError('VALIDATION_ERROR', 'body: must be empty or {}')
      }
      const canceled = await outgoing.cancelOutgoing({ merchantId: merchantIdOf(request), kind, id })
      await outgoingReading.saveAfterCommand(canceled, request.log)
      return viewOf(canceled.item)
    })
  }

  app.get('/balances', async (request) => ({
    data: (await outgoing.getBalances({ merchantId: merchantIdOf(request) })).map(toBalanceView),
  }))
}

function answerCreated(
  reply: import('fastify').FastifyReply,
  outcome: 'created' | 'replayed',
  view: object,
  location: string,
) {
  if (outcome === 'replayed') return reply.code(200).header('idempotent-replayed', 'true').send(view)
  return reply.code(201).header('location', location).send(view)
}

function readListQuery(request: FastifyRequest, kind: OutgoingKind): MerchantOutgoingQuery {
  const query = request.query as Record<string, unknown>
  const allowed =
    kind === 'refund' ? ['limit', 'cursor', 'status', 'paymentId'] : ['limit', 'cursor', 'status']
  const unknown = Object.keys(query).find((key) => !allowed.includes(key))
  if (unknown !== undefined) throw invalid(unknown, `unknown parameter; allowed: ${allowed.join(', ')}`)
  const text = (name: string) => {
    const value = query[name]
    if (value === undefined) return undefined
    if (typeof value !== 'string') throw invalid(name, 'given more than once')
    return value
  }
  const limitText = text('limit')
  const limit = limitText === undefined ? PAGE_LIMIT.default : Number(limitText)
  if (
    !/^[0-9]{1,3}$/.test(limitText ?? '20') ||
    !Number.isInteger(limit) ||
    limit < 1 ||
    limit > PAGE_LIMIT.max
  ) {
    throw invalid('limit', `must be an integer from 1 to ${PAGE_LIMIT.max}`)
  }
  const listQuery: MerchantOutgoingQuery = { merchantId: merchantIdOf(request), kind, limit }
  const cursor = text('cursor')
  if (cursor !== undefined) {
    const after = decodeCursor(cursor)
    if (after === null) throw invalid('cursor', 'not a nextCursor of this API')
    listQuery.after = { createdAt: after.createdAt, id: after.paymentId }
  }
  const status = text('status')
  if (status !== undefined) {
    const statuses = status.split(',')
    const wrong = statuses.find((one) => !(OutgoingStatuses as readonly string[]).includes(one))
    if (wrong !== undefined)
      throw invalid('status', `'${wrong}' is not one of ${OutgoingStatuses.join(', ')}`)
    listQuery.statuses = [...new Set(statuses)] as OutgoingStatus[]
  }
  const paymentId = text('paymentId')
  if (paymentId !== undefined) listQuery.paymentId = readId('paymentId', paymentId)
  return listQuery
}

function readId(field: string, text: string): string {
  if (!isPaymentId(text)) throw invalid(field, 'must be a UUID')
  return text.toLowerCase()
}

function invalid(field: string, message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', `${field}: ${message}`)
}

function notFound(kind: OutgoingKind, id: string): DomainError {
  return new DomainError(
    kind === 'refund' ? 'REFUND_NOT_FOUND' : 'PAYOUT_NOT_FOUND',
    `${kind} ${id} not found`,
  )
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  )
}
