// The bus message of a refund or payout event (Topics.outgoingEvents): the event as stored, and the
// refund or payout right after it, folded by payment-command's relay from the item's own stream, so
// that the notifier writes a webhook of each state change without a copy of its own (docs/api.md,
// "Refunds and payouts"). Keyed by the item's id: its events stay in order on one partition.

import type { Outgoing } from '@chainpay/domain'

export interface OutgoingEventMessage {
  eventId: string
  streamId: string
  revision: number
  recordedAt: string
  type: string
  /** the refund or payout as it is right after this event */
  item: Outgoing
}

export function outgoingEventBusMessage(message: OutgoingEventMessage): {
  key: string
  value: string
  headers: Record<string, string>
} {
  return { key: message.item.id, value: JSON.stringify(message), headers: { 'event-type': message.type } }
}

/** the message, or an Error marked poison (no retry can mend it) naming what is wrong */
export function parseOutgoingEventMessage(value: string): OutgoingEventMessage {
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw poison('outgoing event message: not JSON')
  }
  const message = parsed as Partial<OutgoingEventMessage>
  const item = message.item as Partial<Outgoing> | undefined
  if (
    typeof message.eventId !== 'string' ||
    typeof message.type !== 'string' ||
    typeof message.recordedAt !== 'string' ||
    !Number.isInteger(message.revision) ||
    typeof item !== 'object' ||
    item === null ||
    (item.kind !== 'refund' && item.kind !== 'payout') ||
    typeof item.id !== 'string' ||
    typeof item.merchantId !== 'string' ||
    typeof item.status !== 'string'
  ) {
    throw poison('outgoing event message: missing or malformed fields')
  }
  return message as OutgoingEventMessage
}

function poison(text: string): Error {
  return Object.assign(new Error(text), { poison: true })
}
