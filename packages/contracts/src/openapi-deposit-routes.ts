// The merchant API's deposit addresses (docs/api.md, "Deposit addresses"; decisions.md section 22):
// their wire schemas and OpenAPI paths, spread into buildOpenApiDocument.

import { DECIMAL_AMOUNT_PATTERN, MERCHANT_USER_ID_MAX_LENGTH } from '@chainpay/domain'
import Type, { type Static, type TSchema } from 'typebox'
import { Nullable, StringEnum, strict, TimestampSchema } from './schema-kit.js'

const MerchantUserId = Type.String({ minLength: 1, maxLength: MERCHANT_USER_ID_MAX_LENGTH })

export const CreateDepositAddressBodySchema = Type.Object(
  {
    merchantUserId: MerchantUserId,
    network: Type.String({
      description: 'any network of the chain family: its test network shares the address',
    }),
  },
  strict,
)

export const DepositAddressViewSchema = Type.Object(
  {
    merchantUserId: MerchantUserId,
    chain: StringEnum(['TRON', 'SOLANA'] as const),
    address: Type.String({ description: "the customer's address on every network of the chain" }),
    createdAt: TimestampSchema,
  },
  strict,
)
export type DepositAddressWireView = Static<typeof DepositAddressViewSchema>

export const DepositAddressListSchema = Type.Object(
  { data: Type.Array(DepositAddressViewSchema), nextCursor: Nullable(Type.String()) },
  strict,
)

export const DepositAddressListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String()),
    merchantUserId: Type.Optional(Type.String()),
  },
  strict,
)

const Decimal = Type.String({ pattern: DECIMAL_AMOUNT_PATTERN })

/** a deposit (docs/api.md, "Deposits"): amounts in decimal text of the currency */
export const DepositViewSchema = Type.Object(
  {
    depositId: Type.String(),
    merchantUserId: MerchantUserId,
    network: Type.String(),
    currency: Type.String(),
    address: Type.String({ description: "the customer's deposit address" }),
    txHash: Type.String(),
    transferIndex: Type.Integer({ minimum: 0 }),
    amount: Decimal,
    fee: Decimal,
    net: Decimal,
    status: StringEnum(['detected', 'confirmed', 'in_doubt', 'dropped'] as const),
    confirmations: Type.Integer({ minimum: 0 }),
    requiredConfirmations: Type.Integer({ minimum: 0 }),
    blockTime: TimestampSchema,
    detectedAt: TimestampSchema,
    confirmedAt: Nullable(TimestampSchema),
    dropReason: Nullable(StringEnum(['EXPIRED', 'REVERTED'] as const)),
  },
  strict,
)
export type DepositWireView = Static<typeof DepositViewSchema>

export const DepositListSchema = Type.Object(
  { data: Type.Array(DepositViewSchema), nextCursor: Nullable(Type.String()) },
  strict,
)

export const DepositListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String()),
    merchantUserId: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
  },
  strict,
)

const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema))
const ref = (kind: 'schemas' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` })
const json = (description: string, schema: string) => ({
  description,
  content: { 'application/json': { schema: ref('schemas', schema) } },
})
const errors = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'RateLimited'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
}
const tags = ['deposit addresses']
const query = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string' },
})

export const depositRouteSchemas = {
  DepositAddress: plain(DepositAddressViewSchema),
  DepositAddressList: plain(DepositAddressListSchema),
  CreateDepositAddressRequest: plain(CreateDepositAddressBodySchema),
  Deposit: plain(DepositViewSchema),
  DepositList: plain(DepositListSchema),
}

export const depositRoutePaths = {
  '/deposit-addresses': {
    post: {
      tags,
      operationId: 'createDepositAddress',
      summary: "The customer's deposit address for the network's chain family, created on first call",
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('schemas', 'CreateDepositAddressRequest') } },
      },
      responses: {
        '201': json('Created', 'DepositAddress'),
        '200': json('The address this customer already has on this chain family', 'DepositAddress'),
        ...errors,
      },
    },
    get: {
      tags,
      operationId: 'listDepositAddresses',
      summary: "The merchant's deposit addresses, newest first",
      parameters: [
        query('limit', '1 to 100, default 20'),
        query('cursor', 'the nextCursor of the page before'),
        query('merchantUserId', "one customer's addresses"),
      ],
      responses: { '200': json('A page of deposit addresses', 'DepositAddressList'), ...errors },
    },
  },
  '/deposits': {
    get: {
      tags,
      operationId: 'listDeposits',
      summary:
        "Arrivals at the merchant's customers' deposit addresses that no payment counted, newest first",
      parameters: [
        query('limit', '1 to 100, default 20'),
        query('cursor', 'the nextCursor of the page before'),
        query('merchantUserId', "one customer's deposits"),
        query('status', 'detected, confirmed, in_doubt or dropped'),
      ],
      responses: { '200': json('A page of deposits', 'DepositList'), ...errors },
    },
  },
}
