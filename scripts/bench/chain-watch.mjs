// Chain watcher at scale: the chain indexer's work per block with 10 to 100,000 watched addresses,
// on the chain simulator. Per network it produces the same blocks once (a realistic number of
// transfers each, a few paying watched addresses), then for each watch-set size fills a fresh
// indexer store with that many watched addresses and lets a real indexer scan the blocks, one new
// block per iteration as when it follows the head, then all of them again in batches as after
// downtime. Block production is done before any scan and is never inside a measured time. It checks
// that the indexer reported exactly the transfers that pay watched addresses (and fails loudly
// otherwise), and prints the figures and the markdown for docs/benchmarks.md. Not a test.
//
// `--client rpc` reads the blocks through the real tronweb / @solana/web3.js adapters from the
// simulator's node-shaped routes, served by a second process (`--serve`, below) so that the node's
// own work is not in this process's CPU time.

import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { createChainIndexer } from '../../packages/chain-indexer/dist/index.js'
import { createChainSimulator, simulatedAddress } from '../../packages/chain-sim/dist/index.js'
import { defaultAssetRegistry, findNetwork, resolveAsset } from '../../packages/domain/dist/index.js'
import { createRootLogger, systemClock } from '../../packages/platform/dist/index.js'
import {
  createSqliteBus,
  createSqliteChainIndexerStore,
  openSqliteDatabase,
} from '../../packages/store-sqlite/dist/index.js'

const root = new URL('../..', import.meta.url).pathname
const logger = createRootLogger({ service: 'bench-chain-watch', level: 'silent' })
const out = (line = '') => process.stdout.write(`${line}\n`)

// Transfers per block, kept equal across watch-set sizes:
// - TRON: about 11 to 12.6 million transactions a day (TRON DAO: 341.9 M in January 2026; a record
//   day of 12.6 M in 2025) over 28,800 blocks a day is 380 to 440 transactions per block; 400
//   transfers per block counts every one of them as a transfer to look up.
// - Solana: blocks carry one to a few thousand transactions, 70 to 80 % of them votes, which move no
//   balance into another account and give no transfer (SolanaFM: 759 non-vote TPS, ~300 per 400 ms
//   slot; a sample block: 2,198 transactions, 124 non-vote). 1,000 transfers per block allows about
//   three balance increases in watched assets per non-vote transaction.
const NETWORKS = {
  TRON: {
    chain: 'TRON',
    blockMs: 3000,
    transfers: 400,
    // a TRX transfer is a transaction of its own, and TRC20 multisends are rare
    transfersPerTransaction: 1,
    // what moves on TRON: mostly USDT, the rest TRX
    traffic: [
      { currency: 'USDT', share: 0.75 },
      { currency: 'TRX', share: 0.25 },
    ],
    watchedCurrencies: ['USDT', 'USDT', 'USDT', 'TRX'],
  },
  SOLANA: {
    chain: 'SOLANA',
    blockMs: 400,
    transfers: 1000,
    // a non-vote transaction often moves several balances (a swap, a payment with a fee)
    transfersPerTransaction: 3,
    traffic: [
      { currency: 'SOL', share: 0.5 },
      { currency: 'USDC', share: 0.35 },
      { currency: 'USDT', share: 0.15 },
    ],
    watchedCurrencies: ['USDC', 'USDC', 'USDT', 'SOL'],
  },
}

function parseOptions() {
  const { values } = parseArgs({
    options: {
      networks: { type: 'string', default: process.env.BENCH_WATCH_NETWORKS ?? 'TRON,SOLANA' },
      sizes: { type: 'string', default: process.env.BENCH_WATCH_SIZES ?? '10,1000,10000,100000' },
      blocks: { type: 'string', default: process.env.BENCH_WATCH_BLOCKS ?? '200' },
      warmup: { type: 'string', default: process.env.BENCH_WATCH_WARMUP ?? '40' },
      paid: { type: 'string', default: process.env.BENCH_WATCH_PAID ?? '5' },
      'tron-transfers': { type: 'string', default: process.env.BENCH_TRON_TRANSFERS },
      'solana-transfers': { type: 'string', default: process.env.BENCH_SOLANA_TRANSFERS },
      client: { type: 'string', default: process.env.BENCH_CHAIN_CLIENT ?? 'sim' },
      help: { type: 'boolean', default: false },
    },
  })
  if (values.help) {
    out(`usage: scripts/bench/chain-watch [--networks TRON,SOLANA] [--sizes 10,1000,10000,100000]
  [--blocks 200] [--warmup 40] [--paid 5] [--tron-transfers 400] [--solana-transfers 1000]
  [--client sim|rpc]
(or BENCH_WATCH_NETWORKS, BENCH_WATCH_SIZES, BENCH_WATCH_BLOCKS, BENCH_WATCH_WARMUP, BENCH_WATCH_PAID,
 BENCH_TRON_TRANSFERS, BENCH_SOLANA_TRANSFERS, BENCH_CHAIN_CLIENT)`)
    process.exit(0)
  }
  const integer = (name, value, min) => {
    const number = Number(value)
    if (!Number.isSafeInteger(number) || number < min)
      throw new Error(`${name}: expected an integer ≥ ${min}, got ${value}`)
    return number
  }
  const networks = values.networks.split(',').map((name) => name.trim().toUpperCase())
  for (const network of networks) if (!(network in NETWORKS)) throw new Error(`unknown network ${network}`)
  if (values['tron-transfers'] !== undefined)
    NETWORKS.TRON.transfers = integer('tron-transfers', values['tron-transfers'], 1)
  if (values['solana-transfers'] !== undefined)
    NETWORKS.SOLANA.transfers = integer('solana-transfers', values['solana-transfers'], 1)
  if (values.client !== 'sim' && values.client !== 'rpc')
    throw new Error(`--client: sim or rpc, got ${values.client}`)
  const options = {
    networks,
    sizes: values.sizes.split(',').map((size) => integer('sizes', size.replaceAll('_', ''), 1)),
    blocks: integer('blocks', values.blocks, 1),
    warmup: integer('warmup', values.warmup, 1),
    paid: integer('paid', values.paid, 0),
    client: values.client,
  }
  const decoys = 2
  for (const network of networks) {
    if (NETWORKS[network].transfers < options.paid + decoys)
      throw new Error(
        `${network}: ${NETWORKS[network].transfers} transfers per block cannot hold ${options.paid} paid and ${decoys} decoys`,
      )
  }
  // paid transfers go to the first 10 watched addresses, which every watch set holds
  if (Math.min(...options.sizes) < Math.min(10, options.paid))
    throw new Error('the smallest watch set must hold the paid addresses')
  return options
}

// ---- statistics ----
function percentile(sorted, p) {
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]
}
function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
    mean,
  }
}
const fixed = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2))

const collectGarbage = (() => {
  if (typeof globalThis.gc === 'function') return globalThis.gc
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc')
})()
/** every garbage collection of the run, to tell how much of a measured time was collection */
const collections = []
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) collections.push(entry)
}).observe({ entryTypes: ['gc'] })
async function collectionMsBetween(from, to) {
  // gc entries are delivered a little later
  await new Promise((resolve) => setTimeout(resolve, 50))
  return collections
    .filter((entry) => entry.startTime >= from && entry.startTime < to)
    .reduce((sum, entry) => sum + entry.duration, 0)
}

function heapAfterGc() {
  collectGarbage()
  collectGarbage()
  return process.memoryUsage().heapUsed
}

// ---- blocks: produced once per network, before anything is measured ----

/**
 * Produces warmup + measured blocks on the simulator. Per block: `paid` transfers to watched
 * addresses in their asset, two decoys to a watched address that must not match (a failed transfer,
 * and a counterfeit token of the watched currency), the rest to fresh addresses.
 */
async function produceBlocks(sim, network, watched, count, paid) {
  const profile = NETWORKS[network]
  const paidTxs = new Map()
  const counterfeit = simulatedAddress(profile.chain)
  let sequence = 0
  const pickCurrency = () => {
    let roll = Math.random()
    for (const { currency, share } of profile.traffic) {
      roll -= share
      if (roll < 0) return currency
    }
    return profile.traffic[0].currency
  }
  const tokenWatched = watched.slice(0, 10).find((entry) => entry.assetContract !== null)
  const start = (await sim.head(network)).height + 1
  for (let block = 0; block < count; block += 1) {
    const height = start + block
    const hashes = []
    // the paid and decoy transfers sit at spread-out positions in the block
    const special = new Map()
    const stride = Math.floor(profile.transfers / (paid + 2))
    for (let p = 0; p < paid; p += 1) special.set(p * stride, 'paid')
    special.set(paid * stride, 'failed')
    special.set((paid + 1) * stride, 'counterfeit')
    const ordinary = []
    const submitOrdinary = async () => {
      if (ordinary.length > 0) await sim.submitTransaction(network, { transfers: ordinary.splice(0) })
    }
    for (let position = 0; position < profile.transfers; position += 1) {
      const kind = special.get(position)
      const amount = `${1 + (sequence % 997)}.25`
      if (kind === 'paid') {
        const entry = watched[sequence % 10]
        sequence += 1
        const { txHash } = await sim.submitTransfer(network, {
          to: entry.address,
          amount,
          currency: entry.currency,
        })
        hashes.push(txHash)
      } else if (kind === 'failed') {
        const entry = watched[(sequence + 3) % 10]
        await sim.submitTransfer(network, { to: entry.address, amount, currency: entry.currency, fail: true })
      } else if (kind === 'counterfeit') {
        await sim.submitTransfer(network, {
          to: tokenWatched.address,
          amount,
          currency: tokenWatched.currency,
          contract: counterfeit,
        })
      } else {
        sequence += 1
        ordinary.push({ to: simulatedAddress(profile.chain), amount, currency: pickCurrency() })
        if (ordinary.length === profile.transfersPerTransaction) await submitOrdinary()
      }
    }
    await submitOrdinary()
    const head = await sim.mineBlocks(network, 1)
    if (head.height !== height)
      throw new Error(`${network}: expected block ${height}, the simulator mined ${head.height}`)
    paidTxs.set(height, hashes)
  }
  return { start, end: start + count - 1, paidTxs }
}

/** `count` watched addresses of the network, each in one of its watched currencies */
function watchedAddresses(network, count) {
  const profile = NETWORKS[network]
  const now = Date.now()
  const reportedAt = new Date(now).toISOString()
  const entries = []
  for (let i = 0; i < count; i += 1) {
    const currency = profile.watchedCurrencies[i % profile.watchedCurrencies.length]
    const asset = resolveAsset(defaultAssetRegistry, { network, currency })
    entries.push({
      network,
      // for SPL payments the watched address is the payment's token account: an address all the same
      address: simulatedAddress(profile.chain),
      paymentId: `bench-${network}-${i}`,
      assetContract: asset.contract,
      currency,
      // open for a day of chain time; reported, so no backfill runs
      watchUntil: new Date(now + 86_400_000).toISOString(),
      paymentCreatedAt: new Date(now - 60_000).toISOString(),
      requiredConfirmations: findNetwork(defaultAssetRegistry, network).requiredConfirmations,
      watchingReportedAt: reportedAt,
    })
  }
  return entries
}

/**
 * The chain as it stood at a chosen height: the head is that block (looked up beforehand, so the
 * lookup is not measured), and no block above it exists. Each scan then sees exactly the new blocks.
 */
async function replayClient(base, start, end) {
  const heads = new Map()
  const finality = base.network === 'TRON' ? 18 : 31
  for (let from = start; from <= end; from += 100) {
    for (const block of await base.getBlocks(from, Math.min(end, from + 99))) {
      heads.set(block.height, {
        height: block.height,
        hash: block.hash,
        time: block.time,
        finalizedHeight: Math.max(0, block.height - finality),
      })
    }
  }
  let visible = start
  return {
    network: base.network,
    show(height) {
      if (!heads.has(height)) throw new Error(`${base.network}: no block ${height} to show`)
      visible = height
    },
    async getHead() {
      return heads.get(visible)
    },
    async getBlocks(from, to) {
      return to < from || from > visible ? [] : base.getBlocks(from, Math.min(to, visible))
    },
  }
}

// ---- one watch-set size ----

async function measureSize({ network, size, watched, chain, range, warmup, dir }) {
  const base = chain.client
  const path = join(dir, `indexer-${network}-${size}.sqlite`)
  const db = openSqliteDatabase(path)
  const store = createSqliteChainIndexerStore(db)
  const bus = createSqliteBus(db, { logger })
  try {
    // the watch set, straight into the store, as the payment events would leave it
    const fillStarted = performance.now()
    db.exec('BEGIN')
    for (const { currency, ...entry } of watched.slice(0, size)) await store.watch(entry)
    db.exec('COMMIT')
    const fillMs = performance.now() - fillStarted

    const reads = { calls: 0, blocks: 0 }
    const counting = {
      network: base.network,
      getHead: () => base.getHead(),
      async getBlocks(from, to) {
        const blocks = await base.getBlocks(from, to)
        reads.calls += 1
        reads.blocks += blocks.length
        return blocks
      },
    }
    const client = await replayClient(counting, range.start, range.end)
    const heapBefore = heapAfterGc()
    // an indexer that has never run: it starts at the range's first block
    const newIndexer = () =>
      createChainIndexer({
        network,
        client,
        store,
        bus,
        registry: defaultAssetRegistry,
        clock: systemClock,
        logger,
        startHeight: range.start,
      })
    let indexer = newIndexer()
    // the first iteration loads the watch set from the store
    client.show(range.start)
    const startupStarted = performance.now()
    await indexer.scanOnce()
    const startupMs = performance.now() - startupStarted
    const heapBytes = heapAfterGc() - heapBefore
    if (indexer.watchSet.size !== size)
      throw new Error(`${network}: the watch set holds ${indexer.watchSet.size}, not ${size}`)

    // following the head: one new block per iteration
    const wallMs = []
    const cpuMs = []
    let readsBefore
    let nodeCpuBefore
    let measuredFrom
    for (let height = range.start + 1; height <= range.end; height += 1) {
      if (height === range.start + warmup + 1) {
        readsBefore = { ...reads }
        nodeCpuBefore = chain.nodeCpuMs?.()
        measuredFrom = performance.now()
      }
      client.show(height)
      const cpuBefore = process.cpuUsage()
      const started = performance.now()
      await indexer.scanOnce()
      const wall = performance.now() - started
      const cpu = process.cpuUsage(cpuBefore)
      if (height > range.start + warmup) {
        wallMs.push(wall)
        cpuMs.push((cpu.user + cpu.system) / 1000)
      }
    }
    const measured = wallMs.length
    const gcPerBlock = (await collectionMsBetween(measuredFrom, performance.now())) / measured
    const nodeCpuPerBlock =
      nodeCpuBefore === undefined ? undefined : (chain.nodeCpuMs() - nodeCpuBefore) / measured
    const readsPerBlock = {
      calls: (reads.calls - readsBefore.calls) / measured,
      blocks: (reads.blocks - readsBefore.blocks) / measured,
    }
    const cursor = await store.loadCursor(network)
    if (cursor?.height !== range.end)
      throw new Error(`${network}: the cursor stands at ${cursor?.height}, not ${range.end}`)
    const matches = checkObservations(db, network, range)

    // what the once-a-minute prune costs: a pass over every watched entry (none is due here)
    const pruneStarted = performance.now()
    await indexer.watchSet.prune(new Date(0))
    const pruneMs = performance.now() - pruneStarted
    indexer = undefined

    // after downtime: every block again from a cleared cursor, 100 blocks per iteration
    db.exec('DELETE FROM chain_cursors; DELETE FROM tracked_transfers')
    const catchUpIndexer = newIndexer()
    client.show(range.start)
    await catchUpIndexer.scanOnce()
    client.show(range.end)
    const catchUpStarted = performance.now()
    while ((await store.loadCursor(network))?.height !== range.end) await catchUpIndexer.scanOnce()
    const catchUpBlocksPerS = (range.end - range.start) / ((performance.now() - catchUpStarted) / 1000)

    return {
      network,
      size,
      fillMs,
      startupMs,
      heapBytes,
      wall: summarize(wallMs),
      cpu: summarize(cpuMs),
      matches,
      readsPerBlock,
      nodeCpuPerBlock,
      gcPerBlock,
      pruneMs,
      catchUpBlocksPerS,
    }
  } finally {
    await bus.close()
    db.close()
  }
}

/**
 * The transfers the indexer reported seen must be exactly the ones paying watched addresses: not one
 * missed, none of the decoys, nothing else. Read from the bus table after the scans.
 */
function checkObservations(db, network, range) {
  const expected = new Set()
  for (let height = range.start; height <= range.end; height += 1) {
    for (const txHash of range.paidTxs.get(height)) expected.add(txHash)
  }
  const seen = new Set()
  for (const row of db
    .prepare("SELECT value FROM bus_messages WHERE topic = 'chainpay.chain-observations'")
    .all()) {
    const observation = JSON.parse(row.value)
    if (observation.kind === 'transfer' && observation.status === 'seen') seen.add(observation.txHash)
  }
  const missed = [...expected].filter((txHash) => !seen.has(txHash))
  const extra = [...seen].filter((txHash) => !expected.has(txHash))
  if (missed.length > 0 || extra.length > 0) {
    throw new Error(
      `${network}: the indexer's matches differ from the paid transfers: ${missed.length} missed, ${extra.length} not paid (e.g. ${[...missed, ...extra].slice(0, 3).join(', ')})`,
    )
  }
  return seen.size
}

// ---- clients ----

/** the chain client, and the CPU time the node process has used so far (rpc only) */
async function openClient(options, network, sim, simPath, cleanups) {
  if (options.client === 'sim') return { client: sim.client(network), nodeCpuMs: undefined }
  const server = await startSimulatorServer(simPath, network, cleanups)
  return { client: await rpcClient(network, server), nodeCpuMs: server.cpuMs }
}

async function startSimulatorServer(simPath, network, cleanups) {
  const script = new URL(import.meta.url).pathname
  const child = spawn(process.execPath, [script, '--serve', simPath, network], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  cleanups.push(async () => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  })
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the simulator server exited (${code})`)))
    child.stdout.once('data', (data) => resolve(JSON.parse(String(data)).port))
  })
  const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100
  const cpuMs = () => {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
    // after the command name in parentheses: fields 14 utime and 15 stime, in clock ticks
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks
  }
  return { base: `http://127.0.0.1:${port}`, cpuMs }
}

async function rpcClient(network, server) {
  // the chain-indexer's own choice of client (packages/chain-access), against the simulator's node routes
  const { chainAccess, simulatorEndpoints } = await import('../../packages/chain-access/dist/index.js')
  const { chain } = findNetwork(defaultAssetRegistry, network)
  const endpoints = simulatorEndpoints(server.base, network, chain, undefined)
  return chainAccess(endpoints, { registry: defaultAssetRegistry, timeoutMs: 10_000, logger }).chainClient()
}

async function serveSimulator(simPath, network) {
  const chainSim = await import('../../packages/chain-sim/dist/index.js')
  const routes = network === 'TRON' ? chainSim.tronNodeRoutes : chainSim.solanaRpcRoutes
  if (typeof routes !== 'function')
    throw new Error(`packages/chain-sim has no node routes for ${network} yet`)
  const fastify = createRequire(join(root, 'packages/chain-sim/package.json'))('fastify')
  const db = openSqliteDatabase(simPath)
  // never started: the blocks are already there
  const sim = createChainSimulator({
    db,
    registry: defaultAssetRegistry,
    networks: [{ network, blockIntervalMs: NETWORKS[network].blockMs }],
    logger,
  })
  const app = fastify({ logger: false })
  await app.register(routes, { simulator: sim, registry: defaultAssetRegistry })
  await app.listen({ host: '127.0.0.1', port: 0 })
  process.stdout.write(`${JSON.stringify({ port: app.server.address().port })}\n`)
  process.once('SIGTERM', () => {
    void app.close().then(() => {
      db.close()
      process.exit(0)
    })
  })
}

// ---- the run ----

async function main() {
  const options = parseOptions()
  const dir = mkdtempSync(join(tmpdir(), 'chainpay-chain-watch-'))
  const cleanups = []
  const results = []
  const load = { start: loadavg()[0] }
  const started = performance.now()
  out(
    `chain watch benchmark: ${options.networks.join(', ')}; watched ${options.sizes.join(', ')}; ${options.warmup} warm-up + ${options.blocks} measured blocks; ${options.paid} paid per block; client ${options.client}`,
  )
  out(`1-minute load average at the start: ${load.start.toFixed(2)}`)
  try {
    for (const network of options.networks) {
      const profile = NETWORKS[network]
      const simPath = join(dir, `sim-${network}.sqlite`)
      const simDb = openSqliteDatabase(simPath)
      const sim = createChainSimulator({
        db: simDb,
        registry: defaultAssetRegistry,
        networks: [{ network, blockIntervalMs: profile.blockMs }],
        logger,
      })
      const watched = watchedAddresses(network, Math.max(...options.sizes))
      const producing = performance.now()
      const range = await produceBlocks(
        sim,
        network,
        watched,
        options.warmup + options.blocks + 1,
        options.paid,
      )
      out(
        `\n${network}: produced ${range.end - range.start + 1} blocks of ${profile.transfers} transfers in ${((performance.now() - producing) / 1000).toFixed(1)} s (not measured)`,
      )
      const chain = await openClient(options, network, sim, simPath, cleanups)
      for (const size of options.sizes) {
        const result = await measureSize({
          network,
          size,
          watched,
          chain,
          range,
          warmup: options.warmup,
          dir,
        })
        results.push(result)
        out(
          `  ${String(size).padStart(7)} watched: per block p50 ${fixed(result.wall.p50)} ms, p99 ${fixed(result.wall.p99)} ms, mean ${fixed(result.wall.mean)} ms, CPU ${fixed(result.cpu.mean)} ms, of which GC ${fixed(result.gcPerBlock)} ms${result.nodeCpuPerBlock === undefined ? '' : ` (+ node ${fixed(result.nodeCpuPerBlock)} ms)`}; ${fixed(result.readsPerBlock.blocks)} blocks read in ${fixed(result.readsPerBlock.calls)} getBlocks per new block; ${result.matches} matches; catch-up ${fixed(result.catchUpBlocksPerS)} blocks/s; filled in ${fixed(result.fillMs)} ms; startup ${fixed(result.startupMs)} ms; heap ${(result.heapBytes / 2 ** 20).toFixed(1)} MiB; prune pass ${fixed(result.pruneMs)} ms (load ${loadavg()[0].toFixed(2)})`,
        )
      }
      await sim.stop()
      simDb.close()
    }
    load.end = loadavg()[0]
    report(options, results, load, (performance.now() - started) / 1000)
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup()
    rmSync(dir, { recursive: true, force: true })
  }
}

function report(options, results, load, seconds) {
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB (${Math.round(freemem() / 2 ** 30)} GiB free), Node ${process.version}`
  out(`\nmachine: ${machine}; date: ${new Date().toISOString().slice(0, 10)}; client ${options.client}`)
  out(
    `1-minute load average: ${load.start.toFixed(2)} at the start, ${load.end.toFixed(2)} at the end; run took ${seconds.toFixed(0)} s\n`,
  )
  out(
    '| network | watched | transfers / block | scan p50 ms | scan p99 ms | scan mean ms | CPU ms / block | GC ms / block | node CPU ms / block | blocks read / block | matches | catch-up blocks/s | heap MiB | startup ms | prune pass ms |',
  )
  out('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
  for (const r of results) {
    out(
      `| ${r.network} | ${r.size.toLocaleString('en-US')} | ${NETWORKS[r.network].transfers} | ${fixed(r.wall.p50)} | ${fixed(r.wall.p99)} | ${fixed(r.wall.mean)} | ${fixed(r.cpu.mean)} | ${fixed(r.gcPerBlock)} | ${r.nodeCpuPerBlock === undefined ? 'in process' : fixed(r.nodeCpuPerBlock)} | ${fixed(r.readsPerBlock.blocks)} | ${r.matches} | ${fixed(r.catchUpBlocksPerS)} | ${(r.heapBytes / 2 ** 20).toFixed(1)} | ${fixed(r.startupMs)} | ${fixed(r.pruneMs)} |`,
    )
  }
  out(
    '\n| network, at the largest watch set | chain blocks/s | scanned blocks/s (following) | headroom | scanned blocks/s (catch-up) | CPU share of one core at the chain rate | p50 largest / smallest set |',
  )
  out('|---|---|---|---|---|---|---|')
  for (const network of options.networks) {
    const rows = results.filter((r) => r.network === network)
    const bySize = [...rows].sort((a, b) => a.size - b.size)
    const largest = bySize.at(-1)
    const smallest = bySize[0]
    const chainRate = 1000 / NETWORKS[network].blockMs
    const following = 1000 / largest.wall.mean
    out(
      `| ${network}, ${largest.size.toLocaleString('en-US')} watched | ${fixed(chainRate)} | ${fixed(following)} | ${fixed(following / chainRate)} × | ${fixed(largest.catchUpBlocksPerS)} | ${((largest.cpu.mean * chainRate) / 10).toFixed(1)} % | ${(largest.wall.p50 / smallest.wall.p50).toFixed(2)} |`,
    )
  }
}

// --serve: the simulator's node-shaped routes in a process of their own (--client rpc)
const serve = process.argv.indexOf('--serve')
if (serve !== -1) await serveSimulator(process.argv[serve + 1], process.argv[serve + 2])
else await main()
