// The chain watcher's call budget at a shop's scale (decisions 19; docs/benchmarks.md, "Chain
// watcher call budget"): a shop of 1,000 payments a day runs for a simulated week on each watch mode,
// on mainnet block and slot rates, and every HTTP call the real chain indexer makes through the real
// client library (tronweb, @solana/web3.js) is counted at a proxy in front of the chain simulator,
// with the provider credits it costs. Payment events are decided by the real payment-command
// (command handler over SQLite, observation consumer, deadline keeper, expiry scheduler, relay), and
// the indexer gets them as its consumer does. The clock is simulated: nothing sleeps.
//
// Per mode it prints: each day of the week (calls, credits, per block, per payment), the idle cost
// after the week, and the idle and per-payment cost at 10, 1,000 and 10,000 recent payments
// (preloaded by a burst of the same shop), each against its goal, and whether every payment ended
// as its customer's behaviour says it must; then 10,000 customers' deposit addresses with 1,000
// deposits a day (chain-watch-calls/deposit-part.mjs): the idle cost of watching them, the cost per
// deposit, and whether every deposit was reported. Not a test: `scripts/bench/chain-watch calls --help`.

import { createRequire } from 'node:module'
import { cpus, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import { defaultAssetRegistry, findNetwork } from '../../packages/domain/dist/index.js'
import { createRootLogger } from '../../packages/platform/dist/index.js'
import { MODES } from './chain-watch-calls/chains.mjs'
import { countedBetween } from './chain-watch-calls/counting-proxy.mjs'
import { reportDeposits, runDeposits } from './chain-watch-calls/deposit-part.mjs'
import { DAY, EXPIRY_MS, planBurst, planShop } from './chain-watch-calls/shop.mjs'
import { openWorld } from './chain-watch-calls/world.mjs'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** a Monday, midnight UTC: the shop's week starts here */
const WEEK_START_MS = Date.parse('2030-01-07T00:00:00.000Z')

const out = (line = '') => process.stdout.write(`${line}\n`)
const log = (line) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`)

const { values: options } = parseArgs({
  options: {
    chains: { type: 'string', default: process.env.BENCH_CALLS_CHAINS ?? 'TRON,SOLANA,SOLANA_BLOCKS' },
    parts: { type: 'string', default: process.env.BENCH_CALLS_PARTS ?? 'week,scale,mainnet,deposits' },
    days: { type: 'string' },
    'per-day': { type: 'string', default: '1000' },
    scales: { type: 'string' },
    'scale-payments': { type: 'string' },
    fillers: { type: 'string', default: '3' },
    'mainnet-fillers': { type: 'string', default: '300' },
    'mainnet-hours': { type: 'string' },
    'blocks-hours': { type: 'string' },
    'deposit-addresses': { type: 'string' },
    'deposits-per-day': { type: 'string', default: '1000' },
    'deposit-hours': { type: 'string' },
    seed: { type: 'string', default: '2030' },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
  allowPositionals: true,
})
if (options.help) {
  out(`usage: scripts/bench/chain-watch calls [--quick] [--chains TRON,SOLANA,SOLANA_BLOCKS] [--parts week,scale,mainnet,deposits]
  [--days 7] [--per-day 1000] [--scales 10,1000,10000] [--scale-payments 60] [--fillers 3]
  [--mainnet-fillers 300] [--mainnet-hours 1] [--blocks-hours 3] [--seed 2030]
  [--deposit-addresses 10000] [--deposits-per-day 1000] [--deposit-hours 24]

  SOLANA is the address watcher (the default SOLANA_WATCH_MODE), SOLANA_BLOCKS block scanning.
  week     the shop for --days days (block scanning: --blocks-hours of its busiest hours, see docs)
  scale    idle and per-payment cost at --scales recent payments (a preloaded burst of the shop)
  mainnet  TRON for --mainnet-hours with --mainnet-fillers transactions per block (mainnet size);
           Solana blocks: the same slots at that size, a tenth of the time
  deposits --deposit-addresses customers' deposit addresses, then a day (--deposit-hours) of
           --deposits-per-day deposits to them (block scanning: its --blocks-hours busiest hours);
  --quick  a short run for development: 6 hours, scales 10 and 300, short samples; deposits: 300
           addresses, 3 hours

  BENCH_LOG_FILE=path (LOG_LEVEL, default info) keeps the indexer's and payment-command's logs there`)
  process.exit(0)
}

const quick = options.quick
const settings = {
  days: Number(options.days ?? (quick ? 0.25 : 7)),
  perDay: Number(options['per-day']),
  scales: (options.scales ?? (quick ? '10,300' : '10,1000,10000')).split(',').map(Number),
  scalePayments: Number(options['scale-payments'] ?? (quick ? 10 : 60)),
  fillers: Number(options.fillers),
  mainnetFillers: Number(options['mainnet-fillers']),
  mainnetHours: Number(options['mainnet-hours'] ?? (quick ? 0.05 : 1)),
  blocksHours: Number(options['blocks-hours'] ?? (quick ? 0.25 : 3)),
  /** late funds come up to this long after the deadline in the week */
  lateWithinMs: (quick ? 1 : 6) * HOUR,
  /** the idle cost after the week is measured over this long */
  idleAfterWeekMs: (quick ? 1 : 2) * HOUR,
  seed: Number(options.seed),
  depositAddresses: Number(options['deposit-addresses'] ?? (quick ? 300 : 10_000)),
  depositsPerDay: Number(options['deposits-per-day']),
  depositHours: Number(options['deposit-hours'] ?? (quick ? 3 : 24)),
}
const parts = new Set(options.parts.split(',').map((part) => part.trim()))
const pino = createRequire(new URL('../../packages/platform/package.json', import.meta.url))('pino')
// BENCH_LOG_FILE: the indexer's and payment-command's logs (LOG_LEVEL, default info) go there, to
// follow a payment that went otherwise; silent without it
const logger = createRootLogger({
  service: 'bench-chain-watch-calls',
  ...(process.env.BENCH_LOG_FILE
    ? { destination: pino.destination({ dest: process.env.BENCH_LOG_FILE, sync: false }) }
    : { level: 'silent' }),
})
const registry = defaultAssetRegistry

/** the accounts one payment's address means (decisions 19): the owner and its token accounts of every registry mint */
function accountsPerPayment(mode) {
  if (mode.chain === 'TRON') return 1
  return (
    1 + registry.assets.filter((asset) => asset.network === mode.network && asset.contract !== null).length
  )
}

/** decisions 19's budgets */
const goals = {
  idle(mode, followed) {
    if (mode.chain === 'TRON') return { perBlock: 2.1 }
    return { perMinute: 1 + followed / 1000 }
  },
  perPayment: (mode) => (mode.chain === 'TRON' ? { calls: 2 } : { calls: 10, credits: 100 }),
}

const fmt = (value, digits = 0) =>
  Number.isFinite(value)
    ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—'
/** ✓ met, ✗ missed, — a figure this mode is not held to (see reportMode) */
const mark = (ok) => (ok === undefined ? '—' : ok ? '✓' : '✗')
const methods = (byName) =>
  Object.entries(byName)
    .sort((a, b) => b[1] - a[1])
    .map(([name, count]) => `${name} ${fmt(count)}`)
    .join(', ')

/** the last moment anything of these plans happens (a create, a transfer, a cancel, a deadline) */
function lastActionOf(plans) {
  return Math.max(
    0,
    ...plans.map(
      (plan) =>
        plan.createdAtMs +
        Math.max(EXPIRY_MS, plan.cancelAfterMs ?? 0, ...plan.transfers.map((transfer) => transfer.afterMs)),
    ),
  )
}

/** Solana block scanning: every slot read, whatever is open */
const scansBlocks = (mode) => mode.chain === 'SOLANA' && !mode.byAddress

/**
 * how long after its last action a payment is surely settled: final confirmations, the expiry's chain
 * time, and by address the batched check that finds late funds of a payment already final (within
 * SOLANA_CHECK_INTERVAL_MS: docs/chains.md)
 */
const settleMarginMs = (mode) =>
  mode.chain === 'TRON' ? 5 * MINUTE : mode.byAddress ? mode.checkIntervalMs + 3 * MINUTE : 3 * MINUTE

/**
 * Measurements start and end on whole hours from the world's start: a watcher's periodic work (every
 * 10 or 30 minutes, every minute...) then falls as often in a measured window as in the idle window
 * it is compared with, and taking the idle cost off leaves what the payments cost.
 */
const WARM_UP_MS = HOUR
const onTheHour = (world, atMs) => world.originMs + Math.ceil((atMs - world.originMs) / HOUR) * HOUR

/**
 * The idle cost of a world: `windowMs` of chain with nothing new, against the idle goal; the
 * followed accounts are the recent payments' accounts (decisions 19)
 */
async function measureIdle(world, windowMs) {
  const { mode } = world
  world.takePeakSubscriptions()
  const before = world.snapshot()
  await world.runUntil(world.nowMs + windowMs)
  const after = world.snapshot()
  const counted = countedBetween(before, after)
  const recent = world.recentPayments()
  const followed = recent * accountsPerPayment(mode)
  const minutes = windowMs / MINUTE
  const blocks = after.blocks - before.blocks
  const goal = goals.idle(mode, followed)
  const perBlock = counted.calls / blocks
  const perMinute = counted.calls / minutes
  return {
    recent,
    followed,
    minutes,
    blocks,
    counted,
    perBlock,
    perMinute,
    creditsPerDay: (counted.credits / minutes) * 1440,
    callsPerDay: perMinute * 1440,
    goal,
    ok: mode.chain === 'TRON' ? perBlock <= goal.perBlock : perMinute <= goal.perMinute,
    subscriptions: after.subscriptions,
    peakSubscriptions: world.takePeakSubscriptions(),
  }
}

/** runs the world until every payment of `plans` is settled, to the next whole hour */
async function settlePlans(world, plans) {
  await world.runUntil(
    onTheHour(world, Math.max(world.nowMs, lastActionOf(plans) + settleMarginMs(world.mode))),
  )
}

function outcomesOf(world) {
  const byBehavior = world.outcomes()
  const rows = Object.entries(byBehavior)
  const payments = rows.reduce((sum, [, row]) => sum + row.payments, 0)
  const asExpected = rows.reduce((sum, [, row]) => sum + row.asExpected, 0)
  return { byBehavior, payments, asExpected, ok: payments === asExpected }
}

/** the shop's week (block scanning: its busiest hours), day by day, then its idle cost */
async function runWeek(mode) {
  const blockScanning = scansBlocks(mode)
  const hours = blockScanning ? settings.blocksHours : settings.days * 24
  // block scanning reads every slot whatever happens: its busiest hours stand for the day
  const startMs = blockScanning ? WEEK_START_MS + 12 * HOUR : WEEK_START_MS
  const endMs = startMs + hours * HOUR
  const plans = planShop({
    network: mode.network,
    startMs: WEEK_START_MS,
    days: Math.ceil((endMs - WEEK_START_MS) / DAY),
    perDay: settings.perDay,
    seed: settings.seed,
    lateWithinMs: settings.lateWithinMs,
  }).filter((plan) => plan.createdAtMs >= startMs && plan.createdAtMs < endMs)
  const world = await openWorld(mode, {
    startMs: startMs - WARM_UP_MS,
    registry,
    logger,
    fillers: mode.chain === 'TRON' || blockScanning ? settings.fillers : 0,
    seed: settings.seed,
  })
  try {
    await world.runUntil(startMs)
    world.schedule(plans)
    const days = []
    const stepMs = blockScanning ? HOUR : DAY
    for (let at = startMs; at < endMs; at += stepMs) {
      world.takePeakSubscriptions()
      const before = world.snapshot()
      const started = process.cpuUsage()
      await world.runUntil(Math.min(endMs, at + stepMs))
      const after = world.snapshot()
      const cpu = process.cpuUsage(started)
      days.push({
        label: blockScanning ? `hour ${(at - startMs) / HOUR + 1}` : `day ${(at - startMs) / DAY + 1}`,
        hours: (Math.min(endMs, at + stepMs) - at) / HOUR,
        counted: countedBetween(before, after),
        blocks: after.blocks - before.blocks,
        payments: after.payments - before.payments,
        recent: world.recentPayments(),
        subscriptions: after.subscriptions,
        peakSubscriptions: world.takePeakSubscriptions(),
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      })
      const last = days.at(-1)
      log(
        `${mode.key} ${last.label}: ${fmt(last.payments)} payments, ${fmt(last.counted.calls)} calls, ${fmt(last.counted.credits)} credits, ${fmt(last.subscriptions)} subscriptions, ${fmt(last.cpuSeconds, 1)} s CPU`,
      )
    }
    // late funds and the last deadlines, then the idle cost of what the week leaves
    const tailBefore = world.snapshot()
    await settlePlans(world, plans)
    const tail = countedBetween(tailBefore, world.snapshot())
    tail.hours = (world.nowMs - endMs) / HOUR
    const idle = await measureIdle(world, blockScanning ? 10 * MINUTE : settings.idleAfterWeekMs)
    log(
      `${mode.key} after the week: ${fmt(idle.perMinute, 2)} calls a minute at idle, ${fmt(idle.recent)} recent payments`,
    )
    return { plans: plans.length, days, tail, idle, outcomes: outcomesOf(world), failures: world.failures() }
  } finally {
    await world.close()
  }
}

/**
 * `recent` payments preloaded by a burst of the shop (created 1,000 an hour; block scanning, whose
 * cost is per slot, in 10 minutes), settled; then the idle cost, then `scalePayments` new payments
 * at the shop's average rate and the calls beyond idle each costs
 */
async function runScale(mode, recent) {
  const blockScanning = scansBlocks(mode)
  const startMs = WEEK_START_MS
  const spanMs = blockScanning ? 10 * MINUTE : Math.max(10 * MINUTE, (recent / 1000) * HOUR)
  const burst = planBurst({
    network: mode.network,
    startMs,
    count: recent,
    spanMs,
    seed: settings.seed + recent,
  })
  const world = await openWorld(mode, {
    startMs: startMs - WARM_UP_MS,
    registry,
    logger,
    fillers: mode.chain === 'TRON' || blockScanning ? settings.fillers : 0,
    seed: settings.seed + recent,
  })
  try {
    const started = process.cpuUsage()
    world.schedule(burst)
    await settlePlans(world, burst)
    const idle = await measureIdle(
      world,
      blockScanning ? 10 * MINUTE : mode.chain === 'TRON' ? 20 * MINUTE : HOUR,
    )
    if (!blockScanning && mode.chain !== 'TRON') await world.runUntil(onTheHour(world, world.nowMs))
    // new payments at the shop's average rate, until each is settled
    const count = settings.scalePayments
    const gapMs = DAY / settings.perDay
    const fresh = planBurst({
      network: mode.network,
      startMs: world.nowMs + gapMs / 2,
      count,
      spanMs: count * gapMs,
      seed: settings.seed + recent + 1,
    })
    world.schedule(fresh)
    world.takePeakSubscriptions()
    const before = world.snapshot()
    await settlePlans(world, fresh)
    const after = world.snapshot()
    const counted = countedBetween(before, after)
    const minutes = (after.atMs - before.atMs) / MINUTE
    const blocks = after.blocks - before.blocks
    const idleCalls = mode.chain === 'TRON' ? idle.perBlock * blocks : idle.perMinute * minutes
    const idleCredits =
      mode.chain === 'TRON' ? idle.perBlock * blocks : (idle.counted.credits / idle.minutes) * minutes
    const perPayment = {
      calls: (counted.calls - idleCalls) / count,
      credits: (counted.credits - idleCredits) / count,
      counted,
      minutes,
    }
    const goal = goals.perPayment(mode)
    perPayment.ok =
      perPayment.calls <= goal.calls && (goal.credits === undefined || perPayment.credits <= goal.credits)
    const cpu = process.cpuUsage(started)
    log(
      `${mode.key} at ${fmt(recent)} recent: idle ${fmt(mode.chain === 'TRON' ? idle.perBlock : idle.perMinute, 2)} ${mode.chain === 'TRON' ? 'per block' : 'a minute'}, ${fmt(perPayment.calls, 2)} calls per payment, ${fmt((cpu.user + cpu.system) / 1e6, 1)} s CPU`,
    )
    return {
      recent,
      idle,
      perPayment,
      peakSubscriptions: world.takePeakSubscriptions(),
      outcomes: outcomesOf(world),
      failures: world.failures(),
    }
  } finally {
    await world.close()
  }
}

/** the shop's busiest hours on mainnet-sized blocks: calls per block do not depend on their size */
async function runMainnetSize(mode) {
  const hours = mode.chain === 'TRON' ? settings.mainnetHours : settings.mainnetHours / 10
  const startMs = WEEK_START_MS + 12 * HOUR
  const plans = planShop({
    network: mode.network,
    startMs: WEEK_START_MS,
    days: 1,
    perDay: settings.perDay,
    seed: settings.seed,
  }).filter((plan) => plan.createdAtMs >= startMs && plan.createdAtMs < startMs + hours * HOUR)
  const world = await openWorld(mode, {
    startMs: startMs - MINUTE,
    registry,
    logger,
    fillers: settings.mainnetFillers,
    seed: settings.seed,
  })
  try {
    await world.runUntil(startMs)
    world.schedule(plans)
    const before = world.snapshot()
    const started = process.cpuUsage()
    await world.runUntil(startMs + hours * HOUR)
    const after = world.snapshot()
    const cpu = process.cpuUsage(started)
    const counted = countedBetween(before, after)
    const blocks = after.blocks - before.blocks
    log(
      `${mode.key} at ${settings.mainnetFillers} transactions a block: ${fmt(counted.calls / blocks, 3)} calls per block`,
    )
    return {
      hours,
      blocks,
      counted,
      perBlock: counted.calls / blocks,
      payments: plans.length,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    }
  } finally {
    await world.close()
  }
}

//////// Report

function reportMode(mode, result) {
  const rows = []
  const goal = (figure, measured, target, ok) => rows.push({ figure, measured, target, ok })
  // Block scanning reads every slot whatever is open: it is for a node of the operator's own, where
  // calls cost nothing (docs/chains.md, "Call budget"), so the provider's idle budget of decisions 19
  // is printed for it but is not its goal; its per-payment budget is.
  const blockScanning = scansBlocks(mode)
  const idleGoal = (figure, measured, target, ok) =>
    goal(
      figure,
      measured,
      blockScanning ? `${target} (not this mode's: a node of your own)` : target,
      blockScanning ? undefined : ok,
    )
  const required = findNetwork(registry, mode.network).requiredConfirmations
  const tron = mode.chain === 'TRON'
  out()
  out(`## ${mode.title}`)
  out()
  out(
    `A ${tron ? 'block' : 'slot'} every ${mode.slotMs / 1000} s${tron ? '' : ' (5 % of slots skipped: no block)'}, the indexer every ${mode.pollMs / 1000} s, ${required} confirmations; ${fmt(settings.perDay)} payments a day.`,
  )
  const { week, scales, mainnet } = result
  if (week) {
    out()
    out(
      blockScanning
        ? `### ${fmt(settings.blocksHours, 2)} busiest hours of the shop (${fmt(week.plans)} payments; ${settings.fillers} filler transactions a slot)`
        : `### The week: ${fmt(week.plans)} payments over ${fmt(settings.days, 2)} days${tron ? ` (${settings.fillers} filler transactions a block)` : ''}`,
    )
    out()
    out(
      `| ${blockScanning ? 'hour' : 'day'} | payments | calls | ${tron ? 'calls per block' : 'credits'} | calls per payment, all in | ${tron ? 'beyond idle, per payment' : 'credits per payment, all in'} | recent payments | subscriptions at the end (peak) | CPU s |`,
    )
    out('|---|---|---|---|---|---|---|---|---|')
    const idle = week.idle
    for (const day of week.days) {
      const idleCalls = tron ? idle.perBlock * day.blocks : idle.perMinute * day.hours * 60
      out(
        `| ${day.label} | ${fmt(day.payments)} | ${fmt(day.counted.calls)} | ${tron ? fmt(day.counted.calls / day.blocks, 3) : fmt(day.counted.credits)} | ${fmt(day.counted.calls / day.payments, 1)} | ${tron ? fmt((day.counted.calls - idleCalls) / day.payments, 2) : fmt(day.counted.credits / day.payments, 0)} | ${fmt(day.recent)} | ${fmt(day.subscriptions)} (${fmt(day.peakSubscriptions)}) | ${fmt(day.cpuSeconds, 0)} |`,
      )
    }
    out()
    const lastDay = week.days.at(-1)
    out(`Calls by method, ${lastDay.label}: ${methods(lastDay.counted.byName)}.`)
    out(
      `After the ${blockScanning ? 'sample' : 'week'}, until the last late funds and deadlines (${fmt(week.tail.hours, 1)} h): ${fmt(week.tail.calls)} calls. Then idle for ${fmt(idle.minutes)} minutes: ${methods(idle.counted.byName)}; ${fmt(idle.subscriptions)} subscriptions open.`,
    )
    out()
    if (tron) {
      goal(
        `idle after the week (${fmt(idle.recent)} recent payments): calls per block`,
        fmt(idle.perBlock, 3),
        '≤ 2.1',
        idle.perBlock <= 2.1,
      )
      for (const day of week.days) {
        const perPayment = (day.counted.calls - idle.perBlock * day.blocks) / day.payments
        goal(`${day.label}: calls per payment beyond idle`, fmt(perPayment, 2), '≤ 2', perPayment <= 2)
        const limit = 2.1 * day.blocks + 2 * day.payments
        goal(`${day.label}: calls`, fmt(day.counted.calls), `≤ ${fmt(limit)}`, day.counted.calls <= limit)
      }
    } else {
      idleGoal(
        `idle after the ${blockScanning ? 'sample' : 'week'} (${fmt(idle.recent)} recent payments, ${fmt(idle.followed)} accounts): calls a minute`,
        fmt(idle.perMinute, 2),
        `≤ ${fmt(idle.goal.perMinute, 2)}`,
        idle.ok,
      )
      const perDayOf = (day) => ({
        calls: (day.counted.calls / day.hours) * 24,
        limit:
          1440 * (1 + (day.recent * accountsPerPayment(mode)) / 1000) + 10 * (day.payments / day.hours) * 24,
      })
      for (const day of blockScanning ? [week.days.at(-1)] : week.days) {
        const { calls, limit } = perDayOf(day)
        idleGoal(
          `${blockScanning ? 'a day at the rate of the busiest hour' : day.label}: calls`,
          fmt(calls),
          `≤ ${fmt(limit)}`,
          calls <= limit,
        )
      }
      if (!blockScanning) {
        const perPayment = (lastDay.counted.calls - idle.perMinute * lastDay.hours * 60) / lastDay.payments
        const credits =
          (lastDay.counted.credits - (idle.counted.credits / idle.minutes) * lastDay.hours * 60) /
          lastDay.payments
        goal(
          `${lastDay.label}: calls per payment beyond the idle cost after the week`,
          fmt(perPayment, 2),
          '≤ 10',
          perPayment <= 10,
        )
        goal(
          `${lastDay.label}: credits per payment beyond the idle cost after the week`,
          fmt(credits, 1),
          '≤ 100',
          credits <= 100,
        )
      }
    }
    goal(
      'payments ending as their customers paid',
      `${fmt(week.outcomes.asExpected)} / ${fmt(week.outcomes.payments)}`,
      'all',
      week.outcomes.ok,
    )
  }
  if (scales?.length) {
    out()
    out(`### At ${scales.map((scale) => fmt(scale.recent)).join(', ')} recent payments`)
    out()
    out(
      `| recent payments | ${tron ? 'addresses' : 'accounts'} | idle: ${tron ? 'calls per block' : 'calls a minute'} | goal | idle: calls a day | idle: credits a day | calls per payment | goal | credits per payment | goal | subscriptions, peak |`,
    )
    out('|---|---|---|---|---|---|---|---|---|---|---|')
    for (const scale of scales) {
      const { idle, perPayment } = scale
      const perPaymentGoal = goals.perPayment(mode)
      out(
        `| ${fmt(scale.recent)} | ${fmt(idle.followed)} | ${tron ? fmt(idle.perBlock, 3) : fmt(idle.perMinute, 2)} | ≤ ${tron ? '2.1' : fmt(idle.goal.perMinute, 2)} | ${fmt(idle.callsPerDay)} | ${tron ? '—' : fmt(idle.creditsPerDay)} | ${fmt(perPayment.calls, 2)} | ≤ ${perPaymentGoal.calls} | ${tron ? '—' : fmt(perPayment.credits, 1)} | ${tron ? '' : '≤ 100'} | ${fmt(scale.peakSubscriptions)} |`,
      )
      idleGoal(
        `at ${fmt(scale.recent)} recent payments: idle`,
        tron ? fmt(idle.perBlock, 3) : fmt(idle.perMinute, 2),
        tron ? '≤ 2.1 a block' : `≤ ${fmt(idle.goal.perMinute, 2)} a minute`,
        idle.ok,
      )
      goal(
        `at ${fmt(scale.recent)} recent payments: per payment`,
        tron
          ? `${fmt(perPayment.calls, 2)} calls`
          : `${fmt(perPayment.calls, 2)} calls, ${fmt(perPayment.credits, 1)} credits`,
        tron ? '≤ 2 calls' : '≤ 10 calls, ≤ 100 credits',
        perPayment.ok,
      )
      goal(
        `at ${fmt(scale.recent)} recent payments: payments ending as their customers paid`,
        `${fmt(scale.outcomes.asExpected)} / ${fmt(scale.outcomes.payments)}`,
        'all',
        scale.outcomes.ok,
      )
    }
    out()
    for (const scale of scales) {
      out(
        `Calls by method at ${fmt(scale.recent)}: idle (${fmt(scale.idle.minutes)} min) ${methods(scale.idle.counted.byName)}; ${settings.scalePayments} payments (${fmt(scale.perPayment.minutes)} min) ${methods(scale.perPayment.counted.byName)}.`,
      )
    }
    out()
  }
  if (mainnet) {
    out(
      `### ${mainnet.blocks} blocks of ${settings.mainnetFillers} filler transactions (mainnet size) with the shop's payments: ${fmt(mainnet.perBlock, 3)} calls per block (${fmt(mainnet.hours, 2)} h, ${mainnet.payments} payments, ${fmt(mainnet.cpuSeconds, 0)} s CPU; ${methods(mainnet.counted.byName)})`,
    )
    out()
    if (tron)
      goal(
        `at ${settings.mainnetFillers} transactions a block: calls per block`,
        fmt(mainnet.perBlock, 3),
        '≤ 2.1',
        mainnet.perBlock <= 2.1,
      )
  }
  const outcomes = [week?.outcomes, ...(scales ?? []).map((scale) => scale.outcomes)].filter(Boolean)
  const problems = {}
  for (const outcome of outcomes) {
    for (const [behavior, row] of Object.entries(outcome.byBehavior)) {
      problems[behavior] ??= { payments: 0, asExpected: 0, problems: {} }
      const entry = problems[behavior]
      entry.payments += row.payments
      entry.asExpected += row.asExpected
      for (const [problem, count] of Object.entries(row.problems))
        entry.problems[problem] = (entry.problems[problem] ?? 0) + count
      entry.examples = [...(entry.examples ?? []), ...(row.examples ?? [])].slice(0, 3)
    }
  }
  out('### Payments, by how their customers paid (all runs of this mode)')
  out()
  out('| behaviour | payments | as expected | what went otherwise |')
  out('|---|---|---|---|')
  for (const [behavior, row] of Object.entries(problems)) {
    const other = Object.entries(row.problems)
      .map(([problem, count]) => `${problem}: ${fmt(count)}`)
      .join('; ')
    out(`| ${behavior} | ${fmt(row.payments)} | ${fmt(row.asExpected)} | ${other} |`)
  }
  for (const [behavior, row] of Object.entries(problems))
    for (const example of row.examples ?? []) out(`\n${behavior}: ${example}`)
  const failures = [...(week?.failures ?? []), ...(scales ?? []).flatMap((scale) => scale.failures)]
  if (failures.length > 0)
    out(
      `\nFailures (indexer iterations that threw, shop actions refused): ${failures.length}; first: ${failures.slice(0, 3).join(' | ')}`,
    )
  out()
  out('| figure | measured | goal | |')
  out('|---|---|---|---|')
  for (const row of rows) out(`| ${row.figure} | ${row.measured} | ${row.target} | ${mark(row.ok)} |`)
  const met = rows.every((row) => row.ok !== false)
  out()
  out(met ? 'goals met' : 'GOALS NOT MET')
  return met
}

const chains = options.chains.split(',').map((chain) => chain.trim().toUpperCase())
for (const chain of chains)
  if (!(chain in MODES)) throw new Error(`no watch mode ${chain}: TRON, SOLANA or SOLANA_BLOCKS`)
out(
  `# chain watcher call budget at a shop's scale — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
)
out()
out(`\`node scripts/bench/chain-watch-calls.mjs ${process.argv.slice(2).join(' ')}\``)
let allMet = true
for (const chain of chains) {
  const mode = MODES[chain]
  const result = {}
  const started = performance.now()
  const cpuStarted = process.cpuUsage()
  if (parts.has('week')) result.week = await runWeek(mode)
  if (parts.has('scale')) {
    result.scales = []
    for (const recent of settings.scales) result.scales.push(await runScale(mode, recent))
  }
  if (parts.has('mainnet') && (mode.chain === 'TRON' || !mode.byAddress))
    result.mainnet = await runMainnetSize(mode)
  if (['week', 'scale', 'mainnet'].some((part) => parts.has(part)))
    allMet = reportMode(mode, result) && allMet
  else {
    out()
    out(`## ${mode.title}`)
  }
  if (parts.has('deposits')) {
    const blockScanning = scansBlocks(mode)
    const deposits = await runDeposits(mode, {
      settings: {
        addresses: settings.depositAddresses,
        perDay: settings.depositsPerDay,
        hours: blockScanning ? settings.blocksHours : settings.depositHours,
        blockHoursFrom: 12,
        fillers: settings.fillers,
        seed: settings.seed,
      },
      startMs: WEEK_START_MS,
      registry,
      logger,
      log,
    })
    allMet =
      reportDeposits(mode, deposits, { out, fmt, methods, mark, perDay: settings.depositsPerDay }) && allMet
  }
  const cpu = process.cpuUsage(cpuStarted)
  out(
    `\n(${mode.key}: ${fmt((performance.now() - started) / 60_000, 1)} minutes, ${fmt((cpu.user + cpu.system) / 60e6, 1)} minutes of CPU)`,
  )
}
process.exitCode = allMet ? 0 : 1
