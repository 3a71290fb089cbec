// Schemas of the stored payment events' data (packages/domain/src/payment.ts), versioned so that
// the shape of an event type can change without rewriting stored events: readers upcast old data
// to the current version, then validate it.

import {
  DECIMAL_AMOUNT_PATTERN,
  type ForeignFundsReceivedData,
  type LateFundsReceivedData,
  type PaymentCanceledData,
  type PaymentCreatedData,
  type PaymentEvent,
  type PaymentEventType,
  type PaymentExpiredData,
  type PaymentFailedData,
  type PaymentFundsSweptData,
  type PaymentSettledData,
  type PaymentUnderpaidFinalizedData,
  TOLERANCE_PERCENT_PATTERN,
  type TransferConfirmationsUpdatedData,
  type TransferDetectedData,
  type TransferDroppedData,
  type TransferWithdrawnData,
} from '@chainpay/domain'
import Type, { type Static, type TSchema } from 'typebox'
import { Compile, type Validator } from 'typebox/compile'
import { MetadataSchema, PaymentStatusSchema } from './api-schemas.js'
import {
  describeProblems,
  type MutuallyAssignable,
  Nullable,
  StringEnum,
  strict,
  TimestampSchema,
  UnitsSchema,
} from './schema-kit.js'

const transferRef = {
  txHash: Type.String({ minLength: 1 }),
  transferIndex: Type.Integer({ minimum: 0 }),
}

const BlockHeightSchema = Type.Integer({ minimum: 0 })
const ConfirmationsSchema = Type.Integer({ minimum: 0 })

/** the rate a fiat-priced payment was created at (docs/api.md, "Prices in fiat") */
export const LockedRateSchema = Type.Object(
  {
    value: Type.String({
      pattern: '^[0-9]+(\\.[0-9]+)?$',
      description: 'units of priceCurrency for one unit of currency',
    }),
    sources: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    at: TimestampSchema,
  },
  strict,
)

export const PaymentCreatedDataSchema = Type.Object(
  {
    paymentId: Type.String(),
    merchantId: Type.String(),
    idempotencyKey: Nullable(Type.String()),
    requestFingerprint: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    network: Type.String(),
    currency: Type.String(),
    tokenStandard: Type.String(),
    decimals: Type.Integer({ minimum: 0 }),
    amount: Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }),
    amountUnits: UnitsSchema,
    feeUnits: UnitsSchema,
    netUnits: UnitsSchema,
    feeBps: Type.Integer({ minimum: 0 }),
    fixedFeeUnits: UnitsSchema,
    address: Type.String(),
    tokenAccount: Nullable(Type.String()),
    derivationPath: Type.String(),
    walletId: Type.String({ minLength: 1 }),
    addressMode: Type.Union([Type.Literal('PER_PAYMENT'), Type.Literal('PER_USER')]),
    requiredConfirmations: Type.Integer({ minimum: 1 }),
    description: Nullable(Type.String()),
    metadata: MetadataSchema,
    callbackUrl: Nullable(Type.String()),
    successRedirectUrl: Nullable(Type.String()),
    cancelRedirectUrl: Nullable(Type.String()),
    createdAt: TimestampSchema,
    expiresAt: TimestampSchema,
    // version 1.3 (docs/api.md, "Prices in fiat" and "Underpayment tolerance"); absent from older events
    priceAmount: Type.Optional(Nullable(Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }))),
    priceCurrency: Type.Optional(Nullable(Type.String({ pattern: '^[A-Z]{3}$' }))),
    rate: Type.Optional(Nullable(LockedRateSchema)),
    underpaymentTolerancePercent: Type.Optional(Type.String({ pattern: TOLERANCE_PERCENT_PATTERN })),
    // docs/api.md, "Invoices": the invoice whose pick created the payment; absent otherwise
    invoiceId: Type.Optional(Nullable(Type.String())),
    // version 4 (decisions.md section 22): the customer of a PER_USER payment; absent from older events
    merchantUserId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof PaymentCreatedDataSchema>, PaymentCreatedData>

export const TransferDetectedDataSchema = Type.Object(
  {
    ...transferRef,
    paymentId: Type.String(),
    amountUnits: UnitsSchema,
    blockHeight: BlockHeightSchema,
    blockTime: TimestampSchema,
    confirmations: ConfirmationsSchema,
    final: Nullable(Type.Boolean()),
    detectedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof TransferDetectedDataSchema>, TransferDetectedData>

export const TransferConfirmationsUpdatedDataSchema = Type.Object(
  {
    ...transferRef,
    paymentId: Type.String(),
    confirmations: ConfirmationsSchema,
    final: Nullable(Type.Boolean()),
    updatedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<
  Static<typeof TransferConfirmationsUpdatedDataSchema>,
  TransferConfirmationsUpdatedData
>

export const WithdrawReasonSchema = StringEnum(['DROPPED', 'REVERTED'])

export const TransferWithdrawnDataSchema = Type.Object(
  { ...transferRef, paymentId: Type.String(), reason: WithdrawReasonSchema, withdrawnAt: TimestampSchema },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof TransferWithdrawnDataSchema>, TransferWithdrawnData>

export const TransferDroppedDataSchema = Type.Object(
  {
    ...transferRef,
    paymentId: Type.String(),
    reason: StringEnum(['EXPIRED', 'REVERTED']),
    droppedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof TransferDroppedDataSchema>, TransferDroppedData>

export const PaymentSettledDataSchema = Type.Object(
  {
    paymentId: Type.String(),
    receivedUnits: UnitsSchema,
    txHash: Type.String({ minLength: 1 }),
    confirmedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof PaymentSettledDataSchema>, PaymentSettledData>

export const PaymentExpiredDataSchema = Type.Object(
  { paymentId: Type.String(), expiredAt: TimestampSchema },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof PaymentExpiredDataSchema>, PaymentExpiredData>

export const PaymentCanceledDataSchema = Type.Object(
  {
    paymentId: Type.String(),
    canceledAt: TimestampSchema,
    canceledBy: Type.Union([Type.Literal('merchant'), Type.Literal('customer')]),
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof PaymentCanceledDataSchema>, PaymentCanceledData>

/** version 2: reason TRANSFER_DROPPED added (version 1 knew only TRANSFER_WITHDRAWN) */
export const PaymentFailedDataSchema = Type.Object(
  {
    paymentId: Type.String(),
    reason: StringEnum(['TRANSFER_WITHDRAWN', 'TRANSFER_DROPPED']),
    failedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof PaymentFailedDataSchema>, PaymentFailedData>

export const LateFundsReceivedDataSchema = Type.Object(
  {
    ...transferRef,
    paymentId: Type.String(),
    amountUnits: UnitsSchema,
    blockHeight: BlockHeightSchema,
    blockTime: TimestampSchema,
    statusAtArrival: PaymentStatusSchema,
    receivedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof LateFundsReceivedDataSchema>, LateFundsReceivedData>

export const PaymentUnderpaidFinalizedDataSchema = Type.Object(
  { paymentId: Type.String(), receivedUnits: UnitsSchema, finalizedAt: TimestampSchema },
  strict,
)
true satisfies MutuallyAssignable<
  Static<typeof PaymentUnderpaidFinalizedDataSchema>,
  PaymentUnderpaidFinalizedData
>

export const ForeignFundsReceivedDataSchema = Type.Object(
  {
    ...transferRef,
    paymentId: Type.String(),
    currency: Type.String({ minLength: 1 }),
    decimals: Type.Integer({ minimum: 0 }),
    amountUnits: UnitsSchema,
    blockHeight: BlockHeightSchema,
    blockTime: TimestampSchema,
    receivedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof ForeignFundsReceivedDataSchema>, ForeignFundsReceivedData>

export const PaymentFundsSweptDataSchema = Type.Object(
  {
    paymentId: Type.String(),
    txHash: Type.String({ minLength: 1 }),
    network: Type.String({ minLength: 1 }),
    address: Type.String({ minLength: 1 }),
    currency: Type.String({ minLength: 1 }),
    decimals: Type.Integer({ minimum: 0 }),
    amountUnits: UnitsSchema,
    feeUnits: UnitsSchema,
    feeCurrency: Type.String({ minLength: 1 }),
    feeDecimals: Type.Integer({ minimum: 0 }),
    treasury: Type.String({ minLength: 1 }),
    sweptAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof PaymentFundsSweptDataSchema>, PaymentFundsSweptData>

/** the current data schema of every event type, and its version */
export const paymentEventSchemas = {
  // 2: feeBps and fixedFeeUnits, the fee policy the payment was created under
  // 3: walletId, the wallet the address was derived from (merchant wallets, docs/api.md)
  PaymentCreated: { version: 4, schema: PaymentCreatedDataSchema },
  // 2: final, the chain watcher's word that the transfer is final (docs/chains.md, "Confirmations
  // and finality")
  TransferDetected: { version: 2, schema: TransferDetectedDataSchema },
  TransferConfirmationsUpdated: { version: 2, schema: TransferConfirmationsUpdatedDataSchema },
  TransferWithdrawn: { version: 1, schema: TransferWithdrawnDataSchema },
  TransferDropped: { version: 1, schema: TransferDroppedDataSchema },
  PaymentConfirmed: { version: 1, schema: PaymentSettledDataSchema },
  PaymentUnderpaid: { version: 1, schema: PaymentSettledDataSchema },
  PaymentOverpaid: { version: 1, schema: PaymentSettledDataSchema },
  PaymentExpired: { version: 1, schema: PaymentExpiredDataSchema },
  // v2 adds canceledBy (docs/api.md, "The customer's page")
  PaymentCanceled: { version: 2, schema: PaymentCanceledDataSchema },
  PaymentFailed: { version: 2, schema: PaymentFailedDataSchema },
  LateFundsReceived: { version: 1, schema: LateFundsReceivedDataSchema },
  PaymentUnderpaidFinalized: { version: 1, schema: PaymentUnderpaidFinalizedDataSchema },
  ForeignFundsReceived: { version: 1, schema: ForeignFundsReceivedDataSchema },
  PaymentFundsSwept: { version: 1, schema: PaymentFundsSweptDataSchema },
} as const satisfies { [Type in PaymentEventType]: { version: number; schema: TSchema } }

// Each registered schema describes exactly the data of its event type.
type RegisteredData<T extends PaymentEventType> = Static<(typeof paymentEventSchemas)[T]['schema']>
type DataOf<T extends PaymentEventType> = Extract<PaymentEvent, { type: T }>['data']
true satisfies MutuallyAssignable<
  { [T in PaymentEventType]: RegisteredData<T> },
  { [T in PaymentEventType]: DataOf<T> }
>

/** turns data of one version into data of the next */
export type EventUpcaster = (data: unknown) => unknown

/**
 * upcasters[type][v] turns data written at version v into version v + 1. When an event type's
 * shape changes: add the new schema to paymentEventSchemas with the next version, and the function
 * from the previous version here. Stored events are never rewritten.
 */
export const upcasters: { readonly [Type in PaymentEventType]?: Readonly<Record<number, EventUpcaster>> } = {
  PaymentCreated: {
    // Version 1 did not record the fee policy. Its fee of the requested amount (feeUnits) stands for
    // it as a fixed fee, so the fee of what arrived is that fee capped at it (docs/api.md, "Fees").
    1: (data) => {
      const v1 = data as { feeUnits?: unknown }
      return { ...v1, feeBps: 0, fixedFeeUnits: v1.feeUnits }
    },
    // before merchant wallets every address was derived from the operator's wallet
    2: (data) => ({ ...(data as object), walletId: 'operator' }),
    // v4 only widened addressMode (PER_USER) and added merchantUserId: v3 data is v4 data. The version
    // exists so that a v3 reader refuses a PER_USER payment it cannot know rather than misread it.
    3: (data) => data,
  },
  // Before v2 the watcher held a transfer's count one short of the requirement until the chain made
  // it final, and said nothing else: final is unknown here (null), and read from the count against
  // the payment's requirement by the fold (isFinalTransfer in @chainpay/domain), which has it.
  TransferDetected: { 1: (data) => ({ ...(data as object), final: null }) },
  TransferConfirmationsUpdated: { 1: (data) => ({ ...(data as object), final: null }) },
  // before v2 only the merchant could cancel
  PaymentCanceled: { 1: (data) => ({ ...(data as object), canceledBy: 'merchant' }) },
  // v2 only widened the reasons: v1 data is v2 data. The version exists so that a v1 reader refuses
  // a TRANSFER_DROPPED it cannot know rather than misread it.
  PaymentFailed: { 1: (data) => data },
}

/** the version an event of this type is written with now */
export function eventSchemaVersion(type: PaymentEventType): number {
  return paymentEventSchemas[type].version
}

export function isPaymentEventType(type: string): type is PaymentEventType {
  return Object.hasOwn(paymentEventSchemas, type)
}

const validators = new Map<PaymentEventType, Validator>()

function validatorFor(type: PaymentEventType): Validator {
  let validator = validators.get(type)
  if (validator === undefined) {
    validator = Compile(paymentEventSchemas[type].schema)
    validators.set(type, validator)
  }
  return validator
}

/**
 * Data written at `schemaVersion` brought to `current`, one upcaster after the other (v to v + 1,
 * in order). A version newer than `current` was written by a newer build: this reader cannot know
 * its shape and refuses it rather than guess. Exported apart from the registry so that the chain
 * can be tested with versions no event type has reached yet.
 */
export function upcastEventData(
  type: string,
  schemaVersion: number,
  data: unknown,
  registry: { current: number; upcasters: Readonly<Record<number, EventUpcaster>> },
): unknown {
  const { current } = registry
  if (!Number.isInteger(schemaVersion) || schemaVersion < 1 || schemaVersion > current) {
    throw new Error(
      `payment event ${type}: unsupported schema version ${schemaVersion} (this reader knows 1 to ${current})`,
    )
  }
  let upcast = data
  for (let version = schemaVersion; version < current; version++) {
    const upcaster = registry.upcasters[version]
    if (upcaster === undefined) {
      throw new Error(`payment event ${type}: no upcaster from schema version ${version} to ${version + 1}`)
    }
    upcast = upcaster(upcast)
  }
  return upcast
}

/**
 * A stored event's data as the current PaymentEvent: upcast from `schemaVersion` to the current
 * version, then validated. Throws an Error naming the type, version and problems otherwise.
 */
export function parsePaymentEvent(type: string, schemaVersion: number, data: unknown): PaymentEvent {
  if (!isPaymentEventType(type)) throw new Error(`payment event: unknown type '${type}'`)
  const upcast = upcastEventData(type, schemaVersion, data, {
    current: paymentEventSchemas[type].version,
    upcasters: upcasters[type] ?? {},
  })
  const validator = validatorFor(type)
  if (!validator.Check(upcast)) {
    throw new Error(
      `payment event ${type} (schema version ${schemaVersion}): invalid data: ${describeProblems(validator, upcast)}`,
    )
  }
  return { type, data: upcast } as PaymentEvent
}
