// The admin API's side of refunds and payouts (docs/treasury.md, "Refunds and payouts in a plan"):
// what the offline procedure is to send, read from the refunds and payouts read model, and each step
// it records (plan, release, sent, completed, failed), every one an event first, through
// payment-command, then written through to the read model (the gateway's outgoing-reading.ts makes
// `outgoingReading`); and a merchant's balances, the operator's view of GET /balances (docs/api.md,
// "Balances").

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
import type {
  NetworkOutgoingQuery,
  OutgoingCommands,
  OutgoingDocument,
  OutgoingListPosition,
  OutgoingReadModel,
  OutgoingSnapshot,
  OutgoingStep,
} from '@chainpay/ports'
import { toBalanceView } from '@chainpay/service-kit'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@fastify/type-provider-typebox'

export interface OutgoingAdminDeps {
  outgoing: OutgoingCommands
  outgoingReadModel: Pick<OutgoingReadModel, 'listForNetwork'>
  outgoingReading: OutgoingAdminReading
}

/** read your writes for refunds and payouts, as the gateway's merchant API has them */
export interface OutgoingAdminReading {
  /** what a step answered, into the read model */
  saveAfterCommand(
    snapshot: OutgoingSnapshot,
    log: { warn(fields: object, message: string): void },
  ): Promise<void>
  /** the item, from the read model, or payment-command when the read model lacks it or lags a write */
  read(kind: OutgoingKind, id: string): Promise<Outgoing | null>
  /** a page of documents, each one behind a write of this process read from payment-command */
  page(documents: OutgoingDocument[]): Promise<Outgoing[]>
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
      query.after = after
    }
    // oldest first, every merchant's: the order the procedure pays them (docs/treasury.md)
    const documents = await outgoingReadModel.listForNetwork(query)
    const page = documents.slice(0, limit)
    const last = page.at(-1)?.item
    const nextCursor =
      documents.length > limit && last !== undefined
        ? encodeCursor({ createdAt: last.createdAt, id: last.id })
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

/** the list's position: base64url of JSON [createdAt, id] (ids are UUIDs) */
function encodeCursor(position: OutgoingListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url')
}

function decodeCursor(cursor: string): OutgoingListPosition | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return null
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (!Array.isArray(value) || value.length !== 2) return null
  const [createdAt, id] = value as unknown[]
  if (typeof createdAt !== 'string' || typeof id !== 'string' || !isPaymentId(id)) return null
  if (Number.isNaN(Date.parse(createdAt)) || encodeCursor({ createdAt, id }) !== cursor) return null
  return { createdAt, id }
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
