// The shop the call-budget benchmark runs (docs/benchmarks.md, "Chain watcher call budget"): when
// its payments are created over a day, in which asset and amount, and how each customer pays,
// the way real wallets and exchanges pay. Seeded: the same options give the same payments.

const MINUTE = 60_000
const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR
/** the merchant API's default expiry (decisions 4): what the shop's creates leave to the default */
export const EXPIRY_MS = 30 * MINUTE

/**
 * payments per hour of the shop's day (local time = UTC here), relative: a night trough at 3-4 h,
 * a morning rise, an evening peak at 18 h (about eight times the trough)
 */
const DAILY_CURVE = [
  0.35, 0.25, 0.2, 0.2, 0.25, 0.35, 0.55, 0.8, 1.0, 1.15, 1.25, 1.3, 1.35, 1.3, 1.3, 1.35, 1.45, 1.55, 1.6,
  1.55, 1.4, 1.1, 0.8, 0.5,
]

/**
 * How customers pay, with their share of the payments. `expected` is what payment-command must
 * end up deciding (docs/api.md, "Lifecycle"): the terminal event, and the late or foreign funds.
 */
export const BEHAVIORS = {
  // one transfer of the exact amount, 30 s to 12 min after the create
  full: { share: 0.69, terminal: 'PaymentConfirmed' },
  // never paid: expires
  unpaid: { share: 0.11, terminal: 'PaymentExpired' },
  // the merchant cancels it (the customer gave up) before anything is paid
  canceled: { share: 0.01, terminal: 'PaymentCanceled' },
  // 40-90 %, then the rest a few minutes later, before the deadline
  toppedUp: { share: 0.05, terminal: 'PaymentConfirmed' },
  // 40-90 % and nothing more: underpaid, final at the deadline
  underpaid: { share: 0.01, terminal: 'PaymentUnderpaidFinalized' },
  // two or three transfers that add up to the amount (an exchange splitting a withdrawal)
  split: { share: 0.04, terminal: 'PaymentConfirmed' },
  // 105-120 %
  overpaid: { share: 0.02, terminal: 'PaymentOverpaid' },
  // another asset of the registry to the payment's address (its owner on Solana): foreign funds
  // (decisions 16), and the payment expires
  wrongAsset: { share: 0.03, terminal: 'PaymentExpired', foreign: true },
  // the exact amount after the deadline (up to 6 hours after in the week; late funds come within
  // the 7-day window at any time, but the watcher's cost for them does not depend on when): late funds
  late: { share: 0.04, terminal: 'PaymentExpired', late: true },
}

/** what each network's customers pay in, and how much */
const ASSET_MIX = {
  TRON: [
    { currency: 'USDT', share: 0.7, min: 5, max: 300, decimals: 2 },
    { currency: 'TRX', share: 0.3, min: 20, max: 3000, decimals: 1 },
  ],
  SOLANA: [
    { currency: 'USDC', share: 0.45, min: 5, max: 300, decimals: 2 },
    { currency: 'USDT', share: 0.25, min: 5, max: 300, decimals: 2 },
    // above the rent-exempt floor of a fresh address (decisions 12)
    { currency: 'SOL', share: 0.3, min: 0.05, max: 3, decimals: 3 },
  ],
}

/** mulberry32: a small seeded generator, so that a run can be repeated exactly */
export function seededRandom(seed) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    between: (low, high) => low + (high - low) * next(),
    pick(weighted) {
      let roll = next() * weighted.reduce((sum, item) => sum + item.share, 0)
      for (const item of weighted) {
        roll -= item.share
        if (roll < 0) return item
      }
      return weighted.at(-1)
    },
  }
}

/** `count` creation times within [startMs, startMs + DAY), following the daily curve */
export function arrivalsOfDay(random, startMs, count) {
  const total = DAILY_CURVE.reduce((sum, weight) => sum + weight, 0)
  const times = []
  for (let index = 0; index < count; index++) {
    let roll = random.next() * total
    let hour = 0
    while (roll >= DAILY_CURVE[hour] && hour < 23) roll -= DAILY_CURVE[hour++]
    times.push(startMs + hour * HOUR + Math.floor(random.next() * HOUR))
  }
  return times.sort((a, b) => a - b)
}

/** a decimal amount with at most `decimals` digits, as the merchant sends it */
function decimalAmount(value, decimals) {
  return value.toFixed(decimals).replace(/\.?0+$/, '')
}

/** a share of a decimal amount, rounded down to the asset's smallest unit (exact, bigint) */
function part(amount, assetDecimals, numerator, denominator) {
  return unitsToDecimal(
    (toUnits(amount, assetDecimals) * BigInt(numerator)) / BigInt(denominator),
    assetDecimals,
  )
}

function unitsToDecimal(units, decimals) {
  const text = units.toString().padStart(decimals + 1, '0')
  const whole = text.slice(0, text.length - decimals)
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}

const ASSET_DECIMALS = { USDT: 6, USDC: 6, TRX: 6, SOL: 9 }

/**
 * One payment of the shop: when it is created, what it asks, and the transfers its customer makes
 * (each `afterMs` its create). `lateWithinMs` bounds how long after the deadline late funds come.
 */
function planPayment(random, network, createdAtMs, lateWithinMs) {
  const asset = random.pick(ASSET_MIX[network])
  const amount = decimalAmount(random.between(asset.min, asset.max), asset.decimals)
  const behavior = random.pick(Object.entries(BEHAVIORS).map(([name, b]) => ({ name, share: b.share }))).name
  const decimals = ASSET_DECIMALS[asset.currency]
  const pay = (afterMs, value, currency = asset.currency) => ({
    afterMs: Math.round(afterMs),
    currency,
    amount: value,
  })
  const soon = () => random.between(0.5 * MINUTE, 12 * MINUTE)
  const transfers = []
  let cancelAfterMs
  switch (behavior) {
    case 'full':
      transfers.push(pay(soon(), amount))
      break
    case 'unpaid':
      break
    case 'canceled':
      cancelAfterMs = Math.round(random.between(2 * MINUTE, 20 * MINUTE))
      break
    case 'toppedUp':
    case 'underpaid': {
      const percent = Math.round(random.between(40, 90))
      const first = part(amount, decimals, percent, 100)
      const firstAt = random.between(MINUTE, 8 * MINUTE)
      transfers.push(pay(firstAt, first))
      if (behavior === 'toppedUp') {
        const rest = unitsToDecimal(toUnits(amount, decimals) - toUnits(first, decimals), decimals)
        transfers.push(pay(firstAt + random.between(3 * MINUTE, 14 * MINUTE), rest))
      }
      break
    }
    case 'split': {
      const parts = random.next() < 0.5 ? 2 : 3
      let left = toUnits(amount, decimals)
      let at = soon()
      for (let index = 0; index < parts; index++) {
        const units = index === parts - 1 ? left : left / BigInt(parts - index) + 1n
        left -= units
        transfers.push(pay(at, unitsToDecimal(units, decimals)))
        at += random.between(5_000, 3 * MINUTE)
      }
      break
    }
    case 'overpaid':
      transfers.push(pay(soon(), part(amount, decimals, Math.round(random.between(105, 120)), 100)))
      break
    case 'wrongAsset': {
      const others = ASSET_MIX[network].filter((other) => other.currency !== asset.currency)
      const other = random.pick(others)
      transfers.push(
        pay(soon(), decimalAmount(random.between(other.min, other.max), other.decimals), other.currency),
      )
      break
    }
    case 'late':
      transfers.push(pay(EXPIRY_MS + random.between(2 * MINUTE, lateWithinMs), amount))
      break
  }
  return { createdAtMs, currency: asset.currency, amount, behavior, transfers, cancelAfterMs }
}

function toUnits(amount, decimals) {
  const [whole, fraction = ''] = amount.split('.')
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

/**
 * The shop's payments for `days` days from `startMs` (a midnight), `perDay` a day along the daily
 * curve; late funds come up to `lateWithinMs` (six hours) after the deadline
 */
export function planShop({ network, startMs, days, perDay, seed, lateWithinMs = 6 * HOUR }) {
  const random = seededRandom(seed)
  const plans = []
  for (let day = 0; day < Math.ceil(days); day++) {
    const dayStart = startMs + day * DAY
    for (const at of arrivalsOfDay(random, dayStart, perDay)) {
      if (at >= startMs + days * DAY) continue
      plans.push(planPayment(random, network, at, lateWithinMs))
    }
  }
  return plans
}

/** `count` payments created evenly over `spanMs` from `startMs`; late funds within `lateWithinMs` */
export function planBurst({ network, startMs, count, spanMs, seed, lateWithinMs = 10 * MINUTE }) {
  const random = seededRandom(seed)
  return Array.from({ length: count }, (_, index) =>
    planPayment(random, network, startMs + Math.floor((index * spanMs) / Math.max(1, count)), lateWithinMs),
  )
}
