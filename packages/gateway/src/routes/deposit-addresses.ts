// The merchant API's deposit addresses (docs/api.md, "Deposit addresses"): POST /deposit-addresses
// asks payment-command, the one that derives addresses, for the customer's address (201 when it was
// created now, 200 when the customer had it), writes it through to the read model so that a list
// right after finds it, and GET /deposit-addresses lists the read model the projection fills.

import {
  DepositAddressListQuerySchema,
  DepositAddressListSchema,
  DepositAddressViewSchema,
  type DepositAddressWireView,
} from '@chainpay/contracts'
import { DomainError } from '@chainpay/domain'
import type {
  DepositAddressCommands,
  DepositAddressListQuery,
  DepositAddressReadModel,
  DepositAddressView,
} from '@chainpay/ports'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import type { MerchantCaller } from '../auth.js'
import { readMerchantUserIdFilter, readPageLimit } from './list-query.js'
import { readTimestamp } from './payment-reading.js'

export interface DepositAddressRoutesDeps {
  depositAddressCommands: DepositAddressCommands
  depositAddressReadModel: DepositAddressReadModel
}

export function toDepositAddressWireView(view: DepositAddressView): DepositAddressWireView {
  return {
    merchantUserId: view.merchantUserId,
    chain: view.chain,
    address: view.address,
    createdAt: view.createdAt,
  }
}

export const depositAddressRoutes: FastifyPluginAsyncTypebox<DepositAddressRoutesDeps> = async (
  app,
  deps,
) => {
  const { depositAddressCommands: commands, depositAddressReadModel: readModel } = deps

  app.post(
    '/deposit-addresses',
    { schema: { response: { 200: DepositAddressViewSchema, 201: DepositAddressViewSchema } } },
    async (request, reply) => {
      const { merchant } = callerOf(request)
      const { depositAddress, outcome } = await commands.ensureDepositAddress({
        merchantId: merchant.merchantId,
        request: request.body,
      })
      await readModel.save(depositAddress).catch((error: unknown) => {
        request.log.warn(
          { err: error, address: depositAddress.address },
          'deposit address write-through failed; the projection brings it',
        )
      })
      return reply.code(outcome === 'created' ? 201 : 200).send(toDepositAddressWireView(depositAddress))
    },
  )

  const listSchema = {
    querystring: DepositAddressListQuerySchema,
    response: { 200: DepositAddressListSchema },
  }
  app.get('/deposit-addresses', { schema: listSchema }, async (request) => {
    const { merchant } = callerOf(request)
    const query = readListQuery(merchant.merchantId, request.query)
    // one more than the page: whether there is a next page, without a count
    const views = await readModel.list({ ...query, limit: query.limit + 1 })
    const page = views.slice(0, query.limit)
    const last = page.at(-1)
    const nextCursor =
      views.length > query.limit && last !== undefined
        ? encodeDepositCursor({ createdAt: last.createdAt, address: last.address })
        : null
    return { data: page.map(toDepositAddressWireView), nextCursor }
  })
}

function callerOf(request: FastifyRequest): MerchantCaller {
  if (request.caller === null)
    throw new Error('deposit address route reached without an authenticated caller')
  return request.caller
}

function encodeDepositCursor(position: { createdAt: string; address: string }): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.address])).toString('base64url')
}

function decodeDepositCursor(cursor: string): { createdAt: string; address: string } | null {
  if (!/^[A-Za-z0-9_-]{1,300}$/.test(cursor)) return null
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    return null
  }
  if (!Array.isArray(value) || value.length !== 2) return null
  const [createdAt, address] = value as unknown[]
  if (typeof createdAt !== 'string' || typeof address !== 'string') return null
  if (readTimestamp(createdAt) !== createdAt || !/^[1-9A-HJ-NP-Za-km-z]{25,64}$/.test(address)) return null
  const position = { createdAt, address }
  return encodeDepositCursor(position) === cursor ? position : null
}

/** the read model's query for the merchant's query string, or VALIDATION_ERROR naming the parameter */
function readListQuery(
  merchantId: string,
  query: Static<typeof DepositAddressListQuerySchema>,
): DepositAddressListQuery {
  const invalid = (parameter: string, rule: string) =>
    new DomainError('VALIDATION_ERROR', `${parameter}: ${rule}`)
  const limit = readPageLimit(query.limit)
  const listQuery: DepositAddressListQuery = { merchantId, limit }
  if (query.cursor !== undefined) {
    const after = decodeDepositCursor(query.cursor)
    if (after === null) throw invalid('cursor', 'not a nextCursor of this API')
    listQuery.after = after
  }
  if (query.merchantUserId !== undefined) {
    listQuery.merchantUserId = readMerchantUserIdFilter(query.merchantUserId)
  }
  return listQuery
}
