// The merchant API's invoice shapes (docs/api.md, "Invoices"): the body of POST /invoices as
// documented (the domain validates it, invoice-request.ts), the invoice object, its list.

import type { InvoiceView } from '@chainpay/domain'
import Type, { type Static } from 'typebox'
import { MetadataInputSchema, MetadataSchema } from './api-schemas.js'
import { type MutuallyAssignable, Nullable, StringEnum, TimestampSchema } from './schema-kit.js'

const strict = { additionalProperties: false } as const

export const InvoiceStatuses = ['open', 'paid', 'expired', 'canceled'] as const
export const InvoiceStatusSchema = StringEnum(InvoiceStatuses, {
  description: 'open until a payment of it is confirmed (paid), it expires, or the merchant cancels it',
})

const UrlSchema = Type.String({ format: 'uri', maxLength: 2048 })

export const CreateInvoiceBodySchema = Type.Object(
  {
    priceAmount: Type.String({
      description: "the price, at most the currency's minor units",
      examples: ['19.99'],
    }),
    priceCurrency: Type.String({
      description: "ISO 4217, one of the operator's PRICE_CURRENCIES",
      examples: ['EUR'],
    }),
    accepted: Type.Optional(
      Type.Array(Type.Object({ currency: Type.String(), network: Type.String() }, strict), {
        minItems: 1,
        description: 'the assets the customer may pick; every asset the installation serves when left out',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    metadata: Type.Optional(MetadataInputSchema),
    callbackUrl: Type.Optional(UrlSchema),
    successRedirectUrl: Type.Optional(UrlSchema),
    cancelRedirectUrl: Type.Optional(UrlSchema),
    expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1440, default: 30 })),
    idempotencyKey: Type.String({ minLength: 1, maxLength: 255 }),
  },
  strict,
)

export const AcceptedAssetViewSchema = Type.Object(
  {
    currency: Type.String({ examples: ['USDT'] }),
    network: Type.String({ examples: ['TRON'] }),
    tokenStandard: Type.String({ examples: ['TRC20'] }),
  },
  strict,
)

export const InvoicePaymentViewSchema = Type.Object(
  {
    paymentId: Type.String({ description: 'the payment of the pick (GET /payments/{paymentId})' }),
    currency: Type.String(),
    network: Type.String(),
    pickedAt: TimestampSchema,
  },
  strict,
)

export const InvoiceViewSchema = Type.Object(
  {
    invoiceId: Type.String(),
    status: InvoiceStatusSchema,
    priceAmount: Type.String(),
    priceCurrency: Type.String(),
    accepted: Type.Array(AcceptedAssetViewSchema),
    description: Nullable(Type.String()),
    metadata: MetadataSchema,
    callbackUrl: Nullable(Type.String()),
    successRedirectUrl: Nullable(Type.String()),
    cancelRedirectUrl: Nullable(Type.String()),
    checkoutUrl: Type.String({
      format: 'uri',
      description:
        "the invoice's page, where the customer picks how to pay: {PUBLIC_URL}/pay/invoice/{token}",
    }),
    createdAt: TimestampSchema,
    expiresAt: TimestampSchema,
    closedAt: Nullable(TimestampSchema),
    paidPaymentId: Nullable(Type.String({ description: 'the payment that paid the invoice' })),
    payments: Type.Array(InvoicePaymentViewSchema, {
      description: "the payments of the customer's picks, oldest first; the last is the current one",
    }),
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof InvoiceViewSchema>, InvoiceView>

export const InvoiceIdParamsSchema = Type.Object(
  { invoiceId: Type.String({ description: 'invoice identifier (UUID)' }) },
  strict,
)

export const InvoiceListQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: '1 to 100; default 20' })),
    cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page, as it was' })),
    status: Type.Optional(
      Type.String({ description: 'one status or several, comma separated', examples: ['open'] }),
    ),
    createdFrom: Type.Optional(Type.String({ description: 'ISO 8601, inclusive' })),
    createdTo: Type.Optional(Type.String({ description: 'ISO 8601, exclusive' })),
  },
  strict,
)

export type InvoiceListQuery = Static<typeof InvoiceListQuerySchema>

export const InvoiceListSchema = Type.Object(
  {
    data: Type.Array(InvoiceViewSchema, { description: 'newest first' }),
    nextCursor: Nullable(Type.String({ description: 'pass as cursor for the next page; null on the last' })),
  },
  strict,
)
