// Schemas of the stored refund, payout and ledger events' data (packages/domain/src/refund.ts,
// payout.ts, merchant-ledger.ts), validated on the way out of the event store as the payment's are
// (event-schemas.ts). Every type is at version 1; a change of shape adds a version and an upcaster
// there, as for payment events.

import {
  DECIMAL_AMOUNT_PATTERN,
  type LedgerEvent,
  LedgerEventTypes,
  type PayoutEvent,
  PayoutEventTypes,
  type RefundEvent,
  RefundEventTypes,
} from '@chainpay/domain'
import Type, { type TSchema } from 'typebox'
import { Compile, type Validator } from 'typebox/compile'
import { MetadataSchema } from './api-schemas.js'
import { upcastEventData } from './event-schemas.js'
import { describeProblems, Nullable, StringEnum, strict, TimestampSchema, UnitsSchema } from './schema-kit.js'

const created = {
  merchantId: Type.String({ minLength: 1 }),
  network: Type.String(),
  currency: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
  amount: Type.String({ pattern: DECIMAL_AMOUNT_PATTERN }),
  amountUnits: UnitsSchema,
  walletId: Type.String({ minLength: 1 }),
  idempotencyKey: Type.String({ minLength: 1 }),
  requestFingerprint: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  createdAt: TimestampSchema,
}

const NetworkFeeSchema = Type.Object(
  { currency: Type.String(), decimals: Type.Integer({ minimum: 0 }), amountUnits: UnitsSchema },
  strict,
)

const steps = {
  AddressGiven: { address: Type.String({ minLength: 1 }), givenAt: TimestampSchema },
  Planned: { planId: Type.String({ minLength: 1 }), plannedAt: TimestampSchema },
  Released: { planId: Type.String({ minLength: 1 }), releasedAt: TimestampSchema },
  Sent: {
    planId: Type.String({ minLength: 1 }),
    txHash: Type.String({ minLength: 1 }),
    sentAt: TimestampSchema,
  },
  Completed: {
    txHash: Type.String({ minLength: 1 }),
    networkFee: NetworkFeeSchema,
    completedAt: TimestampSchema,
  },
  Failed: { txHash: Nullable(Type.String()), reason: Type.String(), failedAt: TimestampSchema },
  Canceled: { canceledAt: TimestampSchema },
}

const refundId = { refundId: Type.String({ minLength: 1 }) }
const payoutId = { payoutId: Type.String({ minLength: 1 }) }
const ledgerEntry = {
  merchantId: Type.String({ minLength: 1 }),
  kind: StringEnum(['refund', 'payout']),
  id: Type.String({ minLength: 1 }),
}

/** the data schema of every refund, payout and ledger event type, all at version 1 */
export const outgoingEventSchemas: Record<string, TSchema> = {
  RefundCreated: Type.Object(
    {
      ...refundId,
      paymentId: Type.String({ minLength: 1 }),
      ...created,
      address: Nullable(Type.String({ minLength: 1 })),
      reason: Nullable(Type.String()),
    },
    strict,
  ),
  PayoutCreated: Type.Object(
    { ...payoutId, ...created, address: Nullable(Type.String({ minLength: 1 })), metadata: MetadataSchema },
    strict,
  ),
  ...Object.fromEntries(
    Object.entries(steps).flatMap(([step, fields]) => [
      [`Refund${step}`, Type.Object({ ...refundId, ...fields }, strict)],
      [`Payout${step}`, Type.Object({ ...payoutId, ...fields }, strict)],
    ]),
  ),
  FundsReserved: Type.Object(
    {
      ...ledgerEntry,
      paymentId: Nullable(Type.String()),
      network: Type.String(),
      currency: Type.String(),
      amountUnits: UnitsSchema,
      reservedAt: TimestampSchema,
    },
    strict,
  ),
  FundsReleased: Type.Object(
    { ...ledgerEntry, reason: StringEnum(['canceled', 'failed']), releasedAt: TimestampSchema },
    strict,
  ),
}
delete outgoingEventSchemas.PayoutAddressGiven

export const OUTGOING_EVENT_SCHEMA_VERSION = 1

const validators = new Map<string, Validator>()

function parseEvent(
  family: string,
  types: readonly string[],
  type: string,
  schemaVersion: number,
  data: unknown,
) {
  const schema = outgoingEventSchemas[type]
  if (!types.includes(type) || schema === undefined)
    throw new Error(`${family} event: unknown type '${type}'`)
  const upcast = upcastEventData(type, schemaVersion, data, {
    current: OUTGOING_EVENT_SCHEMA_VERSION,
    upcasters: {},
  })
  let validator = validators.get(type)
  if (validator === undefined) {
    validator = Compile(schema)
    validators.set(type, validator)
  }
  if (!validator.Check(upcast)) {
    throw new Error(
      `${family} event ${type} (schema version ${schemaVersion}): invalid data: ${describeProblems(validator, upcast)}`,
    )
  }
  return { type, data: upcast }
}

export function parseRefundEvent(type: string, schemaVersion: number, data: unknown): RefundEvent {
  return parseEvent('refund', RefundEventTypes, type, schemaVersion, data) as RefundEvent
}

export function parsePayoutEvent(type: string, schemaVersion: number, data: unknown): PayoutEvent {
  return parseEvent('payout', PayoutEventTypes, type, schemaVersion, data) as PayoutEvent
}

export function parseLedgerEvent(type: string, schemaVersion: number, data: unknown): LedgerEvent {
  return parseEvent('ledger', LedgerEventTypes, type, schemaVersion, data) as LedgerEvent
}
