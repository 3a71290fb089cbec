// A price as a source writes it (a JSON string such as Kraken's "142.37000", or a JSON number such as
// CoinGecko's 142.37, kept as its text) becomes a canonical decimal rate, or a malformed answer.

import { canonicalDecimal, isRateValue } from '@chainpay/domain'
import { JsonNumberText } from './http-json.js'
import { RateSourceFailure } from './rate-source.js'

const NUMBER_TEXT = /^[0-9]{1,30}(\.[0-9]{1,30})?([eE][-+]?[0-9]{1,3})?$/

export function rateValueOf(source: string, raw: unknown, what: string): string {
  const text = raw instanceof JsonNumberText ? raw.text : raw
  if (typeof text !== 'string' || !NUMBER_TEXT.test(text)) {
    throw new RateSourceFailure(source, 'malformed', `${what} is not a decimal price: ${describe(raw)}`)
  }
  const value = canonicalDecimal(text)
  if (!isRateValue(value)) {
    throw new RateSourceFailure(source, 'malformed', `${what} is not a positive price: ${text}`)
  }
  return value
}

function describe(raw: unknown): string {
  if (raw instanceof JsonNumberText) return raw.text
  const text = JSON.stringify(raw) ?? String(raw)
  return text.length > 60 ? `${text.slice(0, 60)}...` : text
}
