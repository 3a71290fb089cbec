// Schemas of the merchant API's bodies and parameters (docs/api.md: "The payment object", "POST
// /payments", "Errors"), for the OpenAPI document and the responses' serialization. A create's body is validated by the domain alone (validateCreatePaymentRequest, docs/api.md
// "Validation"): CreatePaymentBodySchema describes what it accepts, and is checked against it.

import {
  type CreatedPaymentView,
  type CreatePaymentRequest,
  createRequestLimits,
  DECIMAL_AMOUNT_PATTERN,
  type Metadata,
  type PaymentStatus,
  type PaymentView,
  paymentHistoryEventTypes,
  refundHistoryEventTypes,
} from '@chainpay/domain'
import Type, { type Static } from 'typebox'
import { type MutuallyAssignable, Nullable, StringEnum, TimestampSchema } from './schema-kit.js'

export const PaymentStatuses = [
  'pending',
  'confirmed',
  'underpaid',
  'overpaid',
  'expired',
  'canceled',
  'failed',
] as const satisfies readonly PaymentStatus[]

true satisfies MutuallyAssignable<(typeof PaymentStatuses)[number], PaymentStatus>

export const PaymentStatusSchema = StringEnum(PaymentStatuses, { description: 'status of the payment' })

export const DecimalAmountSchema = Type.String({
  pattern: DECIMAL_AMOUNT_PATTERN,
  description: 'decimal amount as a string: no sign, no exponent, no leading zeros',
  examples: ['10.5'],
})

const metadataValue = (stringLimit: { maxLength?: number }) =>
  Type.Union([Type.String(stringLimit), Type.Number(), Type.Boolean(), Type.Null()])

/** metadata as a merchant sends it: bounded keys, values and size */
export const MetadataInputSchema = Type.Record(
  Type.String(),
  metadataValue({ maxLength: createRequestLimits.metadataStringMaxLength }),
  {
    maxProperties: createRequestLimits.metadataMaxKeys,
    propertyNames: { minLength: 1, maxLength: createRequestLimits.metadataKeyMaxLength },
    description: 'merchant key/value data, returned exactly as sent',
  },
)

/** metadata as the API returns it */
export const MetadataSchema = Type.Record(Type.String(), metadataValue({}), {
  description: 'merchant key/value data, exactly as sent',
})

true satisfies MutuallyAssignable<Static<typeof MetadataSchema>, Metadata>

const UrlSchema = Type.String({ format: 'uri', maxLength: createRequestLimits.urlMaxLength })

export const CreatePaymentBodySchema = Type.Object(
  {
    amount: Type.Optional(
      Type.String({
        ...DecimalAmountSchema,
        description:
          'the amount of the asset; required unless priceAmount and priceCurrency are sent, never with them',
      }),
    ),
    currency: Type.String({ description: 'currency symbol, e.g. USDT', examples: ['USDT'] }),
    network: Type.String({ description: 'blockchain network, e.g. TRON', examples: ['TRON'] }),
    tokenStandard: Type.Optional(
      Type.String({ description: 'NATIVE, TRC20 or SPL; inferred when omitted, must match when sent' }),
    ),
    addressMode: Type.Optional(
      StringEnum(['PER_PAYMENT', 'PER_USER'], {
        description:
          "PER_PAYMENT (default): a new address per payment; PER_USER: the customer's deposit address (with merchantUserId)",
      }),
    ),
    merchantUserId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'the customer whose deposit address the payment uses; with addressMode PER_USER only',
      }),
    ),
    description: Type.Optional(
      Type.String({
        maxLength: createRequestLimits.descriptionMaxLength,
        description:
          'shown to the customer and in Solana Pay requests: no control character but tab, LF and CR, no bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2069); docs/api.md, "Text shown to people"',
      }),
    ),
    metadata: Type.Optional(MetadataInputSchema),
    callbackUrl: Type.Optional(UrlSchema),
    successRedirectUrl: Type.Optional(UrlSchema),
    cancelRedirectUrl: Type.Optional(UrlSchema),
    expiresInMinutes: Type.Optional(
      Type.Integer({
        minimum: createRequestLimits.expiresInMinutes.min,
        maximum: createRequestLimits.expiresInMinutes.max,
        default: createRequestLimits.expiresInMinutes.default,
      }),
    ),
    idempotencyKey: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: createRequestLimits.idempotencyKeyMaxLength,
        description: 'scoped to your merchant; well-formed Unicode (no unpaired surrogate such as \\ud800)',
      }),
    ),
    priceAmount: Type.Optional(
      Type.String({
        pattern: DECIMAL_AMOUNT_PATTERN,
        description:
          'a price in fiat instead of amount (docs/api.md, "Prices in fiat"): at most the currency\'s minor units (2 for USD and EUR); sent with priceCurrency',
        examples: ['19.99'],
      }),
    ),
    priceCurrency: Type.Optional(
      Type.String({
        pattern: '^[A-Z]{3}$',
        description:
          "ISO 4217, one of the operator's price currencies (default USD and EUR); sent with priceAmount",
        examples: ['USD'],
      }),
    ),
  },
  {
    additionalProperties: false,
    // an amount, or a price in fiat: both of its fields, never with amount (docs/api.md, "Prices in fiat")
    oneOf: [{ required: ['amount'] }, { required: ['priceAmount', 'priceCurrency'] }],
    dependentRequired: { priceAmount: ['priceCurrency'], priceCurrency: ['priceAmount'] },
  },
)

export type CreatePaymentBody = Static<typeof CreatePaymentBodySchema>

// A valid body is a valid domain request, and the two name the same fields.
true satisfies MutuallyAssignable<[CreatePaymentBody] extends [CreatePaymentRequest] ? true : false, true>
true satisfies MutuallyAssignable<keyof CreatePaymentBody, keyof CreatePaymentRequest>

const paymentViewProperties = {
  paymentId: Type.String({ format: 'uuid' }),
  status: PaymentStatusSchema,
  network: Type.String(),
  currency: Type.String(),
  tokenStandard: Type.String(),
  amount: Type.String({ description: 'the amount exactly as sent' }),
  expectedAmount: DecimalAmountSchema,
  receivedAmount: Nullable(DecimalAmountSchema),
  generatedAddress: Type.String(),
  generatedTokenAccount: Nullable(Type.String()),
  addressMode: Type.String(),
  merchantUserId: Nullable(Type.String({ description: 'the customer of a PER_USER payment' })),
  txHash: Nullable(Type.String()),
  confirmations: Type.Integer({ minimum: 0 }),
  createdAt: TimestampSchema,
  confirmedAt: Nullable(TimestampSchema),
  expiresAt: TimestampSchema,
  metadata: MetadataSchema,
}

const feeProperties = {
  feeAmount: DecimalAmountSchema,
  netAmount: DecimalAmountSchema,
}

export const LateFundsSchema = Type.Object(
  {
    txHash: Type.String(),
    amount: DecimalAmountSchema,
    receivedAt: TimestampSchema,
  },
  {
    additionalProperties: false,
    description: 'a transfer that arrived after the payment was final or closed',
  },
)

// v1.1 (docs/api.md, "The payment object"): after the fees in every payment object
const readingBackProperties = {
  description: Nullable(Type.String({ description: 'as sent; null when not sent' })),
  requiredConfirmations: Type.Integer({ minimum: 1 }),
  lateFunds: Type.Array(LateFundsSchema, { description: 'in arrival order; empty when none' }),
  // the fee of receivedAmount under the payment's fee policy, capped at it; null until settled
  receivedFeeAmount: Nullable(DecimalAmountSchema),
  // receivedAmount minus receivedFeeAmount; null until settled
  receivedNetAmount: Nullable(DecimalAmountSchema),
}

/** the rate a fiat-priced payment was created at (docs/api.md, "Prices in fiat") */
export const RateSchema = Type.Object(
  {
    value: Type.String({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      description: 'priceCurrency units for one unit of currency, e.g. "142.37" USD per SOL',
    }),
    sources: Type.Array(Type.String(), {
      description: 'the sources whose answers made the rate ("peg" when a configured peg was used)',
    }),
    at: TimestampSchema,
  },
  { additionalProperties: false, description: 'locked until expiresAt' },
)

/** v1.3 (docs/api.md, "Prices in fiat" and "Underpayment tolerance"): after checkoutUrl */
const pricingProperties = {
  priceAmount: Nullable(
    Type.String({ description: 'the fiat price as sent; null for a payment created with amount' }),
  ),
  priceCurrency: Nullable(Type.String({ description: 'ISO 4217; null for a payment created with amount' })),
  rate: Nullable(RateSchema),
  underpaymentTolerancePercent: Type.String({
    description: "the merchant's underpayment tolerance when the payment was created, in percent",
    examples: ['0.5'],
  }),
  shortfallAmount: Nullable(
    Type.String({
      ...DecimalAmountSchema,
      description:
        'expectedAmount minus receivedAmount when less arrived and the payment is confirmed (within the tolerance) or underpaid; otherwise null',
    }),
  ),
  // docs/api.md, "Invoices"
  invoiceId: Nullable(
    Type.String({
      description: 'the invoice whose pick created the payment; null for a payment created directly',
    }),
  ),
}

const checkoutProperties = {
  checkoutUrl: Type.String({
    format: 'uri',
    description: "the customer's page: {PUBLIC_URL}/pay/{checkoutToken}, an unguessable address",
  }),
}

/** docs/api.md, "Foreign funds": after the specification's fields */
const foreignFundsProperties = {
  foreignFunds: Type.Array(
    Type.Object(
      {
        txHash: Type.String(),
        currency: Type.String(),
        amount: DecimalAmountSchema,
        receivedAt: TimestampSchema,
      },
      { additionalProperties: false },
    ),
    {
      description:
        "final funds of another asset sent to the payment's address (TRX a contract sent included); they do not change the status",
    },
  ),
}

// Property order is the order of the serialized response: the specification's table (docs/api.md,
// "The payment object"), where the create response's URLs sit between metadata and the fees.
export const PaymentViewSchema = Type.Object(
  {
    ...paymentViewProperties,
    ...feeProperties,
    ...readingBackProperties,
    ...foreignFundsProperties,
    ...checkoutProperties,
    ...pricingProperties,
  },
  { additionalProperties: false },
)

true satisfies MutuallyAssignable<Static<typeof PaymentViewSchema>, PaymentView>

export const CreatedPaymentViewSchema = Type.Object(
  {
    ...paymentViewProperties,
    callbackUrl: Nullable(Type.String()),
    successRedirectUrl: Nullable(Type.String()),
    cancelRedirectUrl: Nullable(Type.String()),
    ...feeProperties,
    ...readingBackProperties,
    ...foreignFundsProperties,
    ...checkoutProperties,
    ...pricingProperties,
  },
  { additionalProperties: false },
)

true satisfies MutuallyAssignable<Static<typeof CreatedPaymentViewSchema>, CreatedPaymentView>

/** the id's format is checked by the handler, so that a malformed id is a VALIDATION_ERROR with a clear message */
export const PaymentIdParamsSchema = Type.Object(
  { paymentId: Type.String({ description: 'payment identifier (UUID)' }) },
  { additionalProperties: false },
)

export type PaymentIdParams = Static<typeof PaymentIdParamsSchema>

// GET /payments (docs/api.md): the query as sent, every parameter text; the gateway reads each one
// and names the one it refuses.
export const PaymentListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: '1 to 100; default 20' })),
    cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page, as it was' })),
    status: Type.Optional(
      Type.String({
        description: 'one status or several, comma separated',
        examples: ['confirmed,overpaid'],
      }),
    ),
    network: Type.Optional(Type.String({ examples: ['TRON'] })),
    currency: Type.Optional(Type.String({ examples: ['USDT'] })),
    createdFrom: Type.Optional(
      Type.String({ description: 'createdAt at or after (ISO 8601)', examples: ['2026-11-01T00:00:00Z'] }),
    ),
    createdTo: Type.Optional(
      Type.String({ description: 'createdAt before (ISO 8601)', examples: ['2026-12-01T00:00:00Z'] }),
    ),
  },
  { additionalProperties: false },
)

export type PaymentListQuery = Static<typeof PaymentListQuerySchema>

export const PaymentListSchema = Type.Object(
  {
    data: Type.Array(PaymentViewSchema, { description: 'newest first' }),
    nextCursor: Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last' })),
  },
  { additionalProperties: false },
)

export const PaymentHistoryEventTypeSchema = StringEnum(
  [...Object.values(paymentHistoryEventTypes), ...Object.values(refundHistoryEventTypes)],
  {
    description: 'the event type in dotted lower case (docs/api.md, "Event types")',
  },
)

export const PaymentHistorySchema = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          id: Type.String({
            format: 'uuid',
            description: 'the event id; the webhook of an event carries it too',
          }),
          type: PaymentHistoryEventTypeSchema,
          occurredAt: TimestampSchema,
          data: Type.Record(Type.String(), Type.Unknown(), {
            description: 'the event as recorded: amounts in the asset’s smallest unit',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'oldest first' },
    ),
  },
  { additionalProperties: false },
)
