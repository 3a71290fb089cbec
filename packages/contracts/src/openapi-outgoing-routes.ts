// The OpenAPI paths and schemas of the merchant API's refunds, payouts and balances (docs/api.md,
// "Refunds and payouts" and "Balances"), spread into buildOpenApiDocument.

import { DECIMAL_AMOUNT_PATTERN, OutgoingStatuses } from '@chainpay/domain'
import Type, { type TSchema } from 'typebox'
import { MetadataSchema } from './api-schemas.js'
import { Nullable, StringEnum, strict, TimestampSchema } from './schema-kit.js'

const ref = (kind: 'schemas' | 'responses' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
})
const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema))
const json = (description: string, schema: string) => ({
  description,
  content: { 'application/json': { schema: ref('schemas', schema) } },
})
const error = (description: string) => json(description, 'Error')
const errors = {
  '400': ref('responses', 'BadRequest'),
  '401': ref('responses', 'Unauthorized'),
  '429': ref('responses', 'RateLimited'),
  '500': ref('responses', 'InternalError'),
  '503': ref('responses', 'ServiceUnavailable'),
}
const tags = ['refunds and payouts']
const Amount = Type.String({ pattern: DECIMAL_AMOUNT_PATTERN })
const Uuid = Type.String({ format: 'uuid' })
const StatusSchema = StringEnum(OutgoingStatuses)

const common = {
  merchantId: Type.String(),
  network: Type.String(),
  currency: Type.String(),
  amount: Type.String({ description: 'as sent; the recipient receives exactly this' }),
  address: Nullable(Type.String({ description: 'null while awaiting_address' })),
  status: StatusSchema,
  txHash: Nullable(Type.String()),
  networkFee: Nullable(
    Type.Object(
      { currency: Type.String(), amount: Amount },
      { ...strict, description: 'what the treasury paid' },
    ),
  ),
  failureReason: Nullable(Type.String()),
  createdAt: TimestampSchema,
  updatedAt: TimestampSchema,
}

export const RefundViewSchema = Type.Object(
  {
    refundId: Uuid,
    paymentId: Uuid,
    ...common,
    claimUrl: Nullable(
      Type.String({
        description: '{PUBLIC_URL}/refund/{token}; null when the address was given at creation',
      }),
    ),
    reason: Nullable(Type.String()),
  },
  strict,
)

export const PayoutViewSchema = Type.Object({ payoutId: Uuid, ...common, metadata: MetadataSchema }, strict)

const Cursor = Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last' }))
export const RefundListSchema = Type.Object(
  { data: Type.Array(RefundViewSchema), nextCursor: Cursor },
  strict,
)
export const PayoutListSchema = Type.Object(
  { data: Type.Array(PayoutViewSchema), nextCursor: Cursor },
  strict,
)

export const BalanceListSchema = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          network: Type.String(),
          currency: Type.String(),
          receivedNetAmount: Amount,
          refundedAmount: Amount,
          paidOutAmount: Amount,
          availableAmount: Amount,
        },
        strict,
      ),
    ),
  },
  strict,
)

export const CreateRefundBodySchema = Type.Object(
  {
    amount: Amount,
    address: Type.Optional(Type.String({ description: 'without it, the refund carries a claimUrl' })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
    idempotencyKey: Type.String({ minLength: 1, maxLength: 255 }),
  },
  strict,
)

export const CreatePayoutBodySchema = Type.Object(
  {
    network: Type.String(),
    currency: Type.String(),
    amount: Amount,
    address: Type.String(),
    idempotencyKey: Type.String({ minLength: 1, maxLength: 255 }),
    metadata: Type.Optional(MetadataSchema),
  },
  strict,
)

export const outgoingRouteSchemas = {
  Refund: plain(RefundViewSchema),
  Payout: plain(PayoutViewSchema),
  RefundList: plain(RefundListSchema),
  PayoutList: plain(PayoutListSchema),
  BalanceList: plain(BalanceListSchema),
  CreateRefundRequest: plain(CreateRefundBodySchema),
  CreatePayoutRequest: plain(CreatePayoutBodySchema),
}

const idParameter = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
})
const query = (name: string, description: string) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema: { type: 'string' },
})
const listParameters = [
  query('limit', '1 to 100, default 20'),
  query('cursor', 'the nextCursor of the page before'),
  query('status', 'one or several statuses, comma separated'),
]
const created = (what: string, schema: string) => ({
  '201': json(`Created, with Location`, schema),
  '200': json(`The ${what} the same idempotencyKey created before (Idempotent-Replayed: true)`, schema),
})

function outgoingPaths(kind: 'refund' | 'payout') {
  const Kind = kind === 'refund' ? 'Refund' : 'Payout'
  const plural = `${kind}s`
  const notFound = { '404': error(`${Kind.toUpperCase()}_NOT_FOUND: no such ${kind} for this merchant`) }
  return {
    [`/${plural}`]: {
      get: {
        tags,
        operationId: `list${Kind}s`,
        summary: `The merchant's ${plural}, newest first`,
        parameters:
          kind === 'refund'
            ? [...listParameters, query('paymentId', 'refunds of this payment')]
            : listParameters,
        responses: { '200': json(`A page of ${plural}`, `${Kind}List`), ...errors },
      },
    },
    [`/${plural}/{${kind}Id}`]: {
      parameters: [idParameter(`${kind}Id`)],
      get: {
        tags,
        operationId: `get${Kind}`,
        summary: `Read a ${kind}`,
        responses: { '200': json(`The ${kind}`, Kind), ...notFound, ...errors },
      },
    },
    [`/${plural}/{${kind}Id}/cancel`]: {
      parameters: [idParameter(`${kind}Id`)],
      post: {
        tags,
        operationId: `cancel${Kind}`,
        summary: `Cancel a ${kind} not yet in a signed plan`,
        responses: {
          '200': json(`The ${kind}, canceled`, Kind),
          ...notFound,
          '409': error(`${Kind.toUpperCase()}_NOT_ALLOWED: it is in a signed plan, or past it`),
          ...errors,
        },
      },
    },
  }
}

export const outgoingRoutePaths = {
  '/payments/{paymentId}/refunds': {
    parameters: [ref('parameters', 'PaymentId')],
    post: {
      tags,
      operationId: 'createRefund',
      summary: "Refund a payment's final funds, to an address or through the customer's claim page",
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('schemas', 'CreateRefundRequest') } },
      },
      responses: {
        ...created('refund', 'Refund'),
        '404': ref('responses', 'PaymentNotFound'),
        '409': error(
          'REFUND_NOT_ALLOWED (no final funds yet), INSUFFICIENT_BALANCE (more than the available balance) or IDEMPOTENCY_KEY_REUSED',
        ),
        ...errors,
      },
    },
  },
  '/payouts': {
    ...outgoingPaths('payout')['/payouts'],
    post: {
      tags,
      operationId: 'createPayout',
      summary: "Pay out of the merchant's available balance to any address",
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('schemas', 'CreatePayoutRequest') } },
      },
      responses: {
        ...created('payout', 'Payout'),
        '409': error('INSUFFICIENT_BALANCE or IDEMPOTENCY_KEY_REUSED'),
        ...errors,
      },
    },
  },
  ...Object.fromEntries(Object.entries(outgoingPaths('refund'))),
  ...Object.fromEntries(Object.entries(outgoingPaths('payout')).filter(([path]) => path !== '/payouts')),
  '/balances': {
    get: {
      tags,
      operationId: 'getBalances',
      summary: "The merchant's balance per network and asset: received net, refunded, paid out, available",
      responses: { '200': json('The balances', 'BalanceList'), ...errors },
    },
  },
}
