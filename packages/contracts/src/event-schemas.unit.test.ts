import type { PaymentEvent, PaymentEventType } from '@chainpay/domain'
import { PaymentEventTypes } from '@chainpay/domain'
import { samplePaymentEvents } from '@chainpay/domain/testing'
import { describe, expect, it } from 'vitest'
import {
  CURRENT_EVENT_SCHEMA_VERSION,
  eventSchemaVersion,
  isPaymentEventType,
  parsePaymentEvent,
  paymentEventSchemas,
  upcasters,
} from './event-schemas.js'

describe('paymentEventSchemas', () => {
  it('has a schema for every domain event type, at the current version', () => {
    expect(Object.keys(paymentEventSchemas).sort()).toEqual([...PaymentEventTypes].sort())
    for (const type of PaymentEventTypes) {
      expect(eventSchemaVersion(type)).toBe(CURRENT_EVENT_SCHEMA_VERSION)
    }
  })

  it('has no upcasters while every type is at version 1', () => {
    expect(upcasters).toEqual({})
  })
})

describe('isPaymentEventType', () => {
  it('knows the domain types and nothing else', () => {
    expect(isPaymentEventType('PaymentCreated')).toBe(true)
    expect(isPaymentEventType('PaymentRefunded')).toBe(false)
    expect(isPaymentEventType('toString')).toBe(false)
  })
})

describe('parsePaymentEvent', () => {
  it('has a sample of every event type', () => {
    expect(new Set(samplePaymentEvents.map((event) => event.type))).toEqual(new Set(PaymentEventTypes))
  })

  it.each(samplePaymentEvents.map((event) => [event.type, event] as const))(
    'round-trips a %s event through JSON',
    (_type, event: PaymentEvent) => {
      const stored = JSON.parse(JSON.stringify(event.data))
      expect(parsePaymentEvent(event.type, 1, stored)).toEqual(event)
    },
  )

  it('rejects an unknown type', () => {
    expect(() => parsePaymentEvent('PaymentRefunded', 1, {})).toThrow(
      "payment event: unknown type 'PaymentRefunded'",
    )
  })

  it.each([0, 2, 1.5, -1, Number.NaN])('rejects schema version %s', (version) => {
    expect(() => parsePaymentEvent('PaymentExpired', version, {})).toThrow(
      /payment event PaymentExpired: unsupported schema version .* \(this reader knows 1 to 1\)/,
    )
  })

  const expired = { paymentId: 'p1', expiredAt: '2026-11-21T14:33:07.123Z' }

  it.each([
    ['a missing field', { paymentId: 'p1' }, /\/expiredAt|expiredAt/],
    ['an extra field', { ...expired, reason: 'timeout' }, /reason/],
    ['a wrong type', { ...expired, expiredAt: 1763735587 }, /\/expiredAt: must be string/],
    ['a timestamp that is not one', { ...expired, expiredAt: 'later' }, /\/expiredAt: must match format/],
    ['data that is not an object', 'p1', /\(root\): must be object/],
  ])('rejects data with %s, naming the problem', (_case, data, problem) => {
    expect(() => parsePaymentEvent('PaymentExpired', 1, data)).toThrow(
      /^payment event PaymentExpired \(schema version 1\): invalid data: /,
    )
    expect(() => parsePaymentEvent('PaymentExpired', 1, data)).toThrow(problem)
  })

  it('rejects amounts in units that are not integer digits', () => {
    const detected = samplePaymentEvents.find((event) => event.type === 'TransferDetected')
    expect(() =>
      parsePaymentEvent('TransferDetected', 1, { ...detected?.data, amountUnits: '10.5' }),
    ).toThrow(/\/amountUnits: must match pattern/)
    expect(() => parsePaymentEvent('TransferDetected', 1, { ...detected?.data, amountUnits: 10 })).toThrow(
      /\/amountUnits: must be string/,
    )
  })

  it('rejects a withdrawal reason and a status outside their sets', () => {
    const withdrawn = samplePaymentEvents.find((event) => event.type === 'TransferWithdrawn')
    expect(() => parsePaymentEvent('TransferWithdrawn', 1, { ...withdrawn?.data, reason: 'LOST' })).toThrow(
      /\/reason/,
    )
    const late = samplePaymentEvents.find((event) => event.type === 'LateFundsReceived')
    expect(() =>
      parsePaymentEvent('LateFundsReceived', 1, { ...late?.data, statusAtArrival: 'PENDING' }),
    ).toThrow(/\/statusAtArrival/)
  })

  it('checks the data against its own type, not another one with similar fields', () => {
    const canceled = { paymentId: 'p1', canceledAt: '2026-11-21T14:10:00.000Z' }
    expect(() => parsePaymentEvent('PaymentExpired' satisfies PaymentEventType, 1, canceled)).toThrow(
      /canceledAt/,
    )
  })
})
