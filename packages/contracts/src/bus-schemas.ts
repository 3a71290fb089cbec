// Schemas of the bus messages (bus-messages.ts) and the parsers consumers run on each message's
// JSON text. A payment event message's data is upcast to its type's current schema version on the
// way in, so consumers only ever see current shapes.

import type { PaymentEvent, PaymentEventType } from '@chainpay/domain'
import Type, { type Static } from 'typebox'
import { Compile } from 'typebox/compile'
import type {
  ChainObservationMessage,
  ChainProgressObservation,
  DepositObservation,
  ForeignFundsObservation,
  PaymentEventMessage,
  TransferObservation,
  WatchingObservation,
} from './bus-messages.js'
import { MessageFormatError } from './bus-messages.js'
import { parsePaymentEvent, paymentEventSchemas } from './event-schemas.js'
import {
  describeProblems,
  type MutuallyAssignable,
  Nullable,
  StringEnum,
  strict,
  TimestampSchema,
  UnitsSchema,
} from './schema-kit.js'

const envelopeProperties = {
  eventId: Type.String({ minLength: 1 }),
  paymentId: Type.String({ minLength: 1 }),
  streamId: Type.String({ minLength: 1 }),
  revision: Type.Integer({ minimum: 0 }),
  schemaVersion: Type.Integer({ minimum: 1 }),
  recordedAt: TimestampSchema,
}

/** the envelope of a payment event message, with the data left for parsePaymentEvent */
export const PaymentEventEnvelopeSchema = Type.Object(
  { ...envelopeProperties, type: Type.String(), data: Type.Unknown() },
  strict,
)

function eventMessageSchema<T extends PaymentEventType>(type: T) {
  // without the annotation the data schema widens to the union of every type's schema
  const data: (typeof paymentEventSchemas)[T]['schema'] = paymentEventSchemas[type].schema
  return Type.Object({ ...envelopeProperties, type: Type.Literal(type), data }, strict)
}

/** every payment event message at its current schema version, one member per event type */
export const PaymentEventMessageSchema = Type.Union([
  eventMessageSchema('PaymentCreated'),
  eventMessageSchema('TransferDetected'),
  eventMessageSchema('TransferConfirmationsUpdated'),
  eventMessageSchema('TransferWithdrawn'),
  eventMessageSchema('TransferDropped'),
  eventMessageSchema('PaymentConfirmed'),
  eventMessageSchema('PaymentUnderpaid'),
  eventMessageSchema('PaymentOverpaid'),
  eventMessageSchema('PaymentExpired'),
  eventMessageSchema('PaymentCanceled'),
  eventMessageSchema('PaymentFailed'),
  eventMessageSchema('LateFundsReceived'),
  eventMessageSchema('PaymentUnderpaidFinalized'),
  eventMessageSchema('ForeignFundsReceived'),
  eventMessageSchema('PaymentFundsSwept'),
])
true satisfies MutuallyAssignable<Static<typeof PaymentEventMessageSchema>, PaymentEventMessage>
true satisfies MutuallyAssignable<Static<typeof PaymentEventMessageSchema>['type'], PaymentEvent['type']>

export const TransferObservationSchema = Type.Object(
  {
    kind: Type.Literal('transfer'),
    network: Type.String({ minLength: 1 }),
    paymentId: Type.String({ minLength: 1 }),
    txHash: Type.String({ minLength: 1 }),
    transferIndex: Type.Integer({ minimum: 0 }),
    address: Type.String({ minLength: 1 }),
    amountUnits: UnitsSchema,
    blockHeight: Type.Integer({ minimum: 0 }),
    blockTime: TimestampSchema,
    confirmations: Type.Integer({ minimum: 0 }),
    final: Type.Optional(Type.Boolean()),
    owner: Type.Optional(Type.String({ minLength: 1 })),
    status: StringEnum(['seen', 'in_doubt', 'dropped']),
    dropReason: Nullable(StringEnum(['EXPIRED', 'REVERTED'])),
    observedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof TransferObservationSchema>, TransferObservation>

export const ForeignFundsObservationSchema = Type.Object(
  {
    kind: Type.Literal('foreign_funds'),
    network: Type.String({ minLength: 1 }),
    paymentId: Type.String({ minLength: 1 }),
    txHash: Type.String({ minLength: 1 }),
    transferIndex: Type.Integer({ minimum: 0 }),
    address: Type.String({ minLength: 1 }),
    currency: Type.String({ minLength: 1 }),
    decimals: Type.Integer({ minimum: 0 }),
    amountUnits: UnitsSchema,
    blockHeight: Type.Integer({ minimum: 0 }),
    blockTime: TimestampSchema,
    confirmations: Type.Integer({ minimum: 0 }),
    final: Type.Optional(Type.Boolean()),
    owner: Type.Optional(Type.String({ minLength: 1 })),
    observedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof ForeignFundsObservationSchema>, ForeignFundsObservation>

export const ChainProgressObservationSchema = Type.Object(
  {
    kind: Type.Literal('progress'),
    network: Type.String({ minLength: 1 }),
    height: Type.Integer({ minimum: 0 }),
    blockTime: TimestampSchema,
    holds: Type.Optional(
      Type.Array(Type.Object({ paymentId: Type.String({ minLength: 1 }), before: TimestampSchema }, strict)),
    ),
    observedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof ChainProgressObservationSchema>, ChainProgressObservation>

export const WatchingObservationSchema = Type.Object(
  {
    kind: Type.Literal('watching'),
    network: Type.String({ minLength: 1 }),
    paymentId: Type.String({ minLength: 1 }),
    address: Type.String({ minLength: 1 }),
    observedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof WatchingObservationSchema>, WatchingObservation>

export const DepositObservationSchema = Type.Object(
  {
    kind: Type.Literal('deposit'),
    network: Type.String({ minLength: 1 }),
    merchantId: Type.String({ minLength: 1 }),
    merchantUserId: Type.String({ minLength: 1 }),
    address: Type.String({ minLength: 1 }),
    txHash: Type.String({ minLength: 1 }),
    transferIndex: Type.Integer({ minimum: 0 }),
    currency: Type.String({ minLength: 1 }),
    decimals: Type.Integer({ minimum: 0 }),
    amountUnits: UnitsSchema,
    blockHeight: Type.Integer({ minimum: 0 }),
    blockTime: TimestampSchema,
    confirmations: Type.Integer({ minimum: 0 }),
    requiredConfirmations: Type.Integer({ minimum: 1 }),
    final: Type.Boolean(),
    status: StringEnum(['seen', 'in_doubt', 'dropped']),
    dropReason: Nullable(StringEnum(['EXPIRED', 'REVERTED'])),
    observedAt: TimestampSchema,
  },
  strict,
)
true satisfies MutuallyAssignable<Static<typeof DepositObservationSchema>, DepositObservation>

export const ChainObservationMessageSchema = Type.Union([
  TransferObservationSchema,
  ForeignFundsObservationSchema,
  ChainProgressObservationSchema,
  WatchingObservationSchema,
  DepositObservationSchema,
])
true satisfies MutuallyAssignable<Static<typeof ChainObservationMessageSchema>, ChainObservationMessage>

const envelopeValidator = Compile(PaymentEventEnvelopeSchema)
const observationValidators = {
  transfer: Compile(TransferObservationSchema),
  foreign_funds: Compile(ForeignFundsObservationSchema),
  progress: Compile(ChainProgressObservationSchema),
  watching: Compile(WatchingObservationSchema),
  deposit: Compile(DepositObservationSchema),
} as const

function parseJson(what: string, json: string): unknown {
  try {
    return JSON.parse(json)
  } catch (error) {
    throw new MessageFormatError(`${what}: not JSON: ${(error as Error).message}`)
  }
}

/**
 * A payment event message from its JSON text. Its data is upcast to the current schema version of
 * its type and validated; the result's schemaVersion is that current version.
 */
export function parsePaymentEventMessage(json: string): PaymentEventMessage {
  const value = parseJson('payment event message', json)
  if (!envelopeValidator.Check(value)) {
    throw new MessageFormatError(`payment event message: ${describeProblems(envelopeValidator, value)}`)
  }
  const { data, type, schemaVersion, ...envelope } = value
  let event: PaymentEvent
  try {
    event = parsePaymentEvent(type, schemaVersion, data)
  } catch (error) {
    throw new MessageFormatError(`payment event message ${envelope.eventId}: ${(error as Error).message}`)
  }
  if (event.data.paymentId !== envelope.paymentId) {
    throw new MessageFormatError(
      `payment event message ${envelope.eventId}: paymentId '${envelope.paymentId}' differs from the data's '${event.data.paymentId}'`,
    )
  }
  return { ...envelope, schemaVersion: paymentEventSchemas[event.type].version, ...event }
}

/**
 * A transfer observation of the version before in-doubt (status 'withdrawn', withdrawReason), still
 * on the bus during an upgrade, in today's terms: a rollback (DROPPED) is in doubt, a transaction
 * the chain holds failed (REVERTED) is dropped.
 */
function fromWithdrawn(value: unknown): unknown {
  const legacy = value as { status?: unknown; withdrawReason?: unknown }
  if (legacy.status !== 'withdrawn' || !('withdrawReason' in legacy)) return value
  const { withdrawReason, ...rest } = legacy
  if (withdrawReason === 'DROPPED') return { ...rest, status: 'in_doubt', dropReason: null }
  if (withdrawReason === 'REVERTED') return { ...rest, status: 'dropped', dropReason: 'REVERTED' }
  return value
}

/** a chain observation message from its JSON text, checked against the schema of its kind */
export function parseChainObservationMessage(json: string): ChainObservationMessage {
  const value = parseJson('chain observation message', json)
  const kind = typeof value === 'object' && value !== null ? (value as { kind?: unknown }).kind : undefined
  if (typeof kind === 'string' && Object.hasOwn(observationValidators, kind)) {
    const validator = observationValidators[kind as keyof typeof observationValidators]
    const current = kind === 'transfer' ? fromWithdrawn(value) : value
    if (validator.Check(current)) return current as ChainObservationMessage
    throw new MessageFormatError(`chain observation message (${kind}): ${describeProblems(validator, value)}`)
  }
  throw new MessageFormatError(
    `chain observation message: kind must be 'transfer', 'foreign_funds', 'progress', 'watching' or 'deposit', got ${JSON.stringify(kind)}`,
  )
}
