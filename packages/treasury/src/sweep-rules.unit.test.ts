import { describe, expect, it } from 'vitest'
import {
  decideSweep,
  nativeCostInTokenUnits,
  recordableUnits,
  type TronPrices,
  tokenValueInNativeUnits,
  tronBandwidthBurn,
  tronBandwidthBytes,
  tronStakeForEnergy,
  tronTokenSweepNeeds,
  tronTreasuryCharge,
  withHeadroom,
} from './sweep-rules.js'

const prices: TronPrices = {
  bandwidthSunPerByte: 1000n,
  energySunPerUnit: 100n,
  createAccountFeeSun: 1_000_000n,
  createAccountBandwidthFeeSun: 100_000n,
  totalEnergyLimit: 180_000_000_000n,
  totalEnergyWeight: 18_000_000_000n,
}

describe('decideSweep', () => {
  const candidate = {
    amountUnits: 1_000_000n,
    minimumUnits: 0n,
    netNativeCostUnits: 0n,
    costInAssetUnits: 0n,
  }

  it('given nothing at the address, when planning, then it is left as EMPTY', () => {
    expect(decideSweep({ ...candidate, amountUnits: 0n }, { allowLoss: false })).toEqual({
      sweep: false,
      reason: 'EMPTY',
    })
    expect(decideSweep({ ...candidate, amountUnits: 0n }, { allowLoss: true })).toEqual({
      sweep: false,
      reason: 'EMPTY',
    })
  })

  it('given less than the operator minimum, then it is dust left for a later plan, even with --allow-loss', () => {
    expect(decideSweep({ ...candidate, minimumUnits: 1_000_001n }, { allowLoss: true })).toEqual({
      sweep: false,
      reason: 'BELOW_MINIMUM',
    })
    expect(decideSweep({ ...candidate, minimumUnits: 1_000_000n }, { allowLoss: false })).toEqual({
      sweep: true,
    })
  })

  it('given fees larger than the amount, then no sweep unless --allow-loss; equal fees still sweep', () => {
    const costly = { ...candidate, netNativeCostUnits: 5n, costInAssetUnits: 1_000_001n }
    expect(decideSweep(costly, { allowLoss: false })).toEqual({ sweep: false, reason: 'FEES_EXCEED_AMOUNT' })
    expect(decideSweep(costly, { allowLoss: true })).toEqual({ sweep: true })
    expect(decideSweep({ ...costly, costInAssetUnits: 1_000_000n }, { allowLoss: false })).toEqual({
      sweep: true,
    })
  })

  it('given a token whose fee is in the native coin and no rate, then NO_RATE; a net gain (rent back) needs none', () => {
    const token = { ...candidate, netNativeCostUnits: 13_000_000n, costInAssetUnits: null }
    expect(decideSweep(token, { allowLoss: false })).toEqual({ sweep: false, reason: 'NO_RATE' })
    expect(decideSweep({ ...token, netNativeCostUnits: -2_029_280n }, { allowLoss: false })).toEqual({
      sweep: true,
    })
  })
})

describe('recordableUnits', () => {
  it('records what moved, capped at what the address received and no sweep took yet', () => {
    expect(recordableUnits(10n, 10n, 0n)).toBe(10n)
    expect(recordableUnits(12n, 10n, 0n)).toBe(10n)
    expect(recordableUnits(12n, 10n, 4n)).toBe(6n)
    expect(recordableUnits(5n, 10n, 10n)).toBe(0n)
  })
})

describe('nativeCostInTokenUnits', () => {
  it('converts 13 TRX at 3.6 TRX per USDT to USDT units, rounding against the sweep', () => {
    // 13 / 3.6 = 3.6111... USDT -> 3,611,112 units (rounded up)
    expect(
      nativeCostInTokenUnits(
        13_000_000n,
        { nativePerTokenUnits: 36n, rateScale: 10n },
        { native: 6, token: 6 },
      ),
    ).toBe(3_611_112n)
  })

  it('converts lamports to USDC units across different decimals', () => {
    // 0.01 SOL at 150 SOL... rate is SOL per USDC: 0.005 SOL per USDC -> 0.01 SOL = 2 USDC
    expect(
      nativeCostInTokenUnits(
        10_000_000n,
        { nativePerTokenUnits: 5n, rateScale: 1000n },
        { native: 9, token: 6 },
      ),
    ).toBe(2_000_000n)
  })
})

describe('tokenValueInNativeUnits', () => {
  it('values 12.5 USDC at 0.0067 SOL each in lamports, rounding against the sweep', () => {
    const rate = { nativePerTokenUnits: 67n, rateScale: 10_000n }
    // 12.5 x 0.0067 = 0.08375 SOL
    expect(tokenValueInNativeUnits(12_500_000n, rate, { native: 9, token: 6 })).toBe(83_750_000n)
    // one unit (0.000001 USDC) is worth 6.7 lamports: 6
    expect(tokenValueInNativeUnits(1n, rate, { native: 9, token: 6 })).toBe(6n)
  })
})

describe('TRON bandwidth and energy', () => {
  it('bills the raw data, its field header, one 65-byte signature and the 64-byte result allowance', () => {
    // raw 200 bytes: 1 tag + 2 length bytes + 200, 67 for the signature, 64
    expect(tronBandwidthBytes(200)).toBe(334n)
    expect(tronBandwidthBytes(100)).toBe(1n + 1n + 100n + 67n + 64n)
  })

  it('burns 1,000 sun a byte only when free and staked bandwidth do not cover the transaction', () => {
    expect(tronBandwidthBurn(283n, 600n, prices)).toBe(0n)
    expect(tronBandwidthBurn(283n, 282n, prices)).toBe(283_000n)
  })

  it('stakes whole TRX enough for the energy, at least one', () => {
    // 10 energy per TRX: 64,285 energy -> 6,429 TRX
    expect(tronStakeForEnergy(64_285n, prices)).toBe(6_429_000_000n)
    expect(tronStakeForEnergy(1n, prices)).toBe(1_000_000n)
  })
})

describe('the treasury pays for its own transactions', () => {
  it('uses staked bandwidth, then free bandwidth, then burns; an activation burns 1 TRX, plus 0.1 without stake', () => {
    const budget = { staked: 300n, free: 600n }
    expect(tronTreasuryCharge(budget, 270n, false, prices)).toEqual({
      burnSun: 0n,
      budget: { staked: 30n, free: 600n },
    })
    expect(tronTreasuryCharge({ staked: 30n, free: 600n }, 270n, false, prices)).toEqual({
      burnSun: 0n,
      budget: { staked: 30n, free: 330n },
    })
    expect(tronTreasuryCharge({ staked: 0n, free: 100n }, 270n, false, prices)).toEqual({
      burnSun: 270_000n,
      budget: { staked: 0n, free: 100n },
    })
    expect(tronTreasuryCharge(budget, 270n, true, prices).burnSun).toBe(1_000_000n)
    // free bandwidth cannot pay for creating an account
    expect(tronTreasuryCharge({ staked: 0n, free: 600n }, 270n, true, prices)).toEqual({
      burnSun: 1_100_000n,
      budget: { staked: 0n, free: 600n },
    })
  })
})

describe('tronTokenSweepNeeds: what a TRC20 address needs, in order', () => {
  // the node's estimate for a USDT transfer to a holder, and what the plan gives it (10% more)
  const base = { energy: 64_285n, energyProvided: 70_714n, paymentBandwidthBurnSun: 0n, prices }

  it('given an address never activated, burn mode: the treasury sends the energy burn with headroom, then the address transfers', () => {
    const needs = tronTokenSweepNeeds({ ...base, activated: false, trxBalanceSun: 0n, mode: 'burn' })
    expect(needs).toEqual({
      steps: ['fund', 'sweep'],
      topUpSun: 7_071_400n,
      addressBurnSun: 6_428_500n,
      // the headroom not burned at the estimate stays at the address, until a later plan returns it
      leftAtAddressSun: 642_900n,
      headroomSun: 642_900n,
      reservedFromAddressSun: 0n,
      stakeSun: null,
    })
  })

  it('given an address never activated, delegate mode: 1 sun activates it, energy with headroom is delegated, then taken back', () => {
    const needs = tronTokenSweepNeeds({ ...base, activated: false, trxBalanceSun: 0n, mode: 'delegate' })
    expect(needs).toEqual({
      steps: ['fund', 'delegate', 'sweep', 'undelegate'],
      topUpSun: 1n,
      addressBurnSun: 0n,
      leftAtAddressSun: 1n,
      headroomSun: 0n,
      reservedFromAddressSun: 0n,
      stakeSun: 7_072_000_000n,
    })
  })

  it('given an activated address holding enough TRX, it burns its own, keeping the headroom back from a later TRX sweep', () => {
    const needs = tronTokenSweepNeeds({ ...base, activated: true, trxBalanceSun: 10_000_000n, mode: 'burn' })
    expect(needs).toMatchObject({ steps: ['sweep'], topUpSun: 0n, reservedFromAddressSun: 7_071_400n })
  })

  it('given an activated address holding part of it, the treasury sends the rest; bandwidth beyond free is burned too', () => {
    const needs = tronTokenSweepNeeds({
      ...base,
      paymentBandwidthBurnSun: 345_000n,
      activated: true,
      trxBalanceSun: 1_000_000n,
      mode: 'burn',
    })
    expect(needs).toMatchObject({
      steps: ['fund', 'sweep'],
      addressBurnSun: 6_773_500n,
      topUpSun: 6_416_400n,
      leftAtAddressSun: 642_900n,
      headroomSun: 642_900n,
      reservedFromAddressSun: 1_000_000n,
    })
  })
})

describe('withHeadroom', () => {
  it('adds 10%, rounded up', () => {
    expect(withHeadroom(64_285n)).toBe(70_714n)
    expect(withHeadroom(130_285n)).toBe(143_314n)
    expect(withHeadroom(10_000n)).toBe(11_000n)
  })
})
