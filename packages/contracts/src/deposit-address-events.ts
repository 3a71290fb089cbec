// DepositAddressCreated as stored (docs/api.md, "Deposit addresses"), and as the relay publishes it on
// Topics.depositEvents, keyed by the address: the envelope of a payment event message
// (bus-messages.ts) with the event's data.

import type { DepositAddressCreatedData, DepositAddressEvent } from '@chainpay/domain'
import Type from 'typebox'
import { Compile } from 'typebox/compile'
import { PaymentEventHeaders } from './bus-messages.js'
import { describeProblems } from './schema-kit.js'

export const DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION = 1

export const DepositAddressCreatedDataSchema = Type.Object(
  {
    merchantId: Type.String({ minLength: 1 }),
    merchantUserId: Type.String({ minLength: 1, maxLength: 128 }),
    chain: Type.Union([Type.Literal('TRON'), Type.Literal('SOLANA')]),
    address: Type.String({ minLength: 1 }),
    derivationPath: Type.String({ minLength: 1 }),
    walletId: Type.String({ minLength: 1 }),
    index: Type.Integer({ minimum: 0 }),
    createdAt: Type.String({ minLength: 1 }),
  },
  { additionalProperties: false },
)

const createdValidator = Compile(DepositAddressCreatedDataSchema)

/** a stored deposit address event validated; throws naming what is wrong */
export function parseDepositAddressEvent(
  type: string,
  schemaVersion: number,
  data: unknown,
): DepositAddressEvent {
  if (type !== 'DepositAddressCreated') throw new Error(`unknown deposit address event type ${type}`)
  if (schemaVersion !== DEPOSIT_ADDRESS_EVENT_SCHEMA_VERSION) {
    throw new Error(`DepositAddressCreated: schema version ${schemaVersion} is not known to this build`)
  }
  if (!createdValidator.Check(data)) {
    throw new Error(`DepositAddressCreated: invalid data: ${describeProblems(createdValidator, data)}`)
  }
  return { type, data: data as DepositAddressCreatedData }
}

export type DepositAddressEventMessage = {
  eventId: string
  streamId: string
  revision: number
  schemaVersion: number
  recordedAt: string
} & DepositAddressEvent

export function depositAddressEventBusMessage(message: DepositAddressEventMessage): {
  key: string
  value: string
  headers: Record<string, string>
} {
  return {
    key: message.data.address,
    value: JSON.stringify(message),
    headers: {
      [PaymentEventHeaders.eventId]: message.eventId,
      [PaymentEventHeaders.eventType]: message.type,
      [PaymentEventHeaders.streamRevision]: String(message.revision),
    },
  }
}

/** the message, its envelope checked and its data validated; throws on anything else (poison) */
export function parseDepositAddressEventMessage(value: string): DepositAddressEventMessage {
  const parsed: unknown = JSON.parse(value)
  if (typeof parsed !== 'object' || parsed === null) throw new Error('deposit address message: not an object')
  const { eventId, streamId, revision, schemaVersion, recordedAt, type, data } = parsed as Record<
    string,
    unknown
  >
  if (
    typeof eventId !== 'string' ||
    typeof streamId !== 'string' ||
    typeof recordedAt !== 'string' ||
    typeof type !== 'string' ||
    !Number.isInteger(revision) ||
    !Number.isInteger(schemaVersion)
  ) {
    throw new Error('deposit address message: malformed envelope')
  }
  const event = parseDepositAddressEvent(type, schemaVersion as number, data)
  return {
    eventId,
    streamId,
    revision: revision as number,
    schemaVersion: schemaVersion as number,
    recordedAt,
    ...event,
  }
}
