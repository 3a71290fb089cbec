// Bodies and parameters of the admin API, which its routes (@chainpay/admin-api) validate and its
// client (@chainpay/admin-client) sends. Rules that need the registry or URL policy live in the use
// cases (admin-api's merchants.ts), so that standalone's direct calls follow them too.

import { DECIMAL_AMOUNT_PATTERN } from '@chainpay/domain'
import Type, { type Static } from 'typebox'
import { SweepRecordFields } from './admin-schemas.js'

export const merchantLimits = { nameMaxLength: 200, feeBpsMax: 10_000 } as const

const FeeBpsSchema = Type.Integer({ minimum: 0, maximum: merchantLimits.feeBpsMax })
const UrlSchema = Type.String({ minLength: 1, maxLength: 2048 })

export const CreateMerchantBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: merchantLimits.nameMaxLength }),
    webhookUrl: Type.Optional(Type.Union([UrlSchema, Type.Null()])),
    feeBps: Type.Optional(FeeBpsSchema),
  },
  { additionalProperties: false },
)
export type CreateMerchantBody = Static<typeof CreateMerchantBodySchema>

export const WebhookUrlBodySchema = Type.Object(
  { webhookUrl: Type.Union([UrlSchema, Type.Null()]) },
  { additionalProperties: false },
)
export type WebhookUrlBody = Static<typeof WebhookUrlBodySchema>

export const DisplayNameBodySchema = Type.Object(
  {
    displayName: Type.Union([
      Type.String({ minLength: 1, maxLength: merchantLimits.nameMaxLength }),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
)
export type DisplayNameBody = Static<typeof DisplayNameBodySchema>

export const LogoUrlBodySchema = Type.Object(
  { logoUrl: Type.Union([UrlSchema, Type.Null()]) },
  { additionalProperties: false },
)
export type LogoUrlBody = Static<typeof LogoUrlBodySchema>

/** docs/api.md, "Underpayment tolerance": the bounds (0 to 5) are the use case's to check */
export const UnderpaymentToleranceBodySchema = Type.Object(
  { underpaymentTolerancePercent: Type.String({ minLength: 1, maxLength: 16 }) },
  { additionalProperties: false },
)
export type UnderpaymentToleranceBody = Static<typeof UnderpaymentToleranceBodySchema>

export const FeePolicyBodySchema = Type.Object(
  {
    feeBps: FeeBpsSchema,
    fixedFees: Type.Optional(
      Type.Record(Type.String(), Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }), {
        propertyNames: { pattern: '^[A-Z0-9_]+:[A-Z0-9_]+$' },
      }),
    ),
  },
  { additionalProperties: false },
)
export type FeePolicyBody = Static<typeof FeePolicyBodySchema>

const Id = Type.String({ minLength: 1, maxLength: 128 })

/** a roll (docs/operations.md, "API keys"): how long the old key works on; default 24 hours */
export const RollApiKeyBodySchema = Type.Object(
  { overlapHours: Type.Optional(Type.Integer({ minimum: 0, maximum: 720 })) },
  { additionalProperties: false },
)
export type RollApiKeyBody = Static<typeof RollApiKeyBodySchema>

export const MerchantParamsSchema = Type.Object({ merchantId: Id })
export const ApiKeyParamsSchema = Type.Object({ merchantId: Id, apiKey: Id })
export const PaymentDeliveriesParamsSchema = Type.Object({ merchantId: Id, paymentId: Id })
export const DeliveryParamsSchema = Type.Object({ deliveryId: Id })

const Filter = Type.String({ minLength: 1, maxLength: 128 })

// docs/api.md, "Balances and sweeps": the payment or the customer's deposit (exactly one of them: the
// admin API checks it), and the sweep as payment-command takes it
export const RecordSweepBodySchema = Type.Object(
  { paymentId: Type.Optional(Id), depositId: Type.Optional(Id), ...SweepRecordFields },
  { additionalProperties: false },
)
export type RecordSweepBody = Static<typeof RecordSweepBodySchema>

const BalanceFilters = {
  merchantId: Type.Optional(Filter),
  network: Type.Optional(Filter),
  walletId: Type.Optional(Filter),
}

export const BalanceQuerySchema = Type.Object(
  {
    ...BalanceFilters,
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    onChain: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  },
  { additionalProperties: false },
)
export type BalanceQuery = Static<typeof BalanceQuerySchema>

export const BalanceTotalsQuerySchema = Type.Object(BalanceFilters, { additionalProperties: false })
export type BalanceTotalsQuery = Static<typeof BalanceTotalsQuerySchema>

// Refunds and payouts for the offline procedure (docs/treasury.md, "Refunds and payouts in a plan")

const strict = { additionalProperties: false } as const
const OutgoingText = Type.String({ minLength: 1, maxLength: 200 })

/** a refund or payout, by kind and id: /outgoing/{kind}/{id} */
export const OutgoingParamsSchema = Type.Object(
  { kind: Type.Union([Type.Literal('refund'), Type.Literal('payout')]), id: Type.String() },
  strict,
)
export const OutgoingPlanBodySchema = Type.Object({ planId: OutgoingText }, strict)
export type OutgoingPlanBody = Static<typeof OutgoingPlanBodySchema>
export const OutgoingSentBodySchema = Type.Object({ planId: OutgoingText, txHash: OutgoingText }, strict)
export type OutgoingSentBody = Static<typeof OutgoingSentBodySchema>
export const OutgoingCompletedBodySchema = Type.Object(
  {
    txHash: OutgoingText,
    networkFee: Type.Object(
      { currency: OutgoingText, amount: Type.String({ minLength: 1, maxLength: 40 }) },
      strict,
    ),
  },
  strict,
)
export type OutgoingCompletedBody = Static<typeof OutgoingCompletedBodySchema>
export const OutgoingFailedBodySchema = Type.Object(
  { txHash: Type.Optional(OutgoingText), reason: Type.String({ minLength: 1, maxLength: 500 }) },
  strict,
)
export type OutgoingFailedBody = Static<typeof OutgoingFailedBodySchema>
/** GET /outgoing: status one or several, comma-separated (default ready) */
export const OutgoingListQuerySchema = Type.Object(
  {
    network: OutgoingText,
    status: Type.Optional(OutgoingText),
    walletId: Type.Optional(OutgoingText),
    limit: Type.Optional(Type.String()),
    cursor: Type.Optional(Type.String({ maxLength: 400 })),
  },
  strict,
)
export type OutgoingListQuery = Static<typeof OutgoingListQuerySchema>
