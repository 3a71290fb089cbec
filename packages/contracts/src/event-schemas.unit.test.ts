import type { PaymentEvent, PaymentEventType } from '@chainpay/domain'
import { PaymentEventTypes } from '@chainpay/domain'
import { samplePaymentEvents } from '@chainpay/domain/testing'
import { describe, expect, it } from 'vitest'
import {
  eventSchemaVersion,
  isPaymentEventType,
  parsePaymentEvent,
  paymentEventSchemas,
  upcastEventData,
  upcasters,
} from './event-schemas.js'

describe('paymentEventSchemas', () => {
  it('has a schema for every domain event type, and an upcaster from each older version', () => {
    expect(Object.keys(paymentEventSchemas).sort()).toEqual([...PaymentEventTypes].sort())
    for (const type of PaymentEventTypes) {
      const older = Array.from({ length: eventSchemaVersion(type) - 1 }, (_, index) => String(index + 1))
      expect(Object.keys(upcasters[type] ?? {})).toEqual(older)
    }
  })

  it('reads a version 1 PaymentCreated, which recorded no fee policy, with its fee as the fixed fee', () => {
    const created = samplePaymentEvents.find((event) => event.type === 'PaymentCreated')
    if (created?.type !== 'PaymentCreated') throw new Error('no PaymentCreated sample')
    const { feeBps: _bps, fixedFeeUnits: _fixed, ...v1 } = created.data
    expect(parsePaymentEvent('PaymentCreated', 1, JSON.parse(JSON.stringify(v1)))).toEqual({
      type: 'PaymentCreated',
      data: { ...created.data, feeBps: 0, fixedFeeUnits: created.data.feeUnits },
    })
  })

  it('reads a version 2 PaymentCreated, from before merchant wallets, as derived from the operator wallet', () => {
    const created = samplePaymentEvents.find((event) => event.type === 'PaymentCreated')
    if (created?.type !== 'PaymentCreated') throw new Error('no PaymentCreated sample')
    const { walletId: _walletId, ...v2 } = created.data
    expect(parsePaymentEvent('PaymentCreated', 2, JSON.parse(JSON.stringify(v2)))).toEqual({
      type: 'PaymentCreated',
      data: { ...v2, walletId: 'operator' },
    })
    expect(() => parsePaymentEvent('PaymentCreated', 3, v2)).toThrow(/walletId/)
  })

  it('reads a PaymentCanceled of schema v1 as canceled by the merchant', () => {
    const data = { paymentId: 'p-1', canceledAt: '2026-11-21T14:03:07.123Z' }
    expect(parsePaymentEvent('PaymentCanceled', 1, data)).toEqual({
      type: 'PaymentCanceled',
      data: { ...data, canceledBy: 'merchant' },
    })
    const byCustomer = { ...data, canceledBy: 'customer' }
    expect(parsePaymentEvent('PaymentCanceled', 2, byCustomer)).toEqual({
      type: 'PaymentCanceled',
      data: byCustomer,
    })
  })

  it('reads a version 1 PaymentFailed as version 2, and refuses a drop reason in version 1 data', () => {
    const v1 = { paymentId: 'p', reason: 'TRANSFER_WITHDRAWN', failedAt: '2030-01-01T00:00:00.000Z' }
    expect(parsePaymentEvent('PaymentFailed', 1, v1)).toEqual({ type: 'PaymentFailed', data: v1 })
    expect(eventSchemaVersion('PaymentFailed')).toBe(2)
  })

  it('reads version 1 transfer events, which did not say final, with final null (the count decides)', () => {
    const ref = { paymentId: 'p', txHash: 'tx-1', transferIndex: 0 }
    const detected = {
      ...ref,
      amountUnits: '1',
      blockHeight: 7,
      blockTime: '2030-01-01T00:00:00.000Z',
      confirmations: 20,
      detectedAt: '2030-01-01T00:00:01.000Z',
    }
    expect(parsePaymentEvent('TransferDetected', 1, detected)).toEqual({
      type: 'TransferDetected',
      data: { ...detected, final: null },
    })
    const updated = { ...ref, confirmations: 20, updatedAt: '2030-01-01T00:00:02.000Z' }
    expect(parsePaymentEvent('TransferConfirmationsUpdated', 1, updated)).toEqual({
      type: 'TransferConfirmationsUpdated',
      data: { ...updated, final: null },
    })
    expect(eventSchemaVersion('TransferDetected')).toBe(2)
    expect(() => parsePaymentEvent('TransferDetected', 2, detected)).toThrow(/final/)
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
      expect(parsePaymentEvent(event.type, eventSchemaVersion(event.type), stored)).toEqual(event)
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

describe('upcastEventData (synthetic versions: every real type is at 1 today)', () => {
  // a type at version 3: v1 held the amount as a number, v2 as units text, v3 added the currency
  const registry = {
    current: 3,
    upcasters: {
      1: (data: unknown) => {
        const { amount, ...rest } = data as { amount: number }
        return { ...rest, amountUnits: String(amount) }
      },
      2: (data: unknown) => ({ ...(data as object), currency: 'TRX' }),
    },
  }

  it('brings data of every older version to the current one, each upcaster in order', () => {
    expect(upcastEventData('Sample', 1, { id: 'a', amount: 5 }, registry)).toEqual({
      id: 'a',
      amountUnits: '5',
      currency: 'TRX',
    })
    expect(upcastEventData('Sample', 2, { id: 'a', amountUnits: '5' }, registry)).toEqual({
      id: 'a',
      amountUnits: '5',
      currency: 'TRX',
    })
    const current = { id: 'a', amountUnits: '5', currency: 'USDT' }
    expect(upcastEventData('Sample', 3, current, registry)).toBe(current)
  })

  it('refuses a version newer than the reader knows, and one no upcaster leads on from', () => {
    expect(() => upcastEventData('Sample', 4, {}, registry)).toThrow(
      'payment event Sample: unsupported schema version 4 (this reader knows 1 to 3)',
    )
    expect(() => upcastEventData('Sample', 0, {}, registry)).toThrow('unsupported schema version 0')
    expect(() => upcastEventData('Sample', 1, {}, { current: 3, upcasters: { 2: (data) => data } })).toThrow(
      'payment event Sample: no upcaster from schema version 1 to 2',
    )
  })
})
