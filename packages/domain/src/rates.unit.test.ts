// The pure rules of exchange rates (docs/operations.md, "Exchange rates"; docs/api.md, "Prices in
// fiat", "Underpayment tolerance"): median, spread, pegs, the amount of a price, the tolerance.

import { describe, expect, it } from 'vitest'
import {
  combineRateQuotes,
  fiatAmountUnits,
  type RateQuote,
  underpaymentToleranceProblem,
  withinUnderpaymentTolerance,
} from './rates.js'

const SOL_USD = { base: 'SOL', quote: 'USD' }
const policy = { maxSpreadPercent: '2', pegs: [{ base: 'USDT', quote: 'USD', value: '1' }] }
const quote = (source: string, value: string, at = '2026-11-28T09:00:00.000Z'): RateQuote => ({
  source,
  value,
  at,
})

describe('combineRateQuotes', () => {
  it('takes the middle answer of an odd count, exactly, listing the sources and the oldest time', () => {
    expect(
      combineRateQuotes(
        SOL_USD,
        [
          quote('c', '142.30000000000000000001'),
          quote('a', '142.1', '2026-11-28T08:59:30.000Z'),
          quote('b', '142.9'),
        ],
        policy,
      ),
    ).toEqual({
      ok: true,
      pegged: false,
      rate: { value: '142.30000000000000000001', sources: ['a', 'b', 'c'], at: '2026-11-28T08:59:30.000Z' },
    })
  })

  it('takes the mean of the two middle answers of an even count', () => {
    const combined = combineRateQuotes(SOL_USD, [quote('a', '100'), quote('b', '100.01')], policy)
    expect(combined).toMatchObject({ ok: true, rate: { value: '100.005' } })
  })

  it('refuses answers that disagree by more than the spread of the median, naming the answers', () => {
    const combined = combineRateQuotes(SOL_USD, [quote('a', '100'), quote('b', '103')], policy)
    expect(combined).toEqual({
      ok: false,
      reason: 'SPREAD',
      detail: 'the sources disagree on SOL/USD by 2.96 % (at most 2 %): a 100, b 103',
    })
    // one answer far off among three is still a spread too wide
    expect(
      combineRateQuotes(SOL_USD, [quote('a', '100'), quote('b', '100'), quote('c', '90')], policy),
    ).toMatchObject({
      ok: false,
      reason: 'SPREAD',
    })
  })

  it('is no answer without quotes', () => {
    expect(combineRateQuotes(SOL_USD, [], policy)).toMatchObject({ ok: false, reason: 'NO_ANSWER' })
  })

  it('pegs while the market is within the spread of the peg, and prices as it trades beyond', () => {
    const USDT = { base: 'USDT', quote: 'USD' }
    expect(combineRateQuotes(USDT, [quote('a', '0.98')], policy)).toMatchObject({
      ok: true,
      pegged: true,
      rate: { value: '1', sources: ['peg', 'a'] },
    })
    expect(combineRateQuotes(USDT, [quote('a', '0.9799')], policy)).toMatchObject({
      ok: true,
      pegged: false,
      rate: { value: '0.9799', sources: ['a'] },
    })
    // the peg is of USD only: USDT in EUR is priced by the market
    expect(combineRateQuotes({ base: 'USDT', quote: 'EUR' }, [quote('a', '0.93')], policy)).toMatchObject({
      rate: { value: '0.93' },
    })
  })
})

describe('fiatAmountUnits', () => {
  it.each([
    ['10', '3', 6, 3_333_334n],
    ['10', '2', 6, 5_000_000n],
    ['0.01', '150', 9, 66_667n],
    ['19.99', '0.93', 6, 21_494_624n],
    // 1e18 - 1 at a rate of 1e-9: no float could hold it
    ['999999999999999999', '0.000000001', 0, 999_999_999_999_999_999_000_000_000n],
  ])('%s at %s is %s units, rounded up', (price, rate, decimals, units) => {
    expect(fiatAmountUnits(price, rate, decimals)).toBe(units)
  })
})

describe('withinUnderpaymentTolerance', () => {
  it('accepts a total at expected * (1 - tolerance) and refuses one unit less', () => {
    expect(withinUnderpaymentTolerance(9_950_000n, 10_000_000n, '0.5')).toBe(true)
    expect(withinUnderpaymentTolerance(9_949_999n, 10_000_000n, '0.5')).toBe(false)
    // 1.5 % of 333 is 4.995: 328.005 is the floor, so 328 units fall short
    expect(withinUnderpaymentTolerance(329n, 333n, '1.5')).toBe(true)
    expect(withinUnderpaymentTolerance(328n, 333n, '1.5')).toBe(false)
    expect(withinUnderpaymentTolerance(999n, 1000n, '0')).toBe(false)
    expect(withinUnderpaymentTolerance(1001n, 1000n, '0')).toBe(true)
  })
})

describe('underpaymentToleranceProblem', () => {
  it.each(['0', '0.5', '2.25', '5', '5.00'])('accepts %s', (value) => {
    expect(underpaymentToleranceProblem(value)).toBeNull()
  })

  it.each(['5.01', '6', '-1', '1.234', '', 'one', '.5'])('refuses %j', (value) => {
    expect(underpaymentToleranceProblem(value)).not.toBeNull()
  })

  it('refuses a number that is not text', () => {
    expect(underpaymentToleranceProblem(1)).not.toBeNull()
  })
})
