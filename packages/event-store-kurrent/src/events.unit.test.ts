import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { assertUserStream, isPortEvent, type StoredEvent, toEventData, toRecordedEvent } from './events.js'

describe('toEventData', () => {
  it('writes a JSON event with the given id, type, data and metadata', () => {
    const eventId = randomUUID()
    const data = { amount: '123456789012345678901234567890', $where: 'kept' }
    expect(
      toEventData('payment-1', { eventId, type: 'PaymentCreated', data, metadata: { schemaVersion: 2 } }),
    ).toEqual({
      id: eventId,
      contentType: 'application/json',
      type: 'PaymentCreated',
      data,
      metadata: { schemaVersion: 2 },
    })
  })

  it('writes {} without metadata and null without data', () => {
    const event = toEventData('payment-1', { eventId: randomUUID(), type: 'PaymentExpired', data: undefined })
    expect([event.data, event.metadata]).toEqual([null, {}])
  })

  it.each([
    'not-a-uuid',
    '',
    randomUUID().toUpperCase(),
    `{${randomUUID()}}`,
    randomUUID().replaceAll('-', ''),
  ])('rejects the event id %j, which EventStoreDB would not hand back as written', (eventId) => {
    expect(() => toEventData('payment-1', { eventId, type: 'PaymentCreated', data: {} })).toThrow(
      /is not a lower-case UUID/,
    )
  })

  it.each(['', '$>', '$metadata'])('rejects the event type %j', (type) => {
    expect(() => toEventData('payment-1', { eventId: randomUUID(), type, data: {} })).toThrow(
      /empty or starts with \$/,
    )
  })
})

describe('assertUserStream', () => {
  it('accepts our streams and rejects empty and system stream names', () => {
    expect(() => assertUserStream('payment-0b9f3c1e-1d2a-4c55-9a4e-0d8f6b1c2a3e')).not.toThrow()
    for (const name of ['', '$all', '$$payment-1', '$ce-payment']) {
      expect(() => assertUserStream(name)).toThrow(/reserved for system streams/)
    }
  })
})

describe('toRecordedEvent', () => {
  const stored = (overrides: Partial<StoredEvent> = {}): StoredEvent => ({
    streamId: 'payment-1',
    id: '5c8e2f0a-8b3d-4e6f-9a1b-2c3d4e5f6a7b',
    revision: 3n,
    type: 'PaymentCreated',
    created: new Date('2025-03-26T10:11:12.345Z'),
    isJson: true,
    data: { paymentId: 'p1' },
    metadata: { schemaVersion: 1 },
    position: { commit: 9000n, prepare: 9000n },
    ...overrides,
  })

  it('maps what the client read onto the port event', () => {
    expect(toRecordedEvent(stored())).toEqual({
      streamId: 'payment-1',
      revision: 3,
      position: '9000:9000',
      eventId: '5c8e2f0a-8b3d-4e6f-9a1b-2c3d4e5f6a7b',
      type: 'PaymentCreated',
      data: { paymentId: 'p1' },
      metadata: { schemaVersion: 1 },
      recordedAt: '2025-03-26T10:11:12.345Z',
    })
  })

  it('gives {} for an event stored without metadata', () => {
    expect(toRecordedEvent(stored({ metadata: undefined })).metadata).toEqual({})
  })

  it('refuses an event it cannot return as written, saying which', () => {
    expect(() => toRecordedEvent(stored({ isJson: false, data: new Uint8Array([1, 2]) }))).toThrow(
      /stream payment-1 revision 3: not an event of this store/,
    )
    expect(() => toRecordedEvent(stored({ position: undefined }))).toThrow(/no \$all position/)
  })
})

describe('isPortEvent', () => {
  const base: StoredEvent = {
    streamId: 'payment-2',
    id: '5c8e2f0a-8b3d-4e6f-9a1b-2c3d4e5f6a7b',
    revision: 0n,
    type: 'PaymentCreated',
    created: new Date(),
    isJson: true,
    data: {},
    metadata: undefined,
    position: { commit: 1n, prepare: 1n },
  }

  it('is true for a JSON event in one of our streams', () => {
    expect(isPortEvent(base)).toBe(true)
    expect(isPortEvent({ ...base, metadata: { a: 1 } })).toBe(true)
  })

  it('is false for system streams, system and link events, binary data and metadata that is no JSON object', () => {
    expect(isPortEvent({ ...base, streamId: '$stats-127.0.0.1:2113' })).toBe(false)
    expect(isPortEvent({ ...base, streamId: '$$payment-2' })).toBe(false)
    expect(isPortEvent({ ...base, type: '$>' })).toBe(false)
    expect(isPortEvent({ ...base, isJson: false, data: new Uint8Array([1]) })).toBe(false)
    expect(isPortEvent({ ...base, metadata: new Uint8Array([0xff]) })).toBe(false)
    expect(isPortEvent({ ...base, metadata: ['a'] })).toBe(false)
    expect(isPortEvent({ ...base, metadata: 'text' })).toBe(false)
  })
})
