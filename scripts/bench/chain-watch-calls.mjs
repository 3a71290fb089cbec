// The chain watcher's RPC call budget (issue 12; docs/chains.md, "Call budget"), per chain, on
// simulated time: the real chain indexer reads the simulator's node-shaped routes through the real
// client library, and every HTTP request it makes is counted on the way (a counting proxy in front
// of the simulator). Blocks are mined on a simulated clock (TRON every 3 s, each carrying USDT
// transfers as every mainnet block does) and the indexer is polled at its configured interval on
// the same clock: nothing sleeps, an hour of chain runs in seconds. Prints calls per hour at idle,
// per block, and per payment, against the goals. Not a test.
//
// One section per chain (CHAINS below): SOLANA is the address watcher, SOLANA_BLOCKS block scanning.

import { createServer, request } from 'node:http'
import { cpus, totalmem } from 'node:os'
import { parseArgs } from 'node:util'
import { createChainIndexer, createSolanaAddressIndexer } from '../../packages/chain-indexer/dist/index.js'
import { simulatedAddress } from '../../packages/chain-sim/dist/index.js'
import { startSimulatorNode, testNetworks } from '../../packages/chain-sim/dist/testing/index.js'
import {
  createSolanaAddressReader,
  createSolanaChainClient,
  createSolanaConnection,
} from '../../packages/chain-solana/dist/index.js'
import { createTronChainClient } from '../../packages/chain-tron/dist/index.js'
import { paymentEventBusMessage } from '../../packages/contracts/dist/index.js'
import { defaultAssetRegistry, findNetwork, toUnits } from '../../packages/domain/dist/index.js'
import { createRootLogger } from '../../packages/platform/dist/index.js'
import { Topics } from '../../packages/ports/dist/index.js'
import {
  createSqliteBus,
  createSqliteChainIndexerStore,
  openSqliteDatabase,
} from '../../packages/store-sqlite/dist/index.js'

const logger = createRootLogger({ service: 'bench-chain-watch-calls', level: 'silent' })
const out = (line = '') => process.stdout.write(`${line}\n`)

const { values: options } = parseArgs({
  options: {
    chains: { type: 'string', default: process.env.BENCH_CALLS_CHAINS ?? 'TRON' },
    hours: { type: 'string', default: process.env.BENCH_CALLS_HOURS ?? '1' },
    payments: { type: 'string', default: process.env.BENCH_CALLS_PAYMENTS ?? '30' },
    'poll-ms': { type: 'string', default: process.env.BENCH_CALLS_POLL_MS },
    help: { type: 'boolean', default: false },
  },
  allowPositionals: true,
})
if (options.help) {
  out(`usage: scripts/bench/chain-watch calls [--chains TRON,SOLANA,SOLANA_BLOCKS] [--hours 1] [--payments 30] [--poll-ms <indexer poll>]
(or BENCH_CALLS_CHAINS, BENCH_CALLS_HOURS, BENCH_CALLS_PAYMENTS, BENCH_CALLS_POLL_MS)`)
  process.exit(0)
}

/** a proxy in front of the simulator that counts requests by path (JSON-RPC: by method) */
async function countingProxy(target) {
  const counts = new Map()
  const count = (name) => counts.set(name, (counts.get(name) ?? 0) + 1)
  const server = createServer(async (incoming, outgoing) => {
    const chunks = []
    for await (const chunk of incoming) chunks.push(chunk)
    const body = Buffer.concat(chunks)
    const path = incoming.url.replace(/^\/chains\/[^/]+\/?/, '').split('?')[0]
    if (path === '') {
      // a Solana JSON-RPC call (or a batch, where each call counts as the provider counts it)
      const calls = [JSON.parse(body.toString('utf8'))].flat()
      for (const call of calls) count(call.method)
    } else count(path)
    const forward = request(
      new URL(incoming.url, target),
      { method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(outgoing)
      },
    )
    forward.end(body)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  return {
    url: `http://127.0.0.1:${port}`,
    total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
    byPath: () => Object.fromEntries([...counts].sort((a, b) => b[1] - a[1])),
    reset: () => counts.clear(),
    close: () => new Promise((resolve) => server.close(resolve)),
  }
}

/** a PaymentCreated message as the relay publishes it */
/**
 * One simulated network behind the counting proxy, on `clock`, with the indexer's SQLite store and
 * bus in memory; `final` gathers the payments reported at their required confirmations
 */
async function benchChain(network, clock, required) {
  const node = await startSimulatorNode({ networks: testNetworks(network), clock: clock.now })
  const proxy = await countingProxy(node.url)
  const db = openSqliteDatabase(':memory:')
  const bus = createSqliteBus(db, { logger })
  const final = new Set()
  const subscription = await bus.subscribe({
    topic: Topics.chainObservations,
    groupId: 'bench',
    handle: async (message) => {
      const observation = JSON.parse(message.value)
      if (observation.kind === 'transfer' && observation.confirmations >= required)
        final.add(observation.paymentId)
    },
  })
  return {
    node,
    sim: node.simulator,
    proxy,
    bus,
    store: createSqliteChainIndexerStore(db),
    final,
    async close() {
      await subscription.stop()
      await bus.close()
      db.close()
      await proxy.close()
      await node.close()
    },
  }
}

function paymentCreatedMessage(network, currency, address, createdAt) {
  const asset = defaultAssetRegistry.assets.find((a) => a.network === network && a.currency === currency)
  const units = toUnits('10', asset.decimals).toString()
  const paymentId = crypto.randomUUID()
  const data = {
    paymentId,
    merchantId: 'bench',
    idempotencyKey: null,
    requestFingerprint: 'f'.repeat(64),
    network,
    currency,
    tokenStandard: asset.tokenStandard,
    decimals: asset.decimals,
    amount: '10',
    amountUnits: units,
    feeUnits: '0',
    netUnits: units,
    address,
    tokenAccount: null,
    derivationPath: "m/44'/195'/0'/0/1",
    addressMode: 'PER_PAYMENT',
    requiredConfirmations: findNetwork(defaultAssetRegistry, network).requiredConfirmations,
    description: null,
    metadata: {},
    callbackUrl: null,
    successRedirectUrl: null,
    cancelRedirectUrl: null,
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + 30 * 60_000).toISOString(),
  }
  const message = paymentEventBusMessage({
    eventId: crypto.randomUUID(),
    paymentId,
    streamId: `payment-${paymentId}`,
    revision: 0,
    schemaVersion: 1,
    recordedAt: createdAt,
    type: 'PaymentCreated',
    data,
  })
  return { paymentId, consumed: { topic: Topics.paymentEvents, offset: '0', ...message } }
}

/**
 * TRON mainnet-shaped: a block every 3 s, each with USDT transfers to addresses nobody watches (so
 * that every block's receipts must be read), the indexer polled at its interval on the same clock.
 * Idle: `hours` of chain with open payments that nobody pays. Then `payments` payments, created one
 * every 10 blocks and paid in the next block, run until every one is final; their calls beyond the
 * idle rate, divided by their number, are the calls per payment.
 */
async function measureTron() {
  const network = 'TRON'
  const blockMs = 3_000
  const pollMs = Number(options['poll-ms'] ?? 3_000)
  const phaseMs = 700
  const transfersPerBlock = 20
  const hours = Number(options.hours)
  const paymentCount = Number(options.payments)
  const required = findNetwork(defaultAssetRegistry, network).requiredConfirmations
  let nowMs = Date.parse('2030-01-01T00:00:00.000Z')
  const clock = { now: () => new Date(nowMs) }
  const { sim, proxy, bus, store, final, close } = await benchChain(network, clock, required)
  const client = createTronChainClient({
    network,
    registry: defaultAssetRegistry,
    fullNodeUrl: `${proxy.url}/chains/${network}`,
  })
  const indexer = createChainIndexer({
    network,
    client,
    store,
    bus,
    registry: defaultAssetRegistry,
    clock,
    logger,
    pollIntervalMs: pollMs,
  })

  let blocks = 0
  let nextBlockMs = nowMs + blockMs
  let nextPollMs = nowMs + phaseMs
  /** runs simulated time up to `untilMs`: blocks and polls in time order */
  async function runUntil(untilMs, beforeBlock = async () => {}) {
    while (Math.min(nextBlockMs, nextPollMs) <= untilMs) {
      if (nextBlockMs <= nextPollMs) {
        nowMs = nextBlockMs
        await beforeBlock()
        for (let transfer = 0; transfer < transfersPerBlock; transfer++) {
          await sim.submitTransfer(network, { to: simulatedAddress('TRON'), amount: '25', currency: 'USDT' })
        }
        await sim.mineBlocks(network, 1)
        blocks += 1
        nextBlockMs += blockMs
      } else {
        nowMs = nextPollMs
        await indexer.scanOnce()
        nextPollMs += pollMs
      }
    }
  }
  const watch = async (address) => {
    const { paymentId, consumed } = paymentCreatedMessage(network, 'USDT', address, clock.now().toISOString())
    await indexer.handlePaymentEvent(consumed)
    return paymentId
  }

  // warm up: the first scan, ten open payments nobody pays
  await sim.mineBlocks(network, 1)
  await indexer.scanOnce()
  for (let open = 0; open < 10; open++) await watch(simulatedAddress('TRON'))
  await runUntil(nowMs + 60_000)

  proxy.reset()
  const idleBlocks = blocks
  await runUntil(nowMs + hours * 3_600_000)
  const idle = { calls: proxy.total(), blocks: blocks - idleBlocks, byPath: proxy.byPath(), hours }

  proxy.reset()
  const paymentStart = blocks
  const paid = []
  let due = 0
  await runUntil(nowMs + (paymentCount * 10 + required * 3 + 30) * blockMs, async () => {
    if (paid.length >= paymentCount || due++ % 10 !== 0) return
    const address = simulatedAddress('TRON')
    paid.push(await watch(address))
    // created between two blocks, paid in the next one
    await sim.submitTransfer(network, { to: address, amount: '10', currency: 'USDT' })
  })
  const paymentBlocks = blocks - paymentStart
  const paymentCalls = proxy.total()
  const paymentByPath = proxy.byPath()
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const settled = paid.filter((paymentId) => final.has(paymentId)).length

  await close()

  const idlePerBlock = idle.calls / idle.blocks
  const perPayment = (paymentCalls - idlePerBlock * paymentBlocks) / paymentCount
  return {
    chain: 'TRON',
    setup: `blocks every ${blockMs / 1000} s with ${transfersPerBlock} USDT transfers each; poll every ${pollMs / 1000} s; ${required} confirmations`,
    rows: [
      ['idle: calls per hour', (idle.calls / hours).toFixed(0), ''],
      ['idle: calls per block', idlePerBlock.toFixed(3), '≤ 2.1'],
      ['idle: calls per day', ((idle.calls / hours) * 24).toFixed(0), '≤ 60,480'],
      ['calls per payment (beyond idle)', perPayment.toFixed(2), '≤ 3'],
      ['payments final', `${settled} / ${paymentCount}`, 'all'],
    ],
    detail: { idle: idle.byPath, payments: paymentByPath },
    pass: idlePerBlock <= 2.1 && perPayment <= 3 && settled === paymentCount,
  }
}

/**
 * Helius credits per call (docs/chains.md, "Call budget": helius.dev/docs/billing/credits):
 * historical calls 10, getSignatureStatuses with searchTransactionHistory 10, others 1
 */
const HELIUS_CREDITS = {
  getBlock: 10,
  getBlocks: 10,
  getBlocksWithLimit: 10,
  getBlockTime: 10,
  getTransaction: 10,
  getSignaturesForAddress: 10,
  getSignatureStatuses: 10,
}
const heliusCredits = (byMethod) =>
  Object.entries(byMethod).reduce((sum, [method, calls]) => sum + calls * (HELIUS_CREDITS[method] ?? 1), 0)

/**
 * Solana mainnet-shaped: a slot every 400 ms, the block scanner (SOLANA_WATCH_MODE=blocks) polled at
 * its default 1 s. Calls do not depend on a block's transaction count (one getBlock
 * per slot whatever it holds), so each slot carries a few SOL transfers to addresses nobody watches;
 * the bytes do (about 4 MB per mainnet block at transactionDetails full). Idle over `hours` of slots
 * with open payments nobody pays; then `payments` payments, one every 25 slots, until final.
 */
async function measureSolana() {
  const network = 'SOLANA'
  const blockMs = 400
  const pollMs = Number(options['poll-ms'] ?? 1_000)
  const phaseMs = 150
  const transfersPerBlock = 3
  const hours = Number(options.hours)
  const paymentCount = Number(options.payments)
  const required = findNetwork(defaultAssetRegistry, network).requiredConfirmations
  let nowMs = Date.parse('2030-01-01T00:00:00.000Z')
  const clock = { now: () => new Date(nowMs) }
  const { sim, proxy, bus, store, final, close } = await benchChain(network, clock, required)
  const client = createSolanaChainClient({
    network,
    registry: defaultAssetRegistry,
    rpcUrl: `${proxy.url}/chains/${network}`,
  })
  const indexer = createChainIndexer({
    network,
    client,
    store,
    bus,
    registry: defaultAssetRegistry,
    clock,
    logger,
    pollIntervalMs: pollMs,
  })

  let blocks = 0
  let nextBlockMs = nowMs + blockMs
  let nextPollMs = nowMs + phaseMs
  async function runUntil(untilMs, beforeBlock = async () => {}) {
    while (Math.min(nextBlockMs, nextPollMs) <= untilMs) {
      if (nextBlockMs <= nextPollMs) {
        nowMs = nextBlockMs
        await beforeBlock()
        for (let transfer = 0; transfer < transfersPerBlock; transfer++) {
          await sim.submitTransfer(network, {
            to: simulatedAddress(network),
            amount: '0.01',
            currency: 'SOL',
          })
        }
        await sim.mineBlocks(network, 1)
        blocks += 1
        nextBlockMs += blockMs
      } else {
        nowMs = nextPollMs
        await indexer.scanOnce()
        nextPollMs += pollMs
      }
    }
  }
  const watch = async (address) => {
    const { paymentId, consumed } = paymentCreatedMessage(network, 'SOL', address, clock.now().toISOString())
    await indexer.handlePaymentEvent(consumed)
    return paymentId
  }

  await sim.mineBlocks(network, 1)
  await indexer.scanOnce()
  for (let open = 0; open < 10; open++) await watch(simulatedAddress(network))
  await runUntil(nowMs + 20_000)

  proxy.reset()
  const idleBlocks = blocks
  await runUntil(nowMs + hours * 3_600_000)
  const idle = { calls: proxy.total(), blocks: blocks - idleBlocks, byPath: proxy.byPath(), hours }

  proxy.reset()
  const paymentStart = blocks
  const paid = []
  let due = 0
  await runUntil(nowMs + (paymentCount * 25 + required * 2 + 50) * blockMs, async () => {
    if (paid.length >= paymentCount || due++ % 25 !== 0) return
    const address = simulatedAddress(network)
    paid.push(await watch(address))
    await sim.submitTransfer(network, { to: address, amount: '10', currency: 'SOL' })
  })
  const paymentBlocks = blocks - paymentStart
  const paymentCalls = proxy.total()
  const paymentByPath = proxy.byPath()
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const settled = paid.filter((paymentId) => final.has(paymentId)).length

  await close()

  const idlePerHour = idle.calls / hours
  const idleCreditsPerHour = heliusCredits(idle.byPath) / hours
  const idlePerBlock = idle.calls / idle.blocks
  const perPayment = (paymentCalls - idlePerBlock * paymentBlocks) / paymentCount
  const idleCreditsPerBlock = heliusCredits(idle.byPath) / idle.blocks
  const creditsPerPayment =
    (heliusCredits(paymentByPath) - idleCreditsPerBlock * paymentBlocks) / paymentCount
  return {
    chain: 'SOLANA',
    setup: `block scanning; a slot every ${blockMs} ms; poll every ${pollMs / 1000} s; ${required} confirmations`,
    rows: [
      ['idle: calls per hour', idlePerHour.toFixed(0), '≤ 60'],
      ['idle: calls per minute', (idlePerHour / 60).toFixed(1), '≤ 1'],
      [
        'idle: Helius credits per month (30 days)',
        `${((idleCreditsPerHour * 24 * 30) / 1e6).toFixed(1)} M`,
        '',
      ],
      ['calls per payment (beyond idle)', perPayment.toFixed(2), '≤ 10'],
      ['Helius credits per payment (beyond idle)', creditsPerPayment.toFixed(1), ''],
      ['payments final', `${settled} / ${paymentCount}`, 'all'],
    ],
    detail: { idle: idle.byPath, payments: paymentByPath },
    pass: idlePerHour / 60 <= 1 && perPayment <= 10 && settled === paymentCount,
  }
}

/**
 * Solana by address (SOLANA_WATCH_MODE=address, the default; docs/chains.md "Solana by address"):
 * the same mainnet-shaped slots, the indexer iterating every 500 ms of the clock. JSON-RPC goes
 * through the counting proxy; the websocket goes to the node directly (subscriptions are not calls).
 * Notifications arrive in real time while the clock is simulated, so after a block that concerns a
 * payment the bench waits (bounded) until the indexer has been told. Idle: `hours` with 10 open
 * payments nobody pays. Then `payments` SOL payments, each watched, paid, followed to final and
 * run past its deadline (the deadline's reconciliation and chain time count for the payment).
 */
async function measureSolanaByAddress() {
  const network = 'SOLANA'
  const blockMs = 400
  const pollMs = Number(options['poll-ms'] ?? 500)
  const hours = Number(options.hours)
  const paymentCount = Number(options.payments)
  const required = findNetwork(defaultAssetRegistry, network).requiredConfirmations
  let nowMs = Date.parse('2030-01-01T00:00:00.000Z')
  const clock = { now: () => new Date(nowMs) }
  const { node, sim, proxy, bus, store, final, close } = await benchChain(network, clock, required)
  const connection = createSolanaConnection({
    rpcUrl: `${proxy.url}/chains/${network}`,
    wsUrl: node.solanaWsUrl(network),
  })
  const reader = createSolanaAddressReader({ network, registry: defaultAssetRegistry, connection })
  const indexer = createSolanaAddressIndexer({
    network,
    reader,
    store,
    bus,
    registry: defaultAssetRegistry,
    clock,
    logger,
    pollIntervalMs: pollMs,
  })
  /** real time, bounded: until a notification has marked something for the indexer */
  const notified = async () => {
    for (let wait = 0; wait < 200 && !indexer.watcher.due; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  let blocks = 0
  /** mainnet-shaped slots with transfers to nobody's addresses, the indexer at its interval */
  async function runFor(ms) {
    const until = nowMs + ms
    let nextBlockMs = nowMs + blockMs
    while (nowMs < until) {
      nowMs = Math.min(nowMs + pollMs, until)
      while (nextBlockMs <= nowMs) {
        await sim.submitTransfer(network, { to: simulatedAddress(network), amount: '0.01', currency: 'SOL' })
        await sim.mineBlocks(network, 1)
        blocks += 1
        nextBlockMs += blockMs
      }
      await indexer.scanOnce()
    }
  }
  const watch = async (address) => {
    const { paymentId, consumed } = paymentCreatedMessage(network, 'SOL', address, clock.now().toISOString())
    await indexer.handlePaymentEvent(consumed)
    await indexer.scanOnce()
    return paymentId
  }

  await sim.mineBlocks(network, 1)
  await indexer.scanOnce()
  for (let open = 0; open < 10; open++) await watch(simulatedAddress(network))
  await runFor(10_000)

  proxy.reset()
  await runFor(hours * 3_600_000)
  const idle = { calls: proxy.total(), byPath: proxy.byPath(), hours }

  // each payment on its own, so that only its own calls count; the idle share of its time is taken off
  proxy.reset()
  const paid = []
  let paymentMs = 0
  for (let payment = 0; payment < paymentCount; payment++) {
    const startMs = nowMs
    const address = simulatedAddress(network)
    paid.push(await watch(address))
    await sim.submitTransfer(network, { to: address, amount: '10', currency: 'SOL' })
    await sim.mineBlocks(network, 1)
    await notified()
    await indexer.scanOnce()
    await sim.mineBlocks(network, required)
    await notified()
    await indexer.scanOnce()
    // past its deadline (30 minutes): the deadline's reconciliation
    nowMs += 30 * 60_000
    await sim.mineBlocks(network, 1)
    await indexer.scanOnce()
    paymentMs += nowMs - startMs
  }
  const paymentCalls = proxy.total()
  const paymentByPath = proxy.byPath()
  await new Promise((resolve) => setTimeout(resolve, 500))
  const settled = paid.filter((paymentId) => final.has(paymentId)).length

  await indexer.stop()
  await close()

  const idlePerHour = idle.calls / hours
  const idleCreditsPerHour = heliusCredits(idle.byPath) / hours
  const idleShare = (idlePerHour * paymentMs) / 3_600_000
  const perPayment = (paymentCalls - idleShare) / paymentCount
  const creditsPerPayment =
    (heliusCredits(paymentByPath) - (idleCreditsPerHour * paymentMs) / 3_600_000) / paymentCount
  return {
    chain: 'SOLANA',
    setup: `by address (the default); a slot every ${blockMs} ms (${blocks} mined); the indexer every ${pollMs / 1000} s; 10 open payments at idle; ${required} confirmations`,
    rows: [
      ['idle: calls per hour', idlePerHour.toFixed(0), '≤ 60'],
      ['idle: calls per minute', (idlePerHour / 60).toFixed(2), '≤ 1'],
      [
        'idle: Helius credits per month (30 days)',
        `${((idleCreditsPerHour * 24 * 30) / 1e6).toFixed(3)} M`,
        '',
      ],
      ['calls per payment (beyond idle)', perPayment.toFixed(2), '≤ 10'],
      ['Helius credits per payment (beyond idle)', creditsPerPayment.toFixed(1), ''],
      ['payments final', `${settled} / ${paymentCount}`, 'all'],
    ],
    detail: { idle: idle.byPath, payments: paymentByPath },
    pass: idlePerHour / 60 <= 1 && perPayment <= 10 && settled === paymentCount,
  }
}

/** SOLANA: the default watcher (by address); SOLANA_BLOCKS: block scanning */
const CHAINS = { TRON: measureTron, SOLANA: measureSolanaByAddress, SOLANA_BLOCKS: measureSolana }

const chains = options.chains.split(',').map((chain) => chain.trim().toUpperCase())
for (const chain of chains) if (!(chain in CHAINS)) throw new Error(`no call budget for chain ${chain}`)
out(
  `# chain watcher call budget — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`,
)
let failed = false
for (const chain of chains) {
  const result = await CHAINS[chain]()
  out()
  out(`## ${result.chain}: ${result.setup}`)
  out()
  out('| figure | measured | goal |')
  out('|---|---|---|')
  for (const [figure, measured, goal] of result.rows) out(`| ${figure} | ${measured} | ${goal} |`)
  out()
  out(`requests by endpoint, idle: ${JSON.stringify(result.detail.idle)}`)
  out(`requests by endpoint, payments phase: ${JSON.stringify(result.detail.payments)}`)
  out(result.pass ? 'goals met' : 'GOALS NOT MET')
  failed ||= !result.pass
}
process.exitCode = failed ? 1 : 0
