// Deposit events as stored on a deposit's stream (packages/domain/src/deposit.ts; docs/api.md,
// "Deposits"), and as the deposit relay publishes them on Topics.depositEvents beside the deposit
// addresses' events, keyed by the deposit id: the envelope of a deposit address message with the
// event's data. Consumers of the topic tell the two apart by the event type header.

import type { DepositEvent, OpenDeposit } from '@chainpay/domain'
import Type, { type TSchema } from 'typebox'
import { Compile } from 'typebox/compile'
import { PaymentEventHeaders } from './bus-messages.js'
import { describeProblems, StringEnum, TimestampSchema, UnitsSchema } from './schema-kit.js'

export const DEPOSIT_EVENT_SCHEMA_VERSION = 1

const strict = { additionalProperties: false }
const Count = Type.Integer({ minimum: 0 })

export const DepositDetectedDataSchema = Type.Object(
  {
    depositId: Type.String({ minLength: 1 }),
    merchantId: Type.String({ minLength: 1 }),
    merchantUserId: Type.String({ minLength: 1, maxLength: 128 }),
    network: Type.String({ minLength: 1 }),
    currency: Type.String({ minLength: 1 }),
    decimals: Count,
    address: Type.String({ minLength: 1 }),
    txHash: Type.String({ minLength: 1 }),
    transferIndex: Count,
    amountUnits: UnitsSchema,
    feeUnits: UnitsSchema,
    netUnits: UnitsSchema,
    feeBps: Count,
    fixedFeeUnits: UnitsSchema,
    blockHeight: Count,
    blockTime: TimestampSchema,
    confirmations: Count,
    requiredConfirmations: Count,
    detectedAt: TimestampSchema,
  },
  strict,
)

const Counted = Type.Object({ confirmations: Count, blockHeight: Count, at: TimestampSchema }, strict)

const depositEventSchemas: Record<DepositEvent['type'], TSchema> = {
  DepositDetected: DepositDetectedDataSchema,
  DepositConfirmationsUpdated: Counted,
  DepositConfirmed: Type.Object({ confirmations: Count, confirmedAt: TimestampSchema }, strict),
  DepositInDoubt: Type.Object({ at: TimestampSchema }, strict),
  DepositSeenAgain: Counted,
  DepositDropped: Type.Object({ reason: StringEnum(['EXPIRED', 'REVERTED']), at: TimestampSchema }, strict),
  // the operator's record of a sweep of the deposit's funds, as a payment's PaymentFundsSwept
  DepositFundsSwept: Type.Object(
    {
      depositId: Type.String({ minLength: 1 }),
      network: Type.String({ minLength: 1 }),
      address: Type.String({ minLength: 1 }),
      txHash: Type.String({ minLength: 1 }),
      currency: Type.String({ minLength: 1 }),
      decimals: Count,
      amountUnits: UnitsSchema,
      feeUnits: UnitsSchema,
      feeCurrency: Type.String({ minLength: 1 }),
      feeDecimals: Count,
      treasury: Type.String({ minLength: 1 }),
      sweptAt: TimestampSchema,
    },
    strict,
  ),
}

const validators = Object.fromEntries(
  Object.entries(depositEventSchemas).map(([type, schema]) => [type, Compile(schema)]),
) as Record<DepositEvent['type'], ReturnType<typeof Compile>>

export const isDepositEventType = (type: string): type is DepositEvent['type'] =>
  Object.hasOwn(depositEventSchemas, type)

/** a stored deposit event validated; throws naming what is wrong */
export function parseDepositEvent(type: string, schemaVersion: number, data: unknown): DepositEvent {
  if (!isDepositEventType(type)) throw new Error(`unknown deposit event type ${type}`)
  if (schemaVersion !== DEPOSIT_EVENT_SCHEMA_VERSION) {
    throw new Error(`${type}: schema version ${schemaVersion} is not known to this build`)
  }
  const validator = validators[type]
  if (!validator.Check(data)) throw new Error(`${type}: invalid data: ${describeProblems(validator, data)}`)
  return { type, data } as DepositEvent
}

export type DepositEventMessage = {
  eventId: string
  /** `deposit-<depositId>` */
  streamId: string
  depositId: string
  revision: number
  schemaVersion: number
  recordedAt: string
  /**
   * the deposit as it is right after this event, folded by the relay from the deposit's stream so that
   * the notifier writes its webhooks without a copy of its own; absent from messages of older relays
   */
  deposit?: OpenDeposit
} & DepositEvent

export function depositEventBusMessage(message: DepositEventMessage): {
  key: string
  value: string
  headers: Record<string, string>
} {
  return {
    key: message.depositId,
    value: JSON.stringify(message),
    headers: {
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: message.type,
      [PaymentEventHeaders.streamRevision]: String(message.revision),
    },
  }
}

/** the message, its envelope checked and its data validated; throws on anything else (poison) */
export function parseDepositEventMessage(value: string): DepositEventMessage {
  const parsed: unknown = JSON.parse(value)
  if (typeof parsed !== 'object' || parsed === null) throw new Error('deposit message: not an object')
  const { eventId, streamId, depositId, revision, schemaVersion, recordedAt, type, data, deposit } =
    parsed as Record<string, unknown>
  if (
    typeof eventId !== 'string' ||
    typeof streamId !== 'string' ||
    typeof depositId !== 'string' ||
    typeof recordedAt !== 'string' ||
    typeof type !== 'string' ||
    !Number.isInteger(revision) ||
    !Number.isInteger(schemaVersion)
  ) {
    throw new Error('deposit message: malformed envelope')
  }
  const event = parseDepositEvent(type, schemaVersion as number, data)
  return {
    eventId,
    streamId,
    depositId,
    revision: revision as number,
    schemaVersion: schemaVersion as number,
    recordedAt,
    ...event,
    ...(typeof deposit === 'object' && deposit !== null ? { deposit: deposit as OpenDeposit } : {}),
  }
}
