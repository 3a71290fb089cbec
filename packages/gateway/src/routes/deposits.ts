// The merchant API's deposits (docs/api.md, "Deposits"; decisions.md section 22): GET /deposits
// lists the read model the projection fills from the deposits' events, newest first, by customer and
// by status, a page at a time.

import { DepositListQuerySchema, DepositListSchema, type DepositWireView } from '@chainpay/contracts'
import { type DepositStatus, DepositStatuses, DomainError, formatUnits } from '@chainpay/domain'
import type { DepositListQuery, DepositReadModel, DepositRecord } from '@chainpay/ports'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Static } from 'typebox'
import { readMerchantUserIdFilter, readPageLimit } from './list-query.js'
import { readTimestamp } from './payment-reading.js'

export interface DepositRoutesDeps {
  depositReadModel: DepositReadModel
}

export function toDepositWireView({ depositId, state }: DepositRecord): DepositWireView {
  const { detected } = state
  return {
    depositId,
    merchantUserId: detected.merchantUserId,
    network: detected.network,
    currency: detected.currency,
    address: detected.address,
    txHash: detected.txHash,
    transferIndex: detected.transferIndex,
    amount: formatUnits(BigInt(detected.amountUnits), detected.decimals),
    fee: formatUnits(BigInt(detected.feeUnits), detected.decimals),
    net: formatUnits(BigInt(detected.netUnits), detected.decimals),
    status: state.status,
    confirmations: state.confirmations,
    requiredConfirmations: detected.requiredConfirmations,
    blockTime: detected.blockTime,
    detectedAt: detected.detectedAt,
    confirmedAt: state.confirmedAt,
    dropReason: state.dropReason,
  }
}

export const depositRoutes: FastifyPluginAsyncTypebox<DepositRoutesDeps> = async (app, deps) => {
  const readModel = deps.depositReadModel
  const schema = { querystring: DepositListQuerySchema, response: { 200: DepositListSchema } }
  app.get('/deposits', { schema }, async (request) => {
    if (request.caller === null) throw new Error('deposit route reached without an authenticated caller')
    const query = readListQuery(request.caller.merchant.merchantId, request.query)
    // one more than the page: whether there is a next page, without a count
    const records = await readModel.list({ ...query, limit: query.limit + 1 })
    const page = records.slice(0, query.limit)
    const last = page.at(-1)
    const nextCursor =
      records.length > query.limit && last !== undefined
        ? encodeCursor({ detectedAt: last.state.detected.detectedAt, depositId: last.depositId })
        : null
    return { data: page.map(toDepositWireView), nextCursor }
  })
}

function encodeCursor(position: { detectedAt: string; depositId: string }): string {
  return Buffer.from(JSON.stringify([position.detectedAt, position.depositId])).toString('base64url')
}

function decodeCursor(cursor: string): { detectedAt: string; depositId: string } | null {
  if (!/^[A-Za-z0-9_-]{1,300}$/.test(cursor)) return null
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (!Array.isArray(value) || value.length !== 2) return null
  const [detectedAt, depositId] = value as unknown[]
  if (typeof detectedAt !== 'string' || typeof depositId !== 'string') return null
  if (readTimestamp(detectedAt) !== detectedAt || !/^[0-9a-f]{32}$/.test(depositId)) return null
  const position = { detectedAt, depositId }
  return encodeCursor(position) === cursor ? position : null
}

/** the read model's query for the merchant's query string, or VALIDATION_ERROR naming the parameter */
function readListQuery(merchantId: string, query: Static<typeof DepositListQuerySchema>): DepositListQuery {
  const invalid = (parameter: string, rule: string) =>
    new DomainError('VALIDATION_ERROR', `${parameter}: ${rule}`)
  const limit = readPageLimit(query.limit)
  const listQuery: DepositListQuery = { merchantId, limit }
  if (query.cursor !== undefined) {
    const after = decodeCursor(query.cursor)
    if (after === null) throw invalid('cursor', 'not a nextCursor of this API')
    listQuery.after = after
  }
  if (query.merchantUserId !== undefined) {
    listQuery.merchantUserId = readMerchantUserIdFilter(query.merchantUserId)
  }
  if (query.status !== undefined) {
    if (!(DepositStatuses as readonly string[]).includes(query.status)) {
      throw invalid('status', `must be one of ${DepositStatuses.join(', ')}`)
    }
    listQuery.status = query.status as DepositStatus
  }
  return listQuery
}
