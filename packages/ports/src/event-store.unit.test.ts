import { describe, expect, it } from 'vitest'
import { isRepeatedAppend, type NewEvent } from './event-store.js'

const event = (eventId: string): NewEvent => ({ eventId, type: 'T', data: {} })
const [a, b, c] = [event('a'), event('b'), event('c')]

describe('isRepeatedAppend', () => {
  it('is new when the stream holds none of the ids', () => {
    expect(isRepeatedAppend([a, b], [], 'no_stream')).toEqual({ kind: 'new' })
  })

  it('is a retry when the stream holds exactly these events, in order, right after the expected revision', () => {
    expect(
      isRepeatedAppend(
        [a, b],
        [
          { eventId: 'b', revision: 1 },
          { eventId: 'a', revision: 0 },
        ],
        'no_stream',
      ),
    ).toEqual({
      kind: 'retry',
      lastRevision: 1,
    })
    expect(
      isRepeatedAppend(
        [b, c],
        [
          { eventId: 'b', revision: 4 },
          { eventId: 'c', revision: 5 },
        ],
        3,
      ),
    ).toEqual({
      kind: 'retry',
      lastRevision: 5,
    })
    expect(isRepeatedAppend([c], [{ eventId: 'c', revision: 7 }], 'any')).toEqual({
      kind: 'retry',
      lastRevision: 7,
    })
  })

  it('is a duplicate for the same events at another place, part of them, another order or one id twice', () => {
    expect(isRepeatedAppend([a], [{ eventId: 'a', revision: 0 }], 0)).toEqual({
      kind: 'duplicate',
      eventId: 'a',
    })
    expect(isRepeatedAppend([b], [{ eventId: 'b', revision: 1 }], 'no_stream')).toEqual({
      kind: 'duplicate',
      eventId: 'b',
    })
    expect(isRepeatedAppend([a, c], [{ eventId: 'a', revision: 0 }], 'no_stream')).toEqual({
      kind: 'duplicate',
      eventId: 'a',
    })
    expect(
      isRepeatedAppend(
        [b, a],
        [
          { eventId: 'a', revision: 0 },
          { eventId: 'b', revision: 1 },
        ],
        'no_stream',
      ),
    ).toEqual({ kind: 'duplicate', eventId: 'b' })
    expect(
      isRepeatedAppend(
        [a, b],
        [
          { eventId: 'a', revision: 0 },
          { eventId: 'b', revision: 2 },
        ],
        'no_stream',
      ),
    ).toEqual({ kind: 'duplicate', eventId: 'a' })
    expect(isRepeatedAppend([c, c], [], 'no_stream')).toEqual({ kind: 'duplicate', eventId: 'c' })
  })
})
