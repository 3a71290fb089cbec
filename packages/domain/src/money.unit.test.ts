import { describe, expect, it } from 'vitest'
import { formatUnits, fractionDigits, isDecimalAmount, toUnits } from './money.js'

describe('isDecimalAmount', () => {
  it.each(['0', '1', '10.5', '0.000001', '10.50', '123456789012345678', '999999999999999999.123456789'])(
    'accepts %s',
    (text) => {
      expect(isDecimalAmount(text)).toBe(true)
    },
  )

  it.each([
    '',
    '01',
    '00.1',
    '-1',
    '+1',
    '1e6',
    '1.',
    '.5',
    ' 1',
    '1 ',
    '1,5',
    '0x10',
    '1234567890123456789',
    'NaN',
    '١',
  ])('rejects %j', (text) => {
    expect(isDecimalAmount(text)).toBe(false)
  })
})

describe('fractionDigits', () => {
  it('counts the digits after the dot', () => {
    expect(fractionDigits('10')).toBe(0)
    expect(fractionDigits('10.5')).toBe(1)
    expect(fractionDigits('0.000001')).toBe(6)
    expect(fractionDigits('1.500')).toBe(3)
  })
})

describe('toUnits', () => {
  it('converts a decimal string to smallest units', () => {
    expect(toUnits('10.5', 6)).toBe(10_500_000n)
    expect(toUnits('10', 6)).toBe(10_000_000n)
    expect(toUnits('0.000001', 6)).toBe(1n)
    expect(toUnits('0', 9)).toBe(0n)
    expect(toUnits('7', 0)).toBe(7n)
    expect(toUnits('1.500000', 6)).toBe(1_500_000n)
  })

  it('stays exact far beyond the precision of a JS number', () => {
    expect(toUnits('999999999999999999.999999999999999999', 18)).toBe(999999999999999999999999999999999999n)
  })

  it('throws a RangeError for more fraction digits than the asset has', () => {
    expect(() => toUnits('0.0000001', 6)).toThrow(RangeError)
    expect(() => toUnits('1.5', 0)).toThrow(RangeError)
  })

  it.each(['', '-1', '1e3', '01', '1.', 'abc'])('throws a RangeError for the malformed %j', (text) => {
    expect(() => toUnits(text, 6)).toThrow(RangeError)
  })

  it('throws a RangeError for an impossible number of decimals', () => {
    expect(() => toUnits('1', -1)).toThrow(RangeError)
    expect(() => toUnits('1', 1.5)).toThrow(RangeError)
  })
})

describe('formatUnits', () => {
  it('writes canonical decimals: no trailing zeros, no trailing dot', () => {
    expect(formatUnits(10_500_000n, 6)).toBe('10.5')
    expect(formatUnits(10_000_000n, 6)).toBe('10')
    expect(formatUnits(1n, 6)).toBe('0.000001')
    expect(formatUnits(0n, 6)).toBe('0')
    expect(formatUnits(123n, 0)).toBe('123')
    expect(formatUnits(1_000_000_001n, 9)).toBe('1.000000001')
  })

  it('accepts a decimal integer string', () => {
    expect(formatUnits('10500000', 6)).toBe('10.5')
    expect(formatUnits('0', 9)).toBe('0')
  })

  it.each(['', '-1', '1.5', '1e3', ' 1'])('rejects the units string %j', (units) => {
    expect(() => formatUnits(units, 6)).toThrow(RangeError)
  })

  it('rejects negative units', () => {
    expect(() => formatUnits(-1n, 6)).toThrow(RangeError)
  })

  it('round-trips with toUnits to the canonical form', () => {
    for (const [text, canonical] of [
      ['10.50', '10.5'],
      ['0.000100', '0.0001'],
      ['42', '42'],
      ['1000000000', '1000000000'],
    ] as const) {
      expect(formatUnits(toUnits(text, 6), 6)).toBe(canonical)
    }
  })
})
