// One simulated network with its watcher and payment-command, on a simulated clock: slots at the
// mode's rate, the indexer's iterations at its poll interval, the expiry scheduler every second, and
// the shop's creates, transfers and cancels at their times, all in time order; nothing sleeps.
// After each step the world settles: the relay and the bus hand on every event and observation,
// the simulator's websocket delivers what the step caused, and a notification makes the indexer
// iterate at once, as its work loop's wake does.

import { setImmediate as turn } from 'node:timers/promises'
import { CLOSING_EVENTS, DEFAULT_LATE_FUNDS_WINDOW_MS } from '../../../packages/chain-indexer/dist/index.js'
import { startSimulatorNode, testNetworks } from '../../../packages/chain-sim/dist/testing/index.js'
import {
  parseChainObservationMessage,
  parsePaymentEventMessage,
} from '../../../packages/contracts/dist/index.js'
import { Topics } from '../../../packages/ports/dist/index.js'
import {
  createSqliteChainIndexerStore,
  openSqliteDatabase,
} from '../../../packages/store-sqlite/dist/index.js'
import { createCustomers, createFillers, SKIPPED_SLOT_SHARE, watcherFor } from './chains.mjs'
import { startCountingProxy } from './counting-proxy.mjs'
import { createDepositors, depositUserOf } from './deposits.mjs'
import { createPaymentSide } from './payment-side.mjs'
import { BEHAVIORS, seededRandom } from './shop.mjs'
import { createSteppedBus } from './stepped-bus.mjs'

const EXPIRY_TICK_MS = 1_000
/** the indexer's iteration comes this long after a TRON block: one new block per poll */
const POLL_PHASE_MS = 700

/** a min-heap of actions by time, in scheduling order for equal times */
function createAgenda() {
  const heap = []
  let sequence = 0
  const before = (a, b) => a.atMs < b.atMs || (a.atMs === b.atMs && a.sequence < b.sequence)
  return {
    get size() {
      return heap.length
    },
    nextAt: () => heap[0]?.atMs ?? Number.POSITIVE_INFINITY,
    push(atMs, run) {
      heap.push({ atMs, run, sequence: sequence++ })
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1
        if (!before(heap[at], heap[parent])) break
        ;[heap[at], heap[parent]] = [heap[parent], heap[at]]
        at = parent
      }
    },
    pop() {
      const top = heap[0]
      const last = heap.pop()
      if (heap.length > 0) {
        heap[0] = last
        for (let at = 0; ; ) {
          const left = 2 * at + 1
          const right = left + 1
          let least = at
          if (left < heap.length && before(heap[left], heap[least])) least = left
          if (right < heap.length && before(heap[right], heap[least])) least = right
          if (least === at) break
          ;[heap[at], heap[least]] = [heap[least], heap[at]]
          at = least
        }
      }
      return top
    },
  }
}

/**
 * `fillers`: filler transactions per block (docs/benchmarks.md says why TRON's week runs smaller
 * blocks than mainnet's); `seed` makes the chain's randomness repeatable.
 */
export async function openWorld(mode, { startMs, registry, logger, fillers = 0, seed = 1 }) {
  let nowMs = startMs
  const clock = { now: () => new Date(nowMs) }
  const random = seededRandom(seed)
  const node = await startSimulatorNode({
    networks: testNetworks(mode.network),
    clock: clock.now,
    db: openSqliteDatabase(':memory:'),
  })
  const sim = node.simulator
  const pubsub = mode.byAddress ? node.solanaPubsub : undefined
  const proxy = await startCountingProxy(node.url)
  const bus = createSteppedBus()
  const payments = await createPaymentSide({ bus, registry, clock, logger })
  const indexerDb = openSqliteDatabase(':memory:')
  const indexer = await watcherFor(mode, {
    rpcUrl: `${proxy.url}/chains/${mode.network}`,
    wsUrl: node.solanaWsUrl(mode.network),
    store: createSqliteChainIndexerStore(indexerDb),
    bus,
    registry,
    clock,
    logger,
  })
  // the indexer's payment event consumer, as its start() subscribes it
  await bus.subscribe({
    topic: Topics.paymentEvents,
    groupId: indexer.paymentEventsGroupId,
    handle: (message) => indexer.handlePaymentEvent(message),
  })
  // the indexer's deposit address consumer, as its start() subscribes it (where the watcher has one)
  if (indexer.handleDepositEvent !== undefined) {
    await bus.subscribe({
      topic: Topics.depositEvents,
      groupId: indexer.depositEventsGroupId,
      handle: (message) => indexer.handleDepositEvent(message),
    })
  }
  /** deposit observations by transaction: what the indexer reported of each */
  const depositObservations = new Map()
  await bus.subscribe({
    topic: Topics.chainObservations,
    groupId: 'benchmark',
    handle: async (message) => {
      const observation = parseChainObservationMessage(message.value)
      if (observation.kind !== 'deposit') return
      let seen = depositObservations.get(observation.txHash)
      if (seen === undefined) {
        seen = {
          reports: 0,
          final: false,
          statuses: new Set(),
          transfers: new Map(),
          firstAtMs: nowMs,
          finalAtMs: undefined,
        }
        depositObservations.set(observation.txHash, seen)
      }
      seen.reports += 1
      seen.statuses.add(observation.status)
      seen.transfers.set(observation.transferIndex, observation)
      if (observation.final) {
        seen.final = true
        seen.finalAtMs ??= nowMs
      }
    },
  })
  const records = new Map()
  await bus.subscribe({
    topic: Topics.paymentEvents,
    groupId: 'benchmark',
    handle: async (message) => {
      const event = parsePaymentEventMessage(message.value)
      const record = records.get(event.paymentId)
      if (record === undefined) return
      record.events.push(event.type)
      if (CLOSING_EVENTS.has(event.type)) record.terminal ??= event.type
      if (event.type === 'ForeignFundsReceived') record.foreign.push(event.data.currency)
      if (event.type === 'LateFundsReceived') record.late += 1
    },
  })

  const fill = createFillers(mode, sim, random)
  const agenda = createAgenda()
  const failures = []
  const stats = { blocks: 0, slots: 0, iterations: 0, peakSubscriptions: 0 }
  let nextSlotMs = nowMs + mode.slotMs
  let nextPollMs = nowMs + (mode.chain === 'TRON' ? POLL_PHASE_MS : mode.pollMs)
  let nextExpiryMs = nowMs + EXPIRY_TICK_MS

  // the chain's first block, the customers' funds, the indexer's first iteration
  await sim.mineBlocks(mode.network, 1)
  const customers = await createCustomers(mode, sim, registry, random)
  const depositor = createDepositors(mode, sim, customers, random)
  /** deposit addresses by customer index, and the deposits sent */
  const depositAddresses = new Map()
  const deposits = []
  await iterate()

  /** one iteration of the indexer's loop at its poll interval */
  async function iterate() {
    await wake()
    await settle()
  }

  async function quiet() {
    const key = () => {
      const { received, sent } = pubsub.traffic()
      return received + sent
    }
    let last = key()
    for (let stable = 0, rounds = 0; stable < 3 && rounds < 200; rounds++) {
      await turn()
      const now = key()
      stable = now === last ? stable + 1 : 0
      last = now
    }
  }

  /** the watcher's notification wakes its loop: it iterates now, not at its next poll */
  async function wake() {
    stats.iterations += 1
    try {
      await indexer.iterate()
    } catch (error) {
      failures.push(`${new Date(nowMs).toISOString()} ${error?.message ?? error}`)
    }
  }

  /**
   * until nothing moves: the relay and the bus hand on what was appended and published, and the
   * websocket carries what the step caused (subscriptions, notifications) both ways
   */
  async function settle() {
    for (let round = 0; round < 100; round++) {
      let moved = (await payments.relay()) + (await bus.drain())
      if (pubsub !== undefined) {
        const before = pubsub.traffic()
        await pubsub.flush()
        await quiet()
        const after = pubsub.traffic()
        stats.peakSubscriptions = Math.max(stats.peakSubscriptions, pubsub.subscriptionCount())
        if (after.notifications > before.notifications) {
          await wake()
          moved += 1
        }
        if (after.received + after.sent !== before.received + before.sent) moved += 1
      }
      if (moved === 0) return
    }
  }

  async function slot() {
    stats.slots += 1
    // a Solana leader that misses its slot produces no block: one slot in 20, evenly, so that a
    // window's blocks are as many as its idle reference's and its per-block calls cancel out
    if (mode.chain === 'SOLANA' && stats.slots % Math.round(1 / SKIPPED_SLOT_SHARE) === 0) return
    if (fillers > 0) await fill(fillers)
    await sim.mineBlocks(mode.network, 1)
    stats.blocks += 1
    // what the new block notifies, as a node's pubsub sends it right away
    if (pubsub !== undefined && pubsub.subscriptionCount() > 0) await settle()
  }

  /** simulated time passes up to `untilMs`: actions, slots, iterations and expiry ticks in time order */
  async function runUntil(untilMs) {
    for (;;) {
      const next = Math.min(agenda.nextAt(), nextSlotMs, nextPollMs, nextExpiryMs)
      if (next > untilMs) break
      nowMs = next
      if (agenda.nextAt() === next) {
        try {
          await agenda.pop().run()
        } catch (error) {
          // a customer's transfer the node refused, a create or a cancel that failed: reported
          failures.push(`${new Date(nowMs).toISOString()} shop: ${error?.message ?? error}`)
        }
        await settle()
      } else if (nextSlotMs === next) {
        await slot()
        nextSlotMs += mode.slotMs
      } else if (nextPollMs === next) {
        await iterate()
        nextPollMs += mode.pollMs
      } else {
        await payments.expire()
        // an expiry appends events only now and then: the rest of the settling is for those
        if ((await payments.relay()) > 0) await settle()
        nextExpiryMs += EXPIRY_TICK_MS
      }
    }
    nowMs = untilMs
  }

  /** the shop's payments: each created, paid, or canceled at its time (shop.mjs) */
  function schedule(plans) {
    for (const plan of plans) {
      agenda.push(plan.createdAtMs, async () => {
        const body = { amount: plan.amount, currency: plan.currency, network: mode.network }
        const payment = await payments.create(body)
        const { paymentId } = payment.created
        records.set(paymentId, {
          plan,
          paymentId,
          expiresAtMs: Date.parse(payment.created.expiresAt),
          events: [],
          terminal: undefined,
          foreign: [],
          late: 0,
          paid: [],
        })
        for (const transfer of plan.transfers) {
          agenda.push(plan.createdAtMs + transfer.afterMs, async () => {
            const txHash = await customers.pay(payment, transfer)
            records.get(paymentId)?.paid.push({ txHash, atMs: nowMs, currency: transfer.currency })
          })
        }
        if (plan.cancelAfterMs !== undefined) {
          agenda.push(plan.createdAtMs + plan.cancelAfterMs, () => payments.cancel(paymentId))
        }
      })
    }
  }

  /**
   * `count` customers' deposit addresses created evenly over `spanMs` from `fromMs` (each
   * DepositAddressCreated reaches the indexer's deposit consumer in the same instant)
   */
  function scheduleDepositAddresses(count, fromMs, spanMs) {
    for (let index = 0; index < count; index++) {
      agenda.push(fromMs + Math.floor((index * spanMs) / count), async () => {
        const created = await payments.depositAddress(depositUserOf(index), mode.network)
        depositAddresses.set(index, created.address)
      })
    }
  }

  /** the customers' deposits (deposits.mjs), each sent at its time to the customer's address */
  function scheduleDeposits(plans) {
    for (const plan of plans) {
      agenda.push(plan.atMs, async () => {
        const address = depositAddresses.get(plan.user)
        if (address === undefined) throw new Error(`no deposit address for customer ${plan.user} yet`)
        const sent = await depositor(plan, address)
        deposits.push({ ...sent, plan, address, atMs: nowMs })
      })
    }
  }

  /**
   * every deposit sent against what the indexer reported (a deposit observation, final) and what
   * payment-command recorded (confirmed); a counterfeit must be neither; by kind
   */
  async function depositOutcomes() {
    const byKind = {}
    /** seconds from the sending to the first report, and to the final one, of each deposit reported */
    const delays = { seen: [], final: [], slowest: [] }
    const sentHashes = new Set(deposits.map((sent) => sent.txHash))
    for (const sent of deposits) {
      byKind[sent.plan.kind] ??= { sent: 0, asExpected: 0, problems: {}, examples: [] }
      const row = byKind[sent.plan.kind]
      row.sent += 1
      const seen = depositObservations.get(sent.txHash)
      const problems = []
      if (sent.deposit) {
        const reported = [...(seen?.transfers.values() ?? [])].filter((o) => o.address === sent.address)
        if (reported.length === 0) problems.push('not reported')
        else if (reported.length > 1) problems.push(`reported ${reported.length} times`)
        else if (!seen.final) problems.push(`not final (${[...seen.statuses].join(', ')})`)
        else {
          delays.seen.push((seen.firstAtMs - sent.atMs) / 1000)
          delays.slowest.push({
            seconds: (seen.firstAtMs - sent.atMs) / 1000,
            told: `${sent.plan.kind} ${sent.plan.amount}: ${sent.txHash} to ${sent.address} (customer ${sent.plan.user}) sent at ${new Date(sent.atMs).toISOString()}`,
          })
          delays.final.push((seen.finalAtMs - sent.atMs) / 1000)
          const status = await payments.depositStatus(mode.network, sent.txHash, reported[0].transferIndex)
          if (status !== 'confirmed') problems.push(`payment-command: ${status}`)
        }
      } else if (seen !== undefined) problems.push('reported as a deposit')
      if (problems.length === 0) row.asExpected += 1
      for (const problem of problems) row.problems[problem] = (row.problems[problem] ?? 0) + 1
      if (problems.length > 0 && row.examples.length < 3)
        row.examples.push(`${sent.txHash} to ${sent.address} at ${new Date(sent.atMs).toISOString()}`)
    }
    const unexpected = [...depositObservations.keys()].filter((txHash) => !sentHashes.has(txHash))
    delays.slowest = delays.slowest.sort((a, b) => b.seconds - a.seconds).slice(0, 3)
    return { byKind, unexpected, delays }
  }

  return {
    mode,
    clock,
    /** whether the mode's watcher reads deposit address events (a deposit consumer) */
    watchesDeposits: indexer.handleDepositEvent !== undefined,
    scheduleDepositAddresses,
    scheduleDeposits,
    depositOutcomes,
    /** deposit addresses created so far */
    depositAddressCount: () => depositAddresses.size,
    /** deposits sent so far (counterfeits included) */
    depositsSent: () => deposits.length,
    /** when the world started: its watcher's first iteration */
    originMs: startMs,
    get nowMs() {
      return nowMs
    },
    runUntil,
    schedule,
    /** what was counted so far: calls and credits at the proxy, blocks, the websocket's subscriptions */
    snapshot() {
      const traffic = pubsub?.traffic()
      const counted = proxy.counter.snapshot()
      return {
        atMs: nowMs,
        ...counted,
        // Helius charges a credit for each websocket connection opened (chain-facts-2.md section 1)
        credits: counted.credits + (traffic?.connections ?? 0),
        blocks: stats.blocks,
        slots: stats.slots,
        iterations: stats.iterations,
        subscriptions: pubsub?.subscriptionCount() ?? 0,
        subscribed: traffic?.subscribed ?? 0,
        notifications: traffic?.notifications ?? 0,
        connections: traffic?.connections ?? 0,
        payments: records.size,
      }
    },
    /** the most subscriptions open at once since the last call */
    takePeakSubscriptions() {
      const peak = stats.peakSubscriptions
      stats.peakSubscriptions = pubsub?.subscriptionCount() ?? 0
      return peak
    },
    /** payments created whose address is still watched (open, or within the late funds window) */
    recentPayments: () =>
      [...records.values()].filter((record) => record.expiresAtMs + DEFAULT_LATE_FUNDS_WINDOW_MS > nowMs)
        .length,
    /** every payment against what its customer did: the terminal event, late and foreign funds */
    outcomes() {
      const byBehavior = {}
      for (const record of records.values()) {
        const expected = BEHAVIORS[record.plan.behavior]
        byBehavior[record.plan.behavior] ??= { payments: 0, asExpected: 0, problems: {}, examples: [] }
        const row = byBehavior[record.plan.behavior]
        row.payments += 1
        const problems = []
        if (record.terminal !== expected.terminal) problems.push(`${record.terminal ?? 'no terminal event'}`)
        const wrong = record.plan.transfers.filter((transfer) => transfer.currency !== record.plan.currency)
        const foreignWanted = expected.foreign === true ? wrong.length : 0
        if (record.foreign.length < foreignWanted) problems.push('foreign funds not recorded')
        if (record.foreign.length > foreignWanted)
          problems.push(`foreign funds recorded: ${record.foreign.join(' ')}`)
        if (expected.late === true && record.late === 0) problems.push('late funds not recorded')
        if (problems.length === 0) row.asExpected += 1
        for (const problem of problems) row.problems[problem] = (row.problems[problem] ?? 0) + 1
        // a few payments that went otherwise, told whole: what to look for in a rerun
        if (problems.length > 0 && row.examples.length < 3) {
          const at = (ms) => `${Math.round((ms - record.expiresAtMs) / 1000)} s`
          const paid = record.paid.map((p) => `${p.currency} ${p.txHash} at ${at(p.atMs)}`).join(', ')
          row.examples.push(
            `${record.paymentId} (${record.plan.currency}; paid, from the deadline: ${paid || 'nothing'}; events: ${record.events.join(' ')})`,
          )
        }
      }
      return byBehavior
    },
    failures: () => failures,
    deadLetters: () => bus.deadLetters(),
    async close() {
      await indexer.stop()
      await payments.close()
      indexerDb.close()
      await proxy.close()
      await node.close()
    },
  }
}
