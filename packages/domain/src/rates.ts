// Prices in fiat (docs/api.md, "Prices in fiat"): what a rate is, how the answers of several sources
// become one rate (median, spread, pegs), and how a fiat price becomes an amount of an asset.
// Pure and exact: rates and prices are decimal strings, the arithmetic is bignumber.js's, never a
// JavaScript number.

import { BigNumber } from 'bignumber.js'

/** Exact decimals: enough places for a median of two answers and a spread, never rounded to a float. */
const Exact = BigNumber.clone({
  DECIMAL_PLACES: 40,
  ROUNDING_MODE: BigNumber.ROUND_HALF_UP,
  EXPONENTIAL_AT: 1e9,
})

/**
 * The rate a fiat-priced payment was created at, locked until its expiresAt and recorded in its
 * creation event: `value` units of the fiat currency for one unit of the asset ("USD per SOL"),
 * the sources it came from, and the time of the oldest answer it is made of.
 */
export interface LockedRate {
  value: string
  sources: string[]
  at: string
}

/** one source's answer: the price of one unit of `base` in `quote`, as of `at` */
export interface RateQuote {
  source: string
  value: string
  at: string
}

/** a configured peg: `base` is worth `value` of `quote` while the market agrees within the spread */
export interface RatePeg {
  base: string
  quote: string
  value: string
}

export interface RatePolicy {
  /** the most the answers may differ, (highest - lowest) / median, in percent; default 2 */
  maxSpreadPercent: string
  /** pegs by configuration (USDT = 1 USD) */
  pegs: readonly RatePeg[]
}

export type CombinedRate =
  | { ok: true; rate: LockedRate; pegged: boolean }
  | { ok: false; reason: 'NO_ANSWER' | 'SPREAD'; detail: string }

/** a decimal rate as sources send it: digits with an optional fraction, no sign or exponent */
const RATE_PATTERN = /^[0-9]{1,30}(\.[0-9]{1,30})?$/

/** true when `text` is a positive decimal as a rate must be */
export function isRateValue(text: unknown): text is string {
  return typeof text === 'string' && RATE_PATTERN.test(text) && new Exact(text).gt(0)
}

/** canonical decimal text: no exponent, no trailing fractional zeros */
export function canonicalDecimal(text: string): string {
  return new Exact(text).toFixed()
}

/**
 * The answers that are fresh enough become one rate: their median (the mean of the two middle
 * answers when there is an even number), refused when (highest - lowest) / median exceeds the
 * spread. A peg for the pair replaces the median while the median stays within the spread of the
 * peg; otherwise the market rate stands (a stablecoin that lost its peg is priced as it trades).
 */
export function combineRateQuotes(
  pair: { base: string; quote: string },
  quotes: readonly RateQuote[],
  policy: RatePolicy,
): CombinedRate {
  if (quotes.length === 0) {
    return {
      ok: false,
      reason: 'NO_ANSWER',
      detail: `no rate source answered for ${pair.base}/${pair.quote}`,
    }
  }
  const values = quotes.map((quote) => new Exact(quote.value)).sort((a, b) => a.comparedTo(b) ?? 0)
  const middle = Math.floor(values.length / 2)
  const median =
    values.length % 2 === 1
      ? (values[middle] as BigNumber)
      : (values[middle - 1] as BigNumber).plus(values[middle] as BigNumber).div(2)
  const maxSpread = new Exact(policy.maxSpreadPercent)
  const lowest = values[0] as BigNumber
  const highest = values[values.length - 1] as BigNumber
  const spread = highest.minus(lowest).times(100).div(median)
  if (spread.gt(maxSpread)) {
    return {
      ok: false,
      reason: 'SPREAD',
      detail: `the sources disagree on ${pair.base}/${pair.quote} by ${spread.decimalPlaces(2).toFixed()} % (at most ${maxSpread.toFixed()} %): ${quotes.map((quote) => `${quote.source} ${quote.value}`).join(', ')}`,
    }
  }
  const at = quotes.map((quote) => quote.at).sort()[0] as string
  const sources = quotes.map((quote) => quote.source).sort()
  const peg = policy.pegs.find((candidate) => candidate.base === pair.base && candidate.quote === pair.quote)
  if (peg !== undefined) {
    const pegValue = new Exact(peg.value)
    const offPeg = median.minus(pegValue).abs().times(100).div(pegValue)
    if (offPeg.lte(maxSpread)) {
      return { ok: true, pegged: true, rate: { value: pegValue.toFixed(), sources: ['peg', ...sources], at } }
    }
  }
  return { ok: true, pegged: false, rate: { value: median.toFixed(), sources, at } }
}

/**
 * The amount of the asset for a fiat price at a rate: priceAmount / rate, rounded UP to the asset's
 * decimals (the merchant never receives less than the price), in the asset's smallest units.
 */
export function fiatAmountUnits(priceAmount: string, rateValue: string, decimals: number): bigint {
  const RoundUp = BigNumber.clone({
    DECIMAL_PLACES: decimals,
    ROUNDING_MODE: BigNumber.ROUND_UP,
    EXPONENTIAL_AT: 1e9,
  })
  const amount = new RoundUp(priceAmount).div(new RoundUp(rateValue))
  return BigInt(amount.shiftedBy(decimals).integerValue(BigNumber.ROUND_UP).toFixed())
}

/** percent of `expected` that `received` falls short of, compared exactly: received >= expected * (1 - tolerance / 100) */
export function withinUnderpaymentTolerance(
  received: bigint,
  expected: bigint,
  tolerancePercent: string,
): boolean {
  if (received >= expected) return true
  const tolerance = new Exact(tolerancePercent)
  const floor = new Exact(expected.toString()).times(new Exact(100).minus(tolerance)).div(100)
  return new Exact(received.toString()).gte(floor)
}

/** an underpayment tolerance as text: 0 to 5 percent with at most two decimals ("0", "0.5", "2.25") */
export const TOLERANCE_PERCENT_PATTERN = '^[0-5](\\.[0-9]{1,2})?$'
export const maxUnderpaymentTolerancePercent = '5'

/** null when `value` is a tolerance the operator may set, else what is wrong with it */
export function underpaymentToleranceProblem(value: unknown): string | null {
  if (typeof value !== 'string' || !new RegExp(TOLERANCE_PERCENT_PATTERN).test(value)) {
    return 'must be a decimal string from "0" to "5" with at most two decimals, such as "0.5"'
  }
  if (new Exact(value).gt(maxUnderpaymentTolerancePercent)) return 'must be at most "5"'
  return null
}
