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
    amount: DecimalAmountSchema,
    currency: Type.String({ description: 'currency symbol, e.g. USDT', examples: ['USDT'] }),
    network: Type.String({ description: 'blockchain network, e.g. TRON', examples: ['TRON'] }),
    tokenStandard: Type.Optional(
      Type.String({ description: 'NATIVE, TRC20 or SPL; inferred when omitted, must match when sent' }),
    ),
    addressMode: Type.Optional(
      StringEnum(['PER_PAYMENT'], { description: 'a new address per payment (the only mode in v1)' }),
    ),
    description: Type.Optional(Type.String({ maxLength: createRequestLimits.descriptionMaxLength })),
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
  },
  { additionalProperties: false },
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
  merchantUserId: Type.Null(),
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
  { ...paymentViewProperties, ...feeProperties, ...foreignFundsProperties },
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
    ...foreignFundsProperties,
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
