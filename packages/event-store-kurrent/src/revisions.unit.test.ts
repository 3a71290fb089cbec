import { StoreUnavailableError, WrongExpectedRevisionError } from '@chainpay/ports'
import {
  ANY,
  DeadlineExceededError,
  NO_STREAM,
  StreamDeletedError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client'
import { describe, expect, it } from 'vitest'
import {
  isStreamNotFound,
  toActualRevision,
  toStreamState,
  translateAppendError,
  translateKurrentFailure,
} from './revisions.js'

describe('toStreamState', () => {
  it('maps the port expectations onto the client stream states', () => {
    expect(toStreamState('no_stream')).toBe(NO_STREAM)
    expect(toStreamState('any')).toBe(ANY)
    expect(toStreamState(0)).toBe(0n)
    expect(toStreamState(41)).toBe(41n)
    expect(toStreamState(Number.MAX_SAFE_INTEGER)).toBe(9007199254740991n)
  })

  it.each([-1, -2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])(
    'rejects %d, which is no revision',
    (revision) => {
      expect(() => toStreamState(revision)).toThrow(RangeError)
    },
  )
})

describe('toActualRevision', () => {
  it('is -1 for a stream that does not exist and the revision otherwise', () => {
    expect(toActualRevision(NO_STREAM)).toBe(-1)
    expect(toActualRevision(0n)).toBe(0)
    expect(toActualRevision(7n)).toBe(7)
    // the client's gRPC-metadata path reports a missing stream as -1 rather than no_stream
    expect(toActualRevision(-1n)).toBe(-1)
  })
})

describe('translateAppendError', () => {
  const clientError = (
    expected: bigint | typeof NO_STREAM | typeof ANY,
    current: bigint | typeof NO_STREAM,
  ) => new WrongExpectedVersionError(undefined, { streamName: 'payment-1', expected, current })

  it('turns a wrong expected version into the port error with the actual revision', () => {
    const translated = translateAppendError(clientError(1n, 2n), 'payment-1', 1)
    expect(translated).toBeInstanceOf(WrongExpectedRevisionError)
    const error = translated as WrongExpectedRevisionError
    expect([error.streamId, error.expected, error.actual]).toEqual(['payment-1', 1, 2])
    expect(error.message).toBe('stream payment-1: expected revision 1, actual 2')
  })

  it('reports -1 for a stream that does not exist', () => {
    const error = translateAppendError(clientError(0n, NO_STREAM), 'payment-2', 0)
    expect(error).toMatchObject({ name: 'WrongExpectedRevisionError', expected: 0, actual: -1 })
  })

  it("keeps the port's expectation as the caller gave it", () => {
    expect(translateAppendError(clientError(NO_STREAM, 0n), 'payment-3', 'no_stream')).toMatchObject({
      streamId: 'payment-3',
      expected: 'no_stream',
      actual: 0,
    })
  })

  it('passes every other error through unchanged', () => {
    for (const other of [
      new StreamDeletedError(undefined, 'payment-4'),
      new StreamNotFoundError(undefined, 'payment-4'),
      new UnavailableError(),
      new Error('14 UNAVAILABLE: No connection established'),
      'not even an error',
    ]) {
      expect(translateAppendError(other, 'payment-4', 0)).toBe(other)
    }
  })

  it('recognises the error by its type, as thrown by another copy of the client', () => {
    const foreign = Object.assign(new Error('wrong expected version'), {
      type: 'wrong-expected-version',
      actualState: 3n,
    })
    expect(translateAppendError(foreign, 'payment-5', 2)).toMatchObject({ expected: 2, actual: 3 })
  })
})

describe('isStreamNotFound', () => {
  it("is true only for the client's stream-not-found error", () => {
    expect(isStreamNotFound(new StreamNotFoundError(undefined, 'payment-6'))).toBe(true)
    expect(isStreamNotFound(new StreamDeletedError(undefined, 'payment-6'))).toBe(false)
    expect(isStreamNotFound(new UnavailableError())).toBe(false)
    expect(isStreamNotFound({ type: 'stream-not-found' })).toBe(false)
  })
})

describe('translateKurrentFailure', () => {
  it('makes a server that cannot serve right now a StoreUnavailableError, keeping the cause', () => {
    for (const outage of [
      new UnavailableError(),
      new DeadlineExceededError(),
      new TimeoutError(),
      Object.assign(new Error('not leader'), { type: 'not-leader' }),
      // gRPC's own, passed through by the client
      Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
        code: 14,
        details: 'No connection',
      }),
      Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), { code: 4 }),
    ]) {
      const translated = translateKurrentFailure(outage)
      expect(translated).toBeInstanceOf(StoreUnavailableError)
      expect(translated).toMatchObject({ cause: outage, message: expect.stringMatching(/^EventStoreDB: /) })
    }
  })

  it('passes a refused call or any other error through unchanged (a 500 to fix)', () => {
    for (const other of [
      new StreamDeletedError(undefined, 'payment-7'),
      Object.assign(new Error('wrong expected version'), { type: 'wrong-expected-version' }),
      new TypeError('cannot read properties of undefined'),
      Object.assign(new Error('3 INVALID_ARGUMENT: bad request'), { code: 3 }),
      'not even an error',
    ]) {
      expect(translateKurrentFailure(other)).toBe(other)
    }
  })
})
