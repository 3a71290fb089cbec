// The admin API's side of refunds and payouts (docs/treasury.md, "Refunds and payouts in a plan"):
// what the offline procedure is to send, read from the refunds and payouts read model, and each step
// it records (plan, release, sent, completed, failed), every one an event first, through
// payment-command, then written through to the read model (routes/outgoing-reading.ts); and a
// merchant's balances, the operator's view of GET /balances (docs/api.md, "Balances").

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
import type { NetworkOutgoingQuery, OutgoingCommands, OutgoingReadModel, OutgoingStep } from '@chainpay/ports'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'
import { toBalanceView } from '../routes/outgoing.js'
import type { OutgoingReading } from '../routes/outgoing-reading.js'
import { decodeCursor, encodeCursor } from '../routes/payment-reading.js'

export interface OutgoingAdminDeps {
  outgoing: OutgoingCommands
  outgoingReadModel: Pick<OutgoingReadModel, 'listForNetwork'>
  outgoingReading: OutgoingReading
}

const strict = { additionalProperties: false } as const
const Text = Type.String({ minLength: 1, maxLength: 200 })
const KindParams = Type.Object(
  { kind: Type.Union([Type.Literal('refund'), Type.Literal('payout')]), id: Type.String() },
  strict,
)
const PlanBody = Type.Object({ planId: Text }, strict)
const SentBody = Type.Object({ planId: Text, txHash: Text }, strict)
const CompletedBody = Type.Object(
  {
    txHash: Text,
    networkFee: Type.Object({ currency: Text, amount: Type.String({ minLength: 1, maxLength: 40 }) }, strict),
  },
  strict,
)
const FailedBody = Type.Object(
  { txHash: Type.Optional(Text), reason: Type.String({ minLength: 1, maxLength: 500 }) },
  strict,
)
const ListQuery = Type.Object(
  {
    network: Text,
    status: Type.Optional(Text),
    walletId: Type.Optional(Text),
    limit: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String({ maxLength: 400 })),
  },
  strict,
)
const MerchantParams = Type.Object({ merchantId: Type.String({ minLength: 1 }) }, strict)

const PAGE_LIMIT = { default: 100, max: 500 } as const

/** a row of GET /outgoing: what the wallet's plan needs of a refund or payout */
export function toOutgoingRow(item: Outgoing) {
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
  { outgoing, outgoingReadModel, outgoingReading },
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
    const query: NetworkOutgoingQuery = { network, statuses: statuses as OutgoingStatus[], limit: limit + 1 }
    if (walletId !== undefined) query.walletId = walletId
    if (cursor !== undefined) {
      const after = decodeCursor(cursor)
      if (after === null) throw invalid('cursor', 'not a nextCursor of this list')
      query.after = { createdAt: after.createdAt, id: after.paymentId }
    }
    // oldest first, every merchant's: the order the procedure pays them (docs/treasury.md)
    const documents = await outgoingReadModel.listForNetwork(query)
    const page = documents.slice(0, limit)
    const last = page.at(-1)?.item
    const nextCursor =
      documents.length > limit && last !== undefined
        ? encodeCursor({ createdAt: last.createdAt, paymentId: last.id })
        : null
    const items = (await outgoingReading.page(page)).filter(
      (item) => statuses.includes(item.status) && (walletId === undefined || item.walletId === walletId),
    )
    return { data: items.map(toOutgoingRow), nextCursor }
  })

  app.get('/outgoing/:kind/:id', { schema: { params: KindParams } }, async (request) => {
    const { kind, id } = readTarget(request.params)
    const item = await outgoingReading.read(kind, id)
    if (item === null) throw notFound(kind, id)
    return toOutgoingRow(item)
  })

  const step = async (params: { kind: OutgoingKind; id: string }, what: OutgoingStep) => {
    const { kind, id } = readTarget(params)
    const recorded = await outgoing.recordOutgoingStep({ kind, id, step: what })
    await outgoingReading.saveAfterCommand(recorded, app.log)
    return toOutgoingRow(recorded.item)
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
