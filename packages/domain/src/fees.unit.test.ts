import { describe, expect, it } from 'vitest'
import { computeFee, defaultFeePolicy, type FeePolicy } from './fees.js'
import { formatUnits, toUnits } from './money.js'

const usdtOnTron = { network: 'TRON', currency: 'USDT', decimals: 6 }

describe('computeFee', () => {
  it('charges 1 % by default: 10.5 USDT gives a fee of 0.105 and a net of 10.395', () => {
    const { feeUnits, netUnits } = computeFee(toUnits('10.5', 6), usdtOnTron, defaultFeePolicy)
    expect(formatUnits(feeUnits, 6)).toBe('0.105')
    expect(formatUnits(netUnits, 6)).toBe('10.395')
  })

  it('rounds half up at the smallest unit', () => {
    const policy: FeePolicy = { feeBps: 100, fixedFees: {} }
    // 50 * 1 % = 0.5 units -> 1; 49 * 1 % = 0.49 -> 0; 150 * 1 % = 1.5 -> 2; 249 * 1 % = 2.49 -> 2
    expect(computeFee(50n, usdtOnTron, policy).feeUnits).toBe(1n)
    expect(computeFee(49n, usdtOnTron, policy).feeUnits).toBe(0n)
    expect(computeFee(150n, usdtOnTron, policy).feeUnits).toBe(2n)
    expect(computeFee(249n, usdtOnTron, policy).feeUnits).toBe(2n)
  })

  it('adds the fixed fee of the asset, converted with its decimals', () => {
    const policy: FeePolicy = { feeBps: 100, fixedFees: { 'TRON:USDT': '0.5', 'TRON:TRX': '9' } }
    const { feeUnits, netUnits } = computeFee(toUnits('10', 6), usdtOnTron, policy)
    expect(formatUnits(feeUnits, 6)).toBe('0.6')
    expect(formatUnits(netUnits, 6)).toBe('9.4')
  })

  it('ignores fixed fees of other assets', () => {
    const policy: FeePolicy = { feeBps: 0, fixedFees: { 'SOLANA:USDT': '1' } }
    expect(computeFee(toUnits('10', 6), usdtOnTron, policy)).toEqual({ feeUnits: 0n, netUnits: 10_000_000n })
  })

  it('caps the fee at the amount', () => {
    const policy: FeePolicy = { feeBps: 100, fixedFees: { 'TRON:USDT': '5' } }
    expect(computeFee(toUnits('1', 6), usdtOnTron, policy)).toEqual({ feeUnits: 1_000_000n, netUnits: 0n })
    expect(computeFee(100n, usdtOnTron, { feeBps: 20_000, fixedFees: {} })).toEqual({
      feeUnits: 100n,
      netUnits: 0n,
    })
  })

  it('charges nothing with a zero policy', () => {
    expect(computeFee(123n, usdtOnTron, { feeBps: 0, fixedFees: {} })).toEqual({
      feeUnits: 0n,
      netUnits: 123n,
    })
  })

  it('keeps fee + net = amount exactly for many amounts and policies', () => {
    const policies: FeePolicy[] = [
      defaultFeePolicy,
      { feeBps: 0, fixedFees: {} },
      { feeBps: 1, fixedFees: {} },
      { feeBps: 250, fixedFees: { 'TRON:USDT': '0.1' } },
      { feeBps: 9_999, fixedFees: { 'TRON:USDT': '0.000001' } },
      { feeBps: 10_000, fixedFees: {} },
    ]
    let amount = 1n
    for (let step = 0; step < 400; step++) {
      // a deterministic walk over small, odd and huge amounts
      amount = (amount * 7919n + 104_729n) % 1_000_000_000_000_000n
      for (const policy of policies) {
        const { feeUnits, netUnits } = computeFee(amount, usdtOnTron, policy)
        expect(feeUnits + netUnits).toBe(amount)
        expect(feeUnits >= 0n && netUnits >= 0n).toBe(true)
      }
    }
  })

  it('rejects a negative amount and an invalid feeBps', () => {
    expect(() => computeFee(-1n, usdtOnTron, defaultFeePolicy)).toThrow(RangeError)
    expect(() => computeFee(1n, usdtOnTron, { feeBps: -1, fixedFees: {} })).toThrow(RangeError)
    expect(() => computeFee(1n, usdtOnTron, { feeBps: 1.5, fixedFees: {} })).toThrow(RangeError)
  })

  it('rejects a fixed fee finer than the asset decimals', () => {
    const policy: FeePolicy = { feeBps: 0, fixedFees: { 'TRON:USDT': '0.0000001' } }
    expect(() => computeFee(1_000_000n, usdtOnTron, policy)).toThrow(RangeError)
  })
})
