// Schemas of the stored invoice events' data (packages/domain/src/invoice.ts), versioned like the
// payment events' (event-schemas.ts): a reader validates what it reads, and refuses a version it
// cannot know. Every invoice event type is at version 1.

import type {
  InvoiceCanceledData,
  InvoiceCreatedData,
  InvoiceEvent,
  InvoiceEventType,
  InvoiceExpiredData,
  InvoicePaidData,
  InvoicePaymentPickedData,
} from '@chainpay/domain'
import Type, { type Static, type TSchema } from 'typebox'
import { Compile, type Validator } from 'typebox/compile'
import { MetadataSchema } from './api-schemas.js'
import { describeProblems, type MutuallyAssignable, Nullable, strict, TimestampSchema } from './schema-kit.js'

export const AcceptedAssetSchema = Type.Object(
  { currency: Type.String(), network: Type.String(), tokenStandard: Type.String() },
  strict,
)

export const InvoiceCreatedDataSchema = Type.Object(
  {
    invoiceId: Type.String(),
    merchantId: Type.String(),
    idempotencyKey: Type.String(),
    requestFingerprint: Type.String(),
    priceAmount: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?$' }),
    priceCurrency: Type.String({ pattern: '^[A-Z]{3}$' }),
    accepted: Type.Array(AcceptedAssetSchema, { minItems: 1 }),
    description: Nullable(Type.String()),
    metadata: MetadataSchema,
    callbackUrl: Nullable(Type.String()),
    successRedirectUrl: Nullable(Type.String()),
    cancelRedirectUrl: Nullable(Type.String()),
    createdAt: TimestampSchema,
    expiresAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof InvoiceCreatedDataSchema>, InvoiceCreatedData>

export const InvoicePaymentPickedDataSchema = Type.Object(
  {
    invoiceId: Type.String(),
    paymentId: Type.String(),
    currency: Type.String(),
    network: Type.String(),
    pickedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof InvoicePaymentPickedDataSchema>, InvoicePaymentPickedData>

export const InvoicePaidDataSchema = Type.Object(
  { invoiceId: Type.String(), paymentId: Type.String(), paidAt: TimestampSchema },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof InvoicePaidDataSchema>, InvoicePaidData>

export const InvoiceExpiredDataSchema = Type.Object(
  { invoiceId: Type.String(), expiredAt: TimestampSchema },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof InvoiceExpiredDataSchema>, InvoiceExpiredData>

export const InvoiceCanceledDataSchema = Type.Object(
  { invoiceId: Type.String(), canceledAt: TimestampSchema },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof InvoiceCanceledDataSchema>, InvoiceCanceledData>

/** the current data schema of every invoice event type, and its version */
export const invoiceEventSchemas = {
  InvoiceCreated: { version: 1, schema: InvoiceCreatedDataSchema },
  InvoicePaymentPicked: { version: 1, schema: InvoicePaymentPickedDataSchema },
  InvoicePaid: { version: 1, schema: InvoicePaidDataSchema },
  InvoiceExpired: { version: 1, schema: InvoiceExpiredDataSchema },
  InvoiceCanceled: { version: 1, schema: InvoiceCanceledDataSchema },
} as const satisfies { [Type in InvoiceEventType]: { version: number; schema: TSchema } }

export function invoiceEventSchemaVersion(type: InvoiceEventType): number {
  return invoiceEventSchemas[type].version
}

export function isInvoiceEventType(type: string): type is InvoiceEventType {
  return Object.hasOwn(invoiceEventSchemas, type)
}

const validators = new Map<InvoiceEventType, Validator>()

/**
 * A stored invoice event's data as the current InvoiceEvent, validated. Throws an Error naming the
 * type, version and problems otherwise.
 */
export function parseInvoiceEvent(type: string, schemaVersion: number, data: unknown): InvoiceEvent {
  if (!isInvoiceEventType(type)) throw new Error(`invoice event: unknown type '${type}'`)
  const current = invoiceEventSchemas[type].version
  if (schemaVersion !== current) {
    throw new Error(
      `invoice event ${type}: unsupported schema version ${schemaVersion} (this reader knows ${current})`,
    )
  }
  let validator = validators.get(type)
  if (validator === undefined) {
    validator = Compile(invoiceEventSchemas[type].schema)
    validators.set(type, validator)
  }
  if (!validator.Check(data)) {
    throw new Error(`invoice event ${type}: invalid data: ${describeProblems(validator, data)}`)
  }
  return { type, data } as InvoiceEvent
}
