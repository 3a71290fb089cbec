// Exact decimal amounts (docs/api.md, "Conventions"): strings on the wire, bigint smallest units inside.

/** `^(0|[1-9][0-9]{0,17})(\.[0-9]+)?$`: no sign, no exponent, no leading zeros */
export const DECIMAL_AMOUNT_PATTERN = '^(0|[1-9][0-9]{0,17})(\\.[0-9]+)?$'

const decimalAmount = new RegExp(DECIMAL_AMOUNT_PATTERN)
const unsignedInteger = /^[0-9]+$/

export function isDecimalAmount(text: string): boolean {
  return typeof text === 'string' && decimalAmount.test(text)
}

/** number of digits after the dot (0 when there is no dot) */
export function fractionDigits(text: string): number {
  const dot = text.indexOf('.')
  return dot === -1 ? 0 : text.length - dot - 1
}

/** "10.5" with 6 decimals -> 10500000n; throws RangeError on a malformed text or too many fraction digits */
export function toUnits(text: string, decimals: number): bigint {
  assertDecimals(decimals)
  if (!isDecimalAmount(text))
    throw new RangeError(`not a decimal amount (expected ${DECIMAL_AMOUNT_PATTERN})`)
  const [whole = '', fraction = ''] = text.split('.')
  if (fraction.length > decimals) {
    throw new RangeError(`${text} has more than ${decimals} decimal places`)
  }
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

/** 10500000n with 6 decimals -> "10.5": canonical, no trailing fractional zeros, no trailing dot */
export function formatUnits(units: bigint | string, decimals: number): string {
  assertDecimals(decimals)
  const value = typeof units === 'bigint' ? units : parseUnits(units)
  if (value < 0n) throw new RangeError('formatUnits: units must not be negative')
  const digits = value.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}

function parseUnits(text: string): bigint {
  if (typeof text !== 'string' || !unsignedInteger.test(text)) {
    throw new RangeError('formatUnits: units must be a decimal integer')
  }
  return BigInt(text)
}

function assertDecimals(decimals: number): void {
  if (!Number.isSafeInteger(decimals) || decimals < 0) {
    throw new RangeError(`decimals must be a non-negative integer, got ${decimals}`)
  }
}
