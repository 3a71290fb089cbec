import { describe, expect, it } from 'vitest'
import { appendedPosition, comparePositions, decodePosition, encodePosition } from './positions.js'

describe('encodePosition / decodePosition', () => {
  it('writes commit and prepare as decimal digits and reads them back', () => {
    expect(encodePosition({ commit: 1024n, prepare: 980n })).toBe('1024:980')
    expect(decodePosition('1024:980')).toEqual({ commit: 1024n, prepare: 980n })
    expect(decodePosition('0:0')).toEqual({ commit: 0n, prepare: 0n })
  })

  it('keeps positions beyond 2^53 exact', () => {
    const position = { commit: 2n ** 64n - 1n, prepare: 2n ** 53n + 1n }
    expect(encodePosition(position)).toBe('18446744073709551615:9007199254740993')
    expect(decodePosition(encodePosition(position))).toEqual(position)
  })

  it.each([
    '',
    '12',
    'C:12/P:10',
    '1:2:3',
    '-1:0',
    '1:-1',
    '01:2',
    '1:02',
    ' 1:2',
    '1.5:2',
    '18446744073709551616:0',
  ])('rejects %j, which it never hands out', (text) => {
    expect(() => decodePosition(text)).toThrow(/not a KurrentDB event store position/)
  })

  it('rejects a position outside the 64-bit log', () => {
    expect(() => encodePosition({ commit: -1n, prepare: 0n })).toThrow(RangeError)
    expect(() => encodePosition({ commit: 0n, prepare: 2n ** 64n })).toThrow(RangeError)
  })
})

describe('comparePositions', () => {
  it('orders by commit position first, then by prepare position', () => {
    expect(comparePositions({ commit: 5n, prepare: 9n }, { commit: 6n, prepare: 1n })).toBe(-1)
    expect(comparePositions({ commit: 6n, prepare: 1n }, { commit: 5n, prepare: 9n })).toBe(1)
    expect(comparePositions({ commit: 5n, prepare: 3n }, { commit: 5n, prepare: 4n })).toBe(-1)
    expect(comparePositions({ commit: 5n, prepare: 4n }, { commit: 5n, prepare: 3n })).toBe(1)
    expect(comparePositions({ commit: 5n, prepare: 4n }, { commit: 5n, prepare: 4n })).toBe(0)
  })

  it('sorts decoded positions into $all order, numerically and not as text', () => {
    const texts = ['10:10', '9:9', '100:3', '100:2', '2:2']
    const sorted = texts.map(decodePosition).sort(comparePositions).map(encodePosition)
    expect(sorted).toEqual(['2:2', '9:9', '10:10', '100:2', '100:3'])
  })
})

describe('appendedPosition', () => {
  it('is the position of the last appended event, which commits itself', () => {
    // EventStoreDB before KurrentDB reports the first prepare of the append beside its commit position
    const reported = { commit: 4096n, prepare: 3800n }
    expect(appendedPosition(reported)).toEqual({ commit: 4096n, prepare: 4096n })
    expect(comparePositions(appendedPosition(reported), { commit: 4096n, prepare: 4096n })).toBe(0)
  })
})
