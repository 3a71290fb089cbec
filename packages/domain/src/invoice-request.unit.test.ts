// The rules of POST /invoices (docs/api.md, "Invoices"): the accepted assets are the invoice's own
// rules; every other field is checked by the fiat payment's rules, with their messages.

import { describe, expect, it } from 'vitest'
import { defaultAssetRegistry } from './assets.js'
import { validateCreateInvoiceRequest } from './invoice-request.js'

const policy = { allowInsecureCallbackUrls: false }
const valid = { priceAmount: '19.99', priceCurrency: 'EUR', idempotencyKey: 'order-1' }
const validate = (body: unknown) => validateCreateInvoiceRequest(body, defaultAssetRegistry, policy)
const refusal = (body: unknown) => {
  try {
    validate(body)
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message }
  }
  return null
}

describe('validateCreateInvoiceRequest', () => {
  it('accepts every asset of the registry when none is listed, in its order', () => {
    const { accepted } = validate(valid)
    expect(accepted).toEqual(
      defaultAssetRegistry.assets.map(({ currency, network, tokenStandard }) => ({
        currency,
        network,
        tokenStandard,
      })),
    )
  })

  it('resolves the listed assets with their token standard', () => {
    const { accepted } = validate({ ...valid, accepted: [{ currency: 'USDC', network: 'SOLANA' }] })
    expect(accepted).toEqual([{ currency: 'USDC', network: 'SOLANA', tokenStandard: 'SPL' }])
  })

  it.each([
    [{ priceCurrency: 'EUR', idempotencyKey: 'k' }, 'VALIDATION_ERROR', 'priceAmount: is required'],
    [{ priceAmount: '1', priceCurrency: 'EUR' }, 'VALIDATION_ERROR', 'idempotencyKey: is required'],
    [{ ...valid, currency: 'USDT' }, 'VALIDATION_ERROR', "body: unknown field 'currency'"],
    [{ ...valid, accepted: 'USDT' }, 'VALIDATION_ERROR', 'accepted: must be an array'],
    [{ ...valid, accepted: [] }, 'VALIDATION_ERROR', 'accepted: must list at least one asset'],
    [
      { ...valid, accepted: [{ currency: 'USDT' }] },
      'VALIDATION_ERROR',
      'accepted[0].network: must be a string',
    ],
    [
      { ...valid, accepted: [{ currency: 'USDT', network: 'TRON', tokenStandard: 'TRC20' }] },
      'VALIDATION_ERROR',
      "accepted[0]: unknown field 'tokenStandard'",
    ],
    [
      {
        ...valid,
        accepted: [
          { currency: 'USDT', network: 'TRON' },
          { currency: 'USDT', network: 'TRON' },
        ],
      },
      'VALIDATION_ERROR',
      'accepted[1]: USDT on TRON is listed twice',
    ],
    [
      { ...valid, accepted: [{ currency: 'BTC', network: 'TRON' }] },
      'UNSUPPORTED_ASSET',
      'unsupported asset BTC on TRON',
    ],
    // the fiat payment's own rules and messages
    [{ ...valid, priceCurrency: 'GBP' }, 'VALIDATION_ERROR', 'priceCurrency: must be one of USD, EUR'],
    [{ ...valid, priceAmount: '1.999' }, 'VALIDATION_ERROR', 'priceAmount: at most 2 decimal places for EUR'],
    [{ ...valid, expiresInMinutes: 1441 }, 'VALIDATION_ERROR', 'expiresInMinutes: must be at most 1440'],
    [{ ...valid, callbackUrl: 'http://127.0.0.1/hook' }, 'VALIDATION_ERROR', 'callbackUrl:'],
    [{ ...valid, description: 'a\u202Eb' }, 'VALIDATION_ERROR', 'description:'],
  ])('refuses %j: %s %s', (body, code, message) => {
    expect(refusal(body)).toEqual({ code, message: expect.stringContaining(message) })
  })
})
