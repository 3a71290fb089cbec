// Exact decimal amounts (decisions.md section 1): strings on the wire, bigint smallest units inside.

/** `^(0|[1-9][0-9]{0,17})(\.[0-9]+)?$`: no sign, no exponent, no leading zeros */
export const DECIMAL_AMOUNT_PATTERN = '^(0|[1-9][0-9]{0,17})(\\.[0-9]+)?$'

export function isDecimalAmount(text: string): boolean {
  void text
  throw new Error('money: implemented by the domain work package')
}

/** number of digits after the dot (0 when there is no dot) */
export function fractionDigits(text: string): number {
  void text
  throw new Error('money: implemented by the domain work package')
}

/** "10.5" with 6 decimals -> 10500000n; throws RangeError on a malformed text or too many fraction digits */
export function toUnits(text: string, decimals: number): bigint {
  void text
  void decimals
  throw new Error('money: implemented by the domain work package')
}

/** 10500000n with 6 decimals -> "10.5": canonical, no trailing fractional zeros, no trailing dot */
export function formatUnits(units: bigint | string, decimals: number): string {
  void units
  void decimals
  throw new Error('money: implemented by the domain work package')
}
