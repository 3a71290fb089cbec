import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  assertUserStream,
  isPortEvent,
  NO_LOG_POSITION,
  positionOf,
  RECORDED_AT_KEY,
  type StoredEvent,
  toEventData,
  toRecordedEvent,
} from './events.js'

const recordedAt = '2025-03-26T10:11:12.345Z'

describe('toEventData', () => {
  it('writes a JSON event with the given id, type, data and metadata, and the time of the append', () => {
    const eventId = randomUUID()
    const data = { amount: '123456789012345678901234567890', $where: 'kept' }
    expect(
      toEventData(
        'payment-1',
        { eventId, type: 'PaymentCreated', data, metadata: { schemaVersion: 2 } },
        recordedAt,
      ),
    ).toEqual({
      id: eventId,
      contentType: 'application/json',
      type: 'PaymentCreated',
      data,
      metadata: { schemaVersion: 2, [RECORDED_AT_KEY]: recordedAt },
    })
  })

  it('writes only the time without metadata and null without data', () => {
    const event = toEventData(
      'payment-1',
      { eventId: randomUUID(), type: 'PaymentExpired', data: undefined },
      recordedAt,
    )
    expect([event.data, event.metadata]).toEqual([null, { [RECORDED_AT_KEY]: recordedAt }])
  })

  it('refuses metadata that uses the key the time is recorded under, and a time without milliseconds', () => {
    const event = { eventId: randomUUID(), type: 'PaymentCreated', data: {} }
    expect(() =>
      toEventData('payment-1', { ...event, metadata: { [RECORDED_AT_KEY]: 'mine' } }, recordedAt),
    ).toThrow(/is reserved/)
    expect(() => toEventData('payment-1', event, '2025-03-26T10:11:12Z')).toThrow(/with milliseconds/)
  })

  it.each([
    'not-a-uuid',
    '',
    randomUUID().toUpperCase(),
    `{${randomUUID()}}`,
    randomUUID().replaceAll('-', ''),
  ])('rejects the event id %j, which EventStoreDB would not hand back as written', (eventId) => {
    expect(() => toEventData('payment-1', { eventId, type: 'PaymentCreated', data: {} }, recordedAt)).toThrow(
      /is not a lower-case UUID/,
    )
  })

  it.each(['', '$>', '$metadata'])('rejects the event type %j', (type) => {
    expect(() => toEventData('payment-1', { eventId: randomUUID(), type, data: {} }, recordedAt)).toThrow(
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

  it('reads the time the append recorded in the metadata, to the millisecond, and leaves it out of the metadata', () => {
    // what the client's Rust bridge hands back: the server's time cut to whole seconds
    const read = stored({
      created: new Date('2025-03-26T10:11:12.000Z'),
      metadata: { schemaVersion: 1, [RECORDED_AT_KEY]: '2025-03-26T10:11:12.789Z' },
    })
    expect(toRecordedEvent(read)).toMatchObject({
      recordedAt: '2025-03-26T10:11:12.789Z',
      metadata: { schemaVersion: 1 },
    })
    expect(toRecordedEvent(read).metadata).not.toHaveProperty(RECORDED_AT_KEY)
  })

  it('falls back to the server time for events written without it, or with a time it cannot read', () => {
    for (const metadata of [
      undefined,
      { schemaVersion: 1 },
      { [RECORDED_AT_KEY]: 'yesterday' },
      { [RECORDED_AT_KEY]: 1742983872345 },
      { [RECORDED_AT_KEY]: '2025-13-45T10:11:12.789Z' },
    ]) {
      expect(toRecordedEvent(stored({ metadata })).recordedAt, JSON.stringify(metadata)).toBe(
        '2025-03-26T10:11:12.345Z',
      )
    }
  })

  it('round-trips the time toEventData records', () => {
    const written = toEventData('payment-1', { eventId: randomUUID(), type: 'T', data: {} }, recordedAt)
    const read = toRecordedEvent(
      stored({ created: new Date('2025-03-26T10:11:12Z'), metadata: written.metadata }),
    )
    expect([read.recordedAt, read.metadata]).toEqual([recordedAt, {}])
  })

  it('refuses an event the server gave no position, which the bridge hands back as -1 unsigned', () => {
    for (const position of [
      { commit: NO_LOG_POSITION, prepare: NO_LOG_POSITION },
      { commit: 12n, prepare: NO_LOG_POSITION },
    ]) {
      expect(() => toRecordedEvent(stored({ position }))).toThrow(/no \$all position/)
    }
  })

  it('refuses an event it cannot return as written, saying which', () => {
    expect(() => toRecordedEvent(stored({ isJson: false, data: new Uint8Array([1, 2]) }))).toThrow(
      /stream payment-1 revision 3: not an event of this store/,
    )
    expect(() => toRecordedEvent(stored({ position: undefined }))).toThrow(/no \$all position/)
  })
})

describe('positionOf', () => {
  const at = (position: StoredEvent['position']) =>
    ({
      streamId: 's',
      id: 'i',
      revision: 0n,
      type: 't',
      created: new Date(),
      isJson: true,
      data: {},
      metadata: undefined,
      position,
    }) as StoredEvent

  it('is the position the server gave, and undefined for none (missing, or -1 in either part)', () => {
    expect(positionOf(at({ commit: 0n, prepare: 0n }))).toEqual({ commit: 0n, prepare: 0n })
    expect(positionOf(at({ commit: 9000n, prepare: 8990n }))).toEqual({ commit: 9000n, prepare: 8990n })
    expect(positionOf(at(undefined))).toBeUndefined()
    expect(positionOf(at({ commit: NO_LOG_POSITION, prepare: 5n }))).toBeUndefined()
    expect(positionOf(at({ commit: 5n, prepare: NO_LOG_POSITION }))).toBeUndefined()
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
