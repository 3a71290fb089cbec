// The port every rate source implements (docs/operations.md, "Exchange rates"): the price of one
// unit of an asset in a fiat currency, as the source last saw it. A source answers with a quote or
// throws a RateSourceFailure, whatever went wrong underneath (a timeout, a refused connection, an
// HTTP error, a body that is not the documented shape); the rate service counts a failed source out.

import type { RateQuote } from '@chainpay/domain'

export type { RateQuote }

/** one unit of `base` (an asset's currency: SOL, TRX, USDT, USDC) priced in `quote` (ISO 4217: USD) */
export interface RatePair {
  base: string
  quote: string
}

export interface RateSource {
  /** what the rate's `sources` and the metrics call it: coingecko, kraken, simulated */
  readonly name: string
  /** the source's price of the pair and the time it is from; throws RateSourceFailure */
  quote(pair: RatePair): Promise<RateQuote>
  /** closes kept-alive connections */
  close(): Promise<void>
}

/**
 * timeout: no answer in time; unreachable: no connection or a reset; http_status: an answer other
 * than 200; malformed: not the documented shape, or a price that is not a positive decimal;
 * unsupported_pair: the source does not price this pair (or is not configured to)
 */
export type RateSourceFailureKind =
  | 'timeout'
  | 'unreachable'
  | 'http_status'
  | 'malformed'
  | 'unsupported_pair'

export class RateSourceFailure extends Error {
  override readonly name = 'RateSourceFailure'
  constructor(
    readonly source: string,
    readonly kind: RateSourceFailureKind,
    message: string,
  ) {
    super(`${source}: ${message}`)
  }
}

export const pairName = (pair: RatePair): string => `${pair.base}/${pair.quote}`
