// What a plan can pay of the ready refunds and payouts, given what the treasury holds
// (docs/treasury.md, "Refunds and payouts in a plan"): in order, never half paid, a smaller later one may fit.

import { describe, expect, it } from 'vitest'
import { fitOutgoing, type PricedOutgoing } from './outgoing-rules.js'

const TRX = 1_000_000n
const usdt = (item: string, amount: bigint, cost = 15n * TRX): PricedOutgoing<string> => ({
  item,
  currency: 'USDT',
  amountUnits: amount,
  native: false,
  costUnits: cost,
})
const trx = (item: string, amount: bigint, cost = 270_000n): PricedOutgoing<string> => ({
  item,
  currency: 'TRX',
  amountUnits: amount,
  native: true,
  costUnits: cost,
})

describe('fitOutgoing', () => {
  it('given a treasury that holds enough, when the items are fitted, then all are kept and what is left is said', () => {
    const fit = fitOutgoing(
      [usdt('r1', 10n * TRX), trx('p1', 25n * TRX)],
      {
        nativeUnits: 100n * TRX,
        tokens: new Map([['USDT', 50n * TRX]]),
      },
      'TRX',
    )
    expect(fit.kept.map(({ item }) => item)).toEqual(['r1', 'p1'])
    expect(fit.short).toEqual([])
    expect(fit.left).toEqual({
      nativeUnits: 100n * TRX - 15n * TRX - 25n * TRX - 270_000n,
      tokens: new Map([['USDT', 40n * TRX]]),
    })
  })

  it('given too few tokens for the first item, then it is left out with what is missing, and a smaller later one still fits', () => {
    const fit = fitOutgoing(
      [usdt('big', 60n * TRX), usdt('small', 5n * TRX)],
      {
        nativeUnits: 100n * TRX,
        tokens: new Map([['USDT', 50n * TRX]]),
      },
      'TRX',
    )
    expect(fit.kept.map(({ item }) => item)).toEqual(['small'])
    expect(fit.short).toEqual([
      { priced: usdt('big', 60n * TRX), missing: [{ currency: 'USDT', needed: 60n * TRX, held: 50n * TRX }] },
    ])
  })

  it('given the coin spent by the items before, then a token item whose fees it cannot pay is left out, naming the coin', () => {
    const fit = fitOutgoing(
      [trx('p1', 90n * TRX), usdt('r1', 10n * TRX)],
      {
        nativeUnits: 100n * TRX,
        tokens: new Map([['USDT', 50n * TRX]]),
      },
      'TRX',
    )
    expect(fit.kept.map(({ item }) => item)).toEqual(['p1'])
    expect(fit.short[0]?.missing).toEqual([
      { currency: 'TRX', needed: 15n * TRX, held: 10n * TRX - 270_000n },
    ])
  })

  it('given a reserve larger than the coin held (the sweeps take it all), then every item is short and held counts as 0', () => {
    const fit = fitOutgoing([trx('p1', 1n)], { nativeUnits: -5n, tokens: new Map() }, 'TRX')
    expect(fit.kept).toEqual([])
    expect(fit.short[0]?.missing).toEqual([{ currency: 'TRX', needed: 270_001n, held: 0n }])
  })
})
