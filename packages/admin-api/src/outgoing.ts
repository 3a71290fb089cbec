// The admin API's side of refunds and payouts (docs/treasury.md, "Refunds and payouts in a plan"):
// what the offline procedure is to send, and each step it records (plan, release, sent, completed,
// failed), every one an event first, through payment-command; and a merchant's balances, the
// operator's view of GET /balances (docs/api.md, "Balances").

import {
  OutgoingCompletedBodySchema as CompletedBody,
  OutgoingFailedBodySchema as FailedBody,
  OutgoingParamsSchema as KindParams,
  OutgoingListQuerySchema as ListQuery,
  type OutgoingRow,
  OutgoingPlanBodySchema as PlanBody,
  OutgoingSentBodySchema as SentBody,
} from '@chainpay/contracts'
import {
  DomainError,
  formatUnits,
  isPaymentId,
  OPERATOR_WALLET_ID,
  type Outgoing,
  type OutgoingKind,
  type OutgoingStatus,
  OutgoingStatuses,
} from '@chainpay/domain'
import type { OperatorOutgoingQuery, OutgoingCommands, OutgoingStep } from '@chainpay/ports'
import { toBalanceView } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'

export interface OutgoingAdminDeps {
  outgoing: OutgoingCommands
}

const MerchantParams = Type.Object(
  { merchantId: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
)

const PAGE_LIMIT = { default: 100, max: 500 } as const

/** a row of GET /outgoing: what the wallet's plan needs of a refund or payout */
export function toOutgoingRow(item: Outgoing): OutgoingRow {
  return {
    kind: item.kind,
    id: item.id,
    merchantId: item.merchantId,
    paymentId: item.paymentId,
    // null: the operator's wallet pays it
    walletId: item.walletId === OPERATOR_WALLET_ID ? null : item.walletId,
    network: item.network,
    currency: item.currency,
    amount: formatUnits(item.amountUnits, item.decimals),
    amountUnits: item.amountUnits,
    decimals: item.decimals,
    address: item.address,
    status: item.status,
    planId: item.planId,
    txHash: item.txHash,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  }
}

export const outgoingAdminRoutes: FastifyPluginAsyncTypebox<OutgoingAdminDeps> = async (
  app,
  { outgoing },
) => {
  app.get('/outgoing', { schema: { querystring: ListQuery } }, async (request) => {
    const { network, status, walletId, limit: limitText, cursor } = request.query
    const limit = limitText === undefined ? PAGE_LIMIT.default : Number(limitText)
    if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_LIMIT.max)
      throw invalid('limit', `must be an integer from 1 to ${PAGE_LIMIT.max}`)
    const statuses = (status ?? 'ready').split(',')
    const wrong = statuses.find((one) => !(OutgoingStatuses as readonly string[]).includes(one))
    if (wrong !== undefined)
      throw invalid('status', `'${wrong}' is not one of ${OutgoingStatuses.join(', ')}`)
    const query: OperatorOutgoingQuery = { network, statuses: statuses as OutgoingStatus[], limit }
    if (walletId !== undefined) query.walletId = walletId
    if (cursor !== undefined) query.cursor = cursor
    const page = await outgoing.listOperatorOutgoing(query)
    return { data: page.data.map(toOutgoingRow), nextCursor: page.nextCursor }
  })

  app.get('/outgoing/:kind/:id', { schema: { params: KindParams } }, async (request) => {
    const { kind, id } = readTarget(request.params)
    const snapshot = await outgoing.getOutgoing({ kind, id })
    if (snapshot === null) throw notFound(kind, id)
    return toOutgoingRow(snapshot.item)
  })

  const step = async (params: { kind: OutgoingKind; id: string }, what: OutgoingStep) => {
    const { kind, id } = readTarget(params)
    return toOutgoingRow((await outgoing.recordOutgoingStep({ kind, id, step: what })).item)
  }
  app.post('/outgoing/:kind/:id/plan', { schema: { params: KindParams, body: PlanBody } }, (request) =>
    step(request.params, { type: 'Plan', planId: request.body.planId }),
  )
  app.post('/outgoing/:kind/:id/release', { schema: { params: KindParams, body: PlanBody } }, (request) =>
    step(request.params, { type: 'Release', planId: request.body.planId }),
  )
  app.post('/outgoing/:kind/:id/sent', { schema: { params: KindParams, body: SentBody } }, (request) =>
    step(request.params, { type: 'MarkSent', ...request.body }),
  )
  app.post(
    '/outgoing/:kind/:id/completed',
    { schema: { params: KindParams, body: CompletedBody } },
    (request) => step(request.params, { type: 'Complete', ...request.body }),
  )
  app.post('/outgoing/:kind/:id/failed', { schema: { params: KindParams, body: FailedBody } }, (request) =>
    step(request.params, { type: 'Fail', txHash: request.body.txHash ?? null, reason: request.body.reason }),
  )

  app.get('/merchants/:merchantId/balances', { schema: { params: MerchantParams } }, async (request) => ({
    data: (await outgoing.getBalances({ merchantId: request.params.merchantId })).map(toBalanceView),
  }))
}

function readTarget(params: { kind: OutgoingKind; id: string }): { kind: OutgoingKind; id: string } {
  if (!isPaymentId(params.id)) throw invalid('id', 'must be a UUID')
  return { kind: params.kind, id: params.id.toLowerCase() }
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
