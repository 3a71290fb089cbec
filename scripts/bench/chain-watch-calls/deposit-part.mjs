// The deposits part of the call-budget benchmark (`--parts deposits`; docs/benchmarks.md,
// "Customers' deposit addresses"): the merchant's customers' deposit addresses, created through
// payment-command's deposit address handler, each DepositAddressCreated handed to the indexer's
// deposit consumer; then the idle cost of watching them, then a day of deposits (Solana block
// scanning: its busiest hours, as the week does), and whether every deposit was reported as a
// deposit observation, final, and recorded confirmed by payment-command.

import { countedBetween } from './counting-proxy.mjs'
import { DEPOSIT_KINDS, planDeposits } from './deposits.mjs'
import { DAY } from './shop.mjs'
import { openWorld } from './world.mjs'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

/**
 * `settings`: addresses, perDay, hours (the measured window of deposits), blockHoursFrom (where
 * block scanning's window starts: the busiest hours), fillers, seed; `startMs` a midnight.
 */
export async function runDeposits(mode, { settings, startMs, registry, logger, log }) {
  const blockScanning = mode.chain === 'SOLANA' && !mode.byAddress
  const tron = mode.chain === 'TRON'
  // the window the deposits are measured in: the whole day, or block scanning's busiest hours
  const windowStartMs = blockScanning ? startMs + settings.blockHoursFrom * HOUR : startMs
  const windowMs = settings.hours * HOUR
  // the idle window before it: TRON 20 minutes (per block), by address an hour (its batched checks
  // run every 10 minutes), block scanning 10 minutes (per slot)
  const idleMs = blockScanning ? 10 * MINUTE : tron ? 20 * MINUTE : HOUR
  // the addresses are created at the shop's peak create rate (1,000 a minute) in the first part of
  // the warm-up, then a whole check interval passes before the idle window
  const createMs = Math.max(MINUTE, Math.ceil(settings.addresses / 1000) * MINUTE)
  const warmUpMs = blockScanning ? createMs + 5 * MINUTE : Math.ceil((createMs + 15 * MINUTE) / HOUR) * HOUR
  const originMs = windowStartMs - idleMs - warmUpMs
  const plans = planDeposits({
    network: mode.network,
    startMs,
    days: Math.ceil((windowStartMs + windowMs - startMs) / DAY),
    perDay: settings.perDay,
    addresses: settings.addresses,
    seed: settings.seed,
  }).filter((plan) => plan.atMs >= windowStartMs && plan.atMs < windowStartMs + windowMs)
  const world = await openWorld(mode, {
    startMs: originMs,
    registry,
    logger,
    fillers: tron || blockScanning ? settings.fillers : 0,
    seed: settings.seed,
  })
  try {
    if (!world.watchesDeposits)
      return { skipped: 'this watcher does not watch deposit addresses (no deposit consumer)' }
    const cpuStarted = process.cpuUsage()
    world.scheduleDepositAddresses(settings.addresses, originMs + 1_000, createMs)
    const beforeCreates = world.snapshot()
    await world.runUntil(originMs + createMs + MINUTE)
    const afterCreates = world.snapshot()
    const creates = countedBetween(beforeCreates, afterCreates)
    creates.blocks = afterCreates.blocks - beforeCreates.blocks
    creates.minutes = (afterCreates.atMs - beforeCreates.atMs) / MINUTE
    log(`${mode.key}: ${world.depositAddressCount()} deposit addresses created, ${creates.calls} calls`)
    await world.runUntil(windowStartMs - idleMs)

    world.takePeakSubscriptions()
    const idleBefore = world.snapshot()
    await world.runUntil(windowStartMs)
    const idleAfter = world.snapshot()
    const idleCounted = countedBetween(idleBefore, idleAfter)
    const idleMinutes = idleMs / MINUTE
    const idleBlocks = idleAfter.blocks - idleBefore.blocks
    const idle = {
      minutes: idleMinutes,
      blocks: idleBlocks,
      counted: idleCounted,
      perBlock: idleCounted.calls / idleBlocks,
      perMinute: idleCounted.calls / idleMinutes,
      callsPerDay: (idleCounted.calls / idleMinutes) * 1440,
      creditsPerDay: (idleCounted.credits / idleMinutes) * 1440,
      subscriptions: idleAfter.subscriptions,
      peakSubscriptions: world.takePeakSubscriptions(),
    }
    log(
      `${mode.key} idle with ${world.depositAddressCount()} deposit addresses: ${idle.perMinute.toFixed(2)} calls a minute`,
    )

    world.scheduleDeposits(plans)
    const before = world.snapshot()
    const hourly = []
    for (let at = windowStartMs; at < windowStartMs + windowMs; at += HOUR) {
      const hourBefore = world.snapshot()
      await world.runUntil(Math.min(windowStartMs + windowMs, at + HOUR))
      const hourAfter = world.snapshot()
      hourly.push({
        counted: countedBetween(hourBefore, hourAfter),
        blocks: hourAfter.blocks - hourBefore.blocks,
      })
      if (hourly.length % 6 === 0 || at + HOUR >= windowStartMs + windowMs)
        log(`${mode.key} deposits, hour ${hourly.length}: ${world.depositsSent()} sent`)
    }
    const after = world.snapshot()
    const counted = countedBetween(before, after)
    const blocks = after.blocks - before.blocks
    const minutes = windowMs / MINUTE
    // what the window's deposits cost beyond watching the addresses at idle
    const idleCalls = tron ? idle.perBlock * blocks : idle.perMinute * minutes
    const idleCredits = tron ? idle.perBlock * blocks : (idleCounted.credits / idleMinutes) * minutes
    const sent = plans.length
    const realDeposits = plans.filter((plan) => !plan.counterfeit).length
    const perDeposit = {
      calls: (counted.calls - idleCalls) / sent,
      credits: (counted.credits - idleCredits) / sent,
    }
    // the last deposit's confirmations (and by address the batched check that finds what a
    // notification missed), then check what was reported
    const settleMs = tron ? 5 * MINUTE : mode.byAddress ? mode.checkIntervalMs + 3 * MINUTE : 3 * MINUTE
    const tailBefore = world.snapshot()
    await world.runUntil(world.nowMs + settleMs)
    const tail = countedBetween(tailBefore, world.snapshot())
    const outcomes = await world.depositOutcomes()
    const cpu = process.cpuUsage(cpuStarted)
    // what creating an address cost beyond watching at idle (TRON: its backfill; by address: its first check)
    const perAddress = {
      calls:
        (creates.calls - (tron ? idle.perBlock * creates.blocks : idle.perMinute * creates.minutes)) /
        settings.addresses,
      credits:
        (creates.credits -
          (tron ? idle.perBlock * creates.blocks : (idleCounted.credits / idleMinutes) * creates.minutes)) /
        settings.addresses,
    }
    return {
      perAddress,
      addresses: world.depositAddressCount(),
      creates,
      createMs,
      idle,
      window: { hours: settings.hours, counted, blocks, minutes, fromMs: windowStartMs },
      hourly,
      sent,
      realDeposits,
      perDeposit,
      // a day: the idle cost over the day and the day's deposits at the measured cost each
      day: {
        calls: blockScanning
          ? idle.callsPerDay + perDeposit.calls * settings.perDay
          : (counted.calls / minutes) * 1440,
        credits: blockScanning
          ? idle.creditsPerDay + perDeposit.credits * settings.perDay
          : (counted.credits / minutes) * 1440,
      },
      tail,
      settleMs,
      peakSubscriptions: world.takePeakSubscriptions(),
      outcomes,
      failures: world.failures(),
      deadLetters: world.deadLetters(),
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    }
  } finally {
    await world.close()
  }
}

/** the part's section of the report; answers whether its goals were met */
export function reportDeposits(mode, result, { out, fmt, methods, mark, perDay }) {
  const tron = mode.chain === 'TRON'
  const blockScanning = mode.chain === 'SOLANA' && !mode.byAddress
  if (result.skipped) {
    out()
    out(`### Customers' deposit addresses: not measured: ${result.skipped}`)
    return true
  }
  const rows = []
  const goal = (figure, measured, target, ok) => rows.push({ figure, measured, target, ok })
  const { idle, window, perDeposit, day } = result
  const accounts = tron ? result.addresses : result.addresses * 3
  out()
  out(
    `### Customers' deposit addresses: ${fmt(result.addresses)} addresses, ${fmt(perDay)} deposits a day${blockScanning ? ` (the ${fmt(window.hours, 2)} busiest hours: ${fmt(result.sent)} deposits)` : ''}`,
  )
  out()
  out(
    `Created over ${fmt(result.createMs / MINUTE)} ${result.createMs === MINUTE ? 'minute' : 'minutes'} through payment-command's deposit address handler, each DepositAddressCreated handed to the indexer's deposit consumer: ${fmt(result.creates.calls)} calls meanwhile${Object.keys(result.creates.byName).length > 0 ? ` (${methods(result.creates.byName)})` : ''}. Deposits by kind: ${DEPOSIT_KINDS[mode.network].map((kind) => `${kind.kind} ${Math.round(kind.share * 100)} %`).join(', ')}.`,
  )
  out()
  out(`| figure | calls | ${tron ? 'TronGrid requests' : 'Helius credits'} |`)
  out('|---|---|---|')
  out(
    `| idle, ${fmt(result.addresses)} addresses (${fmt(idle.minutes)} min): a minute | ${fmt(idle.perMinute, 2)}${tron ? ` (${fmt(idle.perBlock, 3)} a block)` : ''} | ${fmt(idle.counted.credits / idle.minutes, 2)} |`,
  )
  out(`| idle: a day | ${fmt(idle.callsPerDay)} | ${fmt(idle.creditsPerDay)} |`)
  out(
    `| ${blockScanning ? `the ${fmt(window.hours, 2)} busiest hours` : `the day (${fmt(window.hours, 2)} h)`}: ${fmt(result.sent)} deposits sent (${fmt(result.realDeposits)} of registry assets) | ${fmt(window.counted.calls)} | ${fmt(window.counted.credits)} |`,
  )
  out(
    `| per address created, beyond idle (${fmt(result.createMs / MINUTE)} min for ${fmt(result.addresses)}) | ${fmt(result.perAddress.calls, 3)} | ${fmt(result.perAddress.credits, 3)} |`,
  )
  out(`| per deposit, beyond idle | ${fmt(perDeposit.calls, 2)} | ${fmt(perDeposit.credits, 1)} |`)
  out(
    `| a day with ${fmt(perDay)} deposits${blockScanning ? ' (idle a day + deposits × per deposit)' : ''} | ${fmt(day.calls)} | ${fmt(day.credits)} |`,
  )
  out(`| a month (30 days) | ${fmt(day.calls * 30)} | ${fmt(day.credits * 30)} |`)
  out()
  out(
    `By method: idle ${methods(idle.counted.byName)}; ${blockScanning ? 'the hours' : 'the day'} ${methods(window.counted.byName)}. Until the last deposits are final (${fmt(result.settleMs / MINUTE)} min): ${fmt(result.tail.calls)} calls. Subscriptions: ${fmt(idle.subscriptions)} at idle, ${fmt(result.peakSubscriptions)} at the most while depositing. ${fmt(result.cpuSeconds, 0)} s of CPU.`,
  )
  const { delays } = result.outcomes
  if (delays.seen.length > 0) {
    const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]
    const describe = (values) =>
      `median ${fmt(quantile(values, 0.5))} s, 95 % within ${fmt(quantile(values, 0.95))} s, at most ${fmt(Math.max(...values))} s`
    out(
      `From the sending of a deposit (simulated time): to its first report ${describe(delays.seen)}; to its final report ${describe(delays.final)}. Slowest: ${delays.slowest.map((slow) => `${fmt(slow.seconds)} s, ${slow.told}`).join('; ')}.`,
    )
  }
  out()
  out('| deposit kind | sent | as expected | what went otherwise |')
  out('|---|---|---|---|')
  let sent = 0
  let asExpected = 0
  for (const [kind, row] of Object.entries(result.outcomes.byKind)) {
    sent += row.sent
    asExpected += row.asExpected
    const other = Object.entries(row.problems)
      .map(([problem, count]) => `${problem}: ${fmt(count)}`)
      .join('; ')
    out(`| ${kind} | ${fmt(row.sent)} | ${fmt(row.asExpected)} | ${other} |`)
  }
  for (const [kind, row] of Object.entries(result.outcomes.byKind))
    for (const example of row.examples) out(`\n${kind}: ${example}`)
  if (result.outcomes.unexpected.length > 0)
    out(
      `\nDeposit observations of transactions nobody sent to a deposit address: ${result.outcomes.unexpected.length}; first: ${result.outcomes.unexpected.slice(0, 3).join(', ')}`,
    )
  if (result.failures.length > 0)
    out(
      `\nFailures (indexer iterations that threw, actions refused): ${result.failures.length}; first: ${result.failures.slice(0, 3).join(' | ')}`,
    )
  if (result.deadLetters.length > 0)
    out(`\nMessages refused as poison: ${result.deadLetters.length}; first: ${result.deadLetters[0].reason}`)
  out()
  // decisions 19's budgets, a deposit held to a payment's
  if (tron) {
    goal('deposits: idle calls per block', fmt(idle.perBlock, 3), '≤ 2.1', idle.perBlock <= 2.1)
    goal('deposits: calls per deposit beyond idle', fmt(perDeposit.calls, 2), '≤ 2', perDeposit.calls <= 2)
  } else {
    const idleGoal = 1 + accounts / 1000
    goal(
      `deposits: idle calls a minute (${fmt(accounts)} accounts)`,
      fmt(idle.perMinute, 2),
      blockScanning ? `≤ ${fmt(idleGoal, 2)} (not this mode's: a node of your own)` : `≤ ${fmt(idleGoal, 2)}`,
      blockScanning ? undefined : idle.perMinute <= idleGoal,
    )
    goal(
      'deposits: per deposit beyond idle',
      `${fmt(perDeposit.calls, 2)} calls, ${fmt(perDeposit.credits, 1)} credits`,
      '≤ 10 calls, ≤ 100 credits',
      perDeposit.calls <= 10 && perDeposit.credits <= 100,
    )
  }
  // a deposit is reported within the margin the part waits for the last ones: TRON's and block
  // scanning's within minutes, by address within one batched check of the deposit addresses
  const latest = delays.seen.length > 0 ? Math.max(...delays.seen) : 0
  goal(
    'deposits: the latest first report after the sending',
    `${fmt(latest)} s`,
    `≤ ${fmt(result.settleMs / 1000)} s`,
    latest <= result.settleMs / 1000,
  )
  goal(
    'deposits reported (final, recorded confirmed) and counterfeits not',
    `${fmt(asExpected)} / ${fmt(sent)}`,
    'all',
    asExpected === sent && result.outcomes.unexpected.length === 0 && result.failures.length === 0,
  )
  out('| figure | measured | goal | |')
  out('|---|---|---|---|')
  for (const row of rows) out(`| ${row.figure} | ${row.measured} | ${row.target} | ${mark(row.ok)} |`)
  const met = rows.every((row) => row.ok !== false)
  out()
  out(met ? 'deposit goals met' : 'DEPOSIT GOALS NOT MET')
  return met
}
