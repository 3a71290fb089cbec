// What `chainpay-wallet plan` prints: an address the plan leaves alone is counted with its reason
// and what to do about it, not only in the plan file's `skipped`.

import { describe, expect, it } from 'vitest'
import type { SkippedAddress, SweepPlan } from './sweep-plan.js'
import { planSummary } from './sweep-planner.js'
import { offlineSolanaPlan, testWallet } from './testing/offline-plan.js'

const skipped = (address: string, currency: string, reason: string): SkippedAddress => ({
  paymentId: `payment-of-${address}`,
  address,
  currency,
  holds: '5',
  reason,
})

function tronPlan(left: SkippedAddress[]): SweepPlan {
  return {
    ...offlineSolanaPlan(testWallet()),
    network: 'TRON_NILE',
    chain: 'TRON',
    steps: [],
    sweeps: [],
    skipped: left,
    validity: 'TRON transactions expire at 2026-11-28T23:38:40.517Z',
    totals: { moved: {}, treasuryNativeChange: '0', feeCurrency: 'TRX' },
  }
}

describe('plan summary', () => {
  it('says why one address is left and how to sweep it', () => {
    const lines = planSummary(
      tronPlan([skipped('TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'USDT', 'NO_RATE')]),
      'p.json',
    )
    expect(lines).toEqual([
      'plan p.json: 0 sweeps in 0 transactions, 1 address left',
      '  treasury TRX changes by 0',
      "  1 address left (TJRabPrwbZy45sbavfcjinPJC18kjpRTv8): NO_RATE, no fee rate for USDT: its sweep's fees are paid in TRX, and without a rate the plan cannot tell whether they cost more than the USDT moved; plan again with --rate USDT=TRX_PER_USDT (how many TRX one USDT is worth)",
      '  TRON transactions expire at 2026-11-28T23:38:40.517Z',
    ])
  })

  it('groups the addresses left by reason and currency, one line each', () => {
    const lines = planSummary(
      tronPlan([
        skipped('TA', 'USDT', 'BELOW_MINIMUM'),
        skipped('TB', 'USDT', 'FEES_EXCEED_AMOUNT'),
        skipped('TC', 'USDT', 'BELOW_MINIMUM'),
        skipped('TD', 'TRX', 'EMPTY'),
        skipped('TE', 'USDT', 'BELOW_MINIMUM'),
      ]),
      'p.json',
    )
    expect(lines[0]).toBe('plan p.json: 0 sweeps in 0 transactions, 5 addresses left')
    expect(lines.slice(2, -1)).toEqual([
      '  3 addresses left (TA and others): BELOW_MINIMUM, it holds less than the --min USDT=AMOUNT given: it stays there and is planned again next time',
      '  1 address left (TB): FEES_EXCEED_AMOUNT, the fees of its sweep are worth more than the USDT it would move: it stays there until it holds more, or plan again with --allow-loss',
      '  1 address left (TD): EMPTY, the chain shows no TRX there to move (already swept, or the funds never landed)',
    ])
  })

  it('says nothing of addresses left when none is', () => {
    const lines = planSummary(tronPlan([]), 'p.json')
    expect(lines).toEqual([
      'plan p.json: 0 sweeps in 0 transactions, 0 addresses left',
      '  treasury TRX changes by 0',
      '  TRON transactions expire at 2026-11-28T23:38:40.517Z',
    ])
  })
})
