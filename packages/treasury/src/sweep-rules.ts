// The planning rules of a sweep (docs/treasury.md, "Minimum amounts and dust"): pure arithmetic on
// smallest units, so that what the plan announces is what the chain will charge.

/** what one payment address holds of the asset the plan would move, and what moving it costs */
export interface SweepCandidate {
  /** smallest units of the swept asset the address holds now */
  amountUnits: bigint
  /** the operator's minimum for this asset (--min), smallest units; 0n = any amount */
  minimumUnits: bigint
  /**
   * fees in the chain's native coin that the sweep burns or leaves behind (activation, energy,
   * bandwidth, signatures), less what it brings back (a closed token account's rent)
   */
  netNativeCostUnits: bigint
  /**
   * the native cost expressed in units of the swept asset (same asset: the cost itself); null when
   * the asset is a token and the operator gave no rate, so the cost cannot be weighed against it
   */
  costInAssetUnits: bigint | null
}

export type SweepDecision =
  | { sweep: true }
  | { sweep: false; reason: 'EMPTY' | 'BELOW_MINIMUM' | 'FEES_EXCEED_AMOUNT' | 'NO_RATE' }

/** whether to sweep: something to move, at least the minimum, and fees no larger than the amount */
export function decideSweep(candidate: SweepCandidate, options: { allowLoss: boolean }): SweepDecision {
  if (candidate.amountUnits <= 0n) return { sweep: false, reason: 'EMPTY' }
  if (candidate.amountUnits < candidate.minimumUnits) return { sweep: false, reason: 'BELOW_MINIMUM' }
  if (options.allowLoss || candidate.netNativeCostUnits <= 0n) return { sweep: true }
  if (candidate.costInAssetUnits === null) return { sweep: false, reason: 'NO_RATE' }
  return candidate.costInAssetUnits > candidate.amountUnits
    ? { sweep: false, reason: 'FEES_EXCEED_AMOUNT' }
    : { sweep: true }
}

/**
 * What a plan adds to the node's estimates (docs/treasury.md, "Headroom"): energy and fee limits on
 * TRON, fees on Solana. A plan stays valid for up to a day, and broadcast checks the figures again
 */
export const HEADROOM_PERCENT = 10n

/** `units` plus the headroom, rounded up */
export function withHeadroom(units: bigint): bigint {
  return (units * (100n + HEADROOM_PERCENT) + 99n) / 100n
}

/**
 * What a sweep records (POST /admin/sweeps): what it moves, but never more than the address received
 * and no sweep took yet. The rest is the treasury's own coin coming back (a top-up the address did not
 * burn), not a payment's funds; the admin API would refuse it (SWEEP_EXCEEDS_UNSWEPT).
 */
export function recordableUnits(movedUnits: bigint, receivedUnits: bigint, sweptUnits: bigint): bigint {
  const unswept = receivedUnits - sweptUnits
  if (unswept <= 0n) return 0n
  return movedUnits < unswept ? movedUnits : unswept
}

/**
 * A native cost in units of a token: `rate` = native coins per whole token (--rate USDT=3.6 means
 * one USDT is worth 3.6 TRX), rounded up so that the comparison never favours the sweep.
 */
export function nativeCostInTokenUnits(
  nativeUnits: bigint,
  rate: { nativePerTokenUnits: bigint; rateScale: bigint },
  decimals: { native: number; token: number },
): bigint {
  // tokenUnits = native / 10^nd * 10^td / (nativePerToken / scale)
  const numerator = nativeUnits * 10n ** BigInt(decimals.token) * rate.rateScale
  const denominator = 10n ** BigInt(decimals.native) * rate.nativePerTokenUnits
  return (numerator + denominator - 1n) / denominator
}

/**
 * A token amount in units of the native coin at the operator's rate (--rate USDC=0.0067: SOL per
 * USDC), rounded down so that the comparison with a cost never favours the sweep.
 */
export function tokenValueInNativeUnits(
  tokenUnits: bigint,
  rate: { nativePerTokenUnits: bigint; rateScale: bigint },
  decimals: { native: number; token: number },
): bigint {
  return (
    (tokenUnits * rate.nativePerTokenUnits * 10n ** BigInt(decimals.native)) /
    (10n ** BigInt(decimals.token) * rate.rateScale)
  )
}

//////// TRON

/** java-tron's chain parameters the plan prices with (GET /wallet/getchainparameters) */
export interface TronPrices {
  /** getTransactionFee: sun burned per bandwidth byte (1,000) */
  bandwidthSunPerByte: bigint
  /** getEnergyFee: sun burned per energy unit (100 on mainnet since 2025-08) */
  energySunPerUnit: bigint
  /** getCreateNewAccountFeeInSystemContract: burned when a transfer creates an account (1 TRX) */
  createAccountFeeSun: bigint
  /** getCreateAccountFee: burned instead of staked bandwidth for that transfer (0.1 TRX) */
  createAccountBandwidthFeeSun: bigint
  /** TotalEnergyLimit / TotalEnergyWeight of getaccountresource: energy per staked TRX and day */
  totalEnergyLimit: bigint
  totalEnergyWeight: bigint
}

/** the protobuf size java-tron bills in bandwidth: the signed transaction without `ret`, plus 64 */
export function tronBandwidthBytes(rawDataBytes: number, signatures = 1): bigint {
  // Transaction { raw_data = 1 (LEN), signature = 2 (65 bytes each) }; BandwidthProcessor adds
  // MAX_RESULT_SIZE_IN_TX (64) per contract
  const rawField = 1 + varintLength(rawDataBytes) + rawDataBytes
  return BigInt(rawField + signatures * (1 + 1 + 65) + 64)
}

/** java-tron's getaccountresource (absent fields are 0; an account that does not exist answers {}) */
export interface TronAccountResources {
  freeNetLimit?: number
  freeNetUsed?: number
  NetLimit?: number
  NetUsed?: number
  EnergyLimit?: number
  EnergyUsed?: number
  TotalEnergyLimit?: number
  TotalEnergyWeight?: number
}

/** bandwidth an account can use now: its free and staked bandwidth left; undefined: a new account's day */
export function tronAvailableBandwidth(
  resources: TronAccountResources | undefined,
  freePerDay: bigint,
): bigint {
  if (resources === undefined) return freePerDay
  const { freeNetLimit = 0, freeNetUsed = 0, NetLimit = 0, NetUsed = 0 } = resources
  return BigInt(freeNetLimit - freeNetUsed + NetLimit - NetUsed)
}

/** sun burned for bandwidth when the payer's free and staked bandwidth do not cover the bytes */
export function tronBandwidthBurn(
  bytes: bigint,
  availableBandwidth: bigint,
  prices: Pick<TronPrices, 'bandwidthSunPerByte'>,
): bigint {
  return availableBandwidth >= bytes ? 0n : bytes * prices.bandwidthSunPerByte
}

/** TRX (sun) to delegate so that the receiver gets at least `energy` energy: whole TRX, at least 1 */
export function tronStakeForEnergy(energy: bigint, prices: TronPrices): bigint {
  if (prices.totalEnergyLimit <= 0n) throw new RangeError('TotalEnergyLimit must be positive')
  const trx = (energy * prices.totalEnergyWeight + prices.totalEnergyLimit - 1n) / prices.totalEnergyLimit
  return (trx < 1n ? 1n : trx) * 1_000_000n
}

function varintLength(value: number): number {
  let length = 1
  let rest = value
  while (rest >= 0x80) {
    rest = Math.floor(rest / 0x80)
    length += 1
  }
  return length
}

/** the treasury's bandwidth left for the plan's transactions: staked first, then the daily free */
export interface TronBandwidthBudget {
  staked: bigint
  free: bigint
}

/**
 * What the treasury burns for one of its transactions, and its budget after it. Creating an account
 * burns getCreateNewAccountFeeInSystemContract and takes staked bandwidth, or burns
 * getCreateAccountFee instead: free bandwidth cannot pay for it (docs/treasury.md).
 */
export function tronTreasuryCharge(
  budget: TronBandwidthBudget,
  bytes: bigint,
  createsAccount: boolean,
  prices: TronPrices,
): { burnSun: bigint; budget: TronBandwidthBudget } {
  if (budget.staked >= bytes) {
    return {
      burnSun: createsAccount ? prices.createAccountFeeSun : 0n,
      budget: { ...budget, staked: budget.staked - bytes },
    }
  }
  if (createsAccount)
    return { burnSun: prices.createAccountFeeSun + prices.createAccountBandwidthFeeSun, budget }
  if (budget.free >= bytes) return { burnSun: 0n, budget: { ...budget, free: budget.free - bytes } }
  return { burnSun: bytes * prices.bandwidthSunPerByte, budget }
}

export type TronTokenStep = 'fund' | 'delegate' | 'sweep' | 'undelegate'

/** what a TRC20 address needs before its transfer can run, in the order broadcast sends it */
export interface TronTokenSweepNeeds {
  steps: TronTokenStep[]
  /**
   * TRX the treasury sends to the address: what it may burn with headroom and does not hold, or 1 sun
   * to activate it
   */
  topUpSun: bigint
  /** TRX the address burns at the estimate: its energy (burn mode) and bandwidth beyond its free bandwidth */
  addressBurnSun: bigint
  /** TRX of the top-up the address does not burn at the estimate and keeps (headroom, an activation's sun) */
  leftAtAddressSun: bigint
  /** of it, the headroom: a later plan returns it to the treasury when it is not burned */
  headroomSun: bigint
  /** TRX the address already held that its transfer may burn, headroom included: a later TRX sweep leaves it */
  reservedFromAddressSun: bigint
  /** staked TRX whose energy (with headroom) is delegated (delegate mode), else null */
  stakeSun: bigint | null
}

export function tronTokenSweepNeeds(input: {
  activated: boolean
  trxBalanceSun: bigint
  /** the node's estimate */
  energy: bigint
  /** what the plan gives the transfer: the estimate with headroom */
  energyProvided: bigint
  paymentBandwidthBurnSun: bigint
  mode: 'burn' | 'delegate'
  prices: TronPrices
}): TronTokenSweepNeeds {
  const burn = (energy: bigint) =>
    input.paymentBandwidthBurnSun + (input.mode === 'burn' ? energy * input.prices.energySunPerUnit : 0n)
  const beyondBalance = (sun: bigint) => (sun > input.trxBalanceSun ? sun - input.trxBalanceSun : 0n)
  const addressBurnSun = burn(input.energy)
  const provided = burn(input.energyProvided)
  const missing = beyondBalance(provided)
  // an account that does not exist cannot sign or receive energy: a transfer of 1 sun creates it
  const topUpSun = missing > 0n ? missing : input.activated ? 0n : 1n
  const stakeSun = input.mode === 'delegate' ? tronStakeForEnergy(input.energyProvided, input.prices) : null
  const leftAtAddressSun = topUpSun - beyondBalance(addressBurnSun)
  const headroom = provided - addressBurnSun
  return {
    steps: [
      ...(topUpSun > 0n ? (['fund'] as const) : []),
      ...(stakeSun !== null ? (['delegate'] as const) : []),
      'sweep',
      ...(stakeSun !== null ? (['undelegate'] as const) : []),
    ],
    topUpSun,
    addressBurnSun,
    leftAtAddressSun,
    headroomSun: leftAtAddressSun < headroom ? leftAtAddressSun : headroom,
    reservedFromAddressSun: provided - missing,
    stakeSun,
  }
}
