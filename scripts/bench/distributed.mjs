// Distributed benchmark: the five services as separate processes on their own Apache Kafka and
// FerretDB, started here with the project's own code (planCluster, startKafka, startFerretDb, in
// scripts/up's layout, but with a short simulated TRON block interval). In one run it measures create
// and GET through the gateway; the latency from the block that gives a transfer its required
// confirmations to the payment.confirmed webhook, split at payment-command's decision, the relay's
// publish, the notifier's record of the delivery and the dispatcher's attempt; and the floor
// underneath: a kafkajs produce→consume round trip, a bare findOne by _id and insertOne on the same
// FerretDB, and what a filter on any other field costs there. Every service notes its MongoDB
// commands (mongo-command-trace.cjs), so that the webhook phase shows how long FerretDB took to answer
// each service, and how much of each leg was FerretDB answering the component on that leg's path. It
// notes each process's CPU per phase, to show what dominates. Prints the figures and the markdown for
// docs/benchmarks.md. Not a test: it asserts nothing. It stops everything it started, also when it
// fails or is interrupted.

import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { cpus, loadavg, tmpdir, totalmem } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { DatabaseSync } from 'node:sqlite'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { defaultAssetRegistry } from '../../packages/domain/dist/index.js'
import {
  clusterFiles,
  createMerchant,
  ensureClusterSecrets,
  ensureClusterWallet,
  planCluster,
  SERVICE_NAMES,
  writeDemoMerchant,
} from '../../packages/local-cluster/dist/index.js'
import { clusterLayout } from '../../packages/local-cluster/dist/up-config.js'
import { FERRETDB_VERSION, startFerretDb } from '../../packages/local-servers/dist/ferretdb.js'
import { KAFKA_VERSION, startKafka } from '../../packages/local-servers/dist/kafka.js'
import {
  isAlive,
  readPid,
  startDetached,
  stopPidFile,
  tail,
  waitUntil,
} from '../../packages/local-servers/dist/local-process.js'
import { freeLoopbackPort } from '../../packages/local-servers/dist/ports.js'
import { startPostgres, stopPostgres } from '../../packages/local-servers/dist/postgresql.js'
import { apiAuthHeaders } from '../../packages/signing/dist/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
// the same kafkajs (with the project's patch) and mongodb driver the adapters use
const {
  Kafka,
  logLevel: kafkaLogLevel,
  Partitioners,
} = createRequire(join(root, 'packages/bus-kafka/package.json'))('kafkajs')
const { MongoClient } = createRequire(join(root, 'packages/store-mongo/package.json'))('mongodb')

const duration = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const webhookPayments = Number(process.env.BENCH_WEBHOOK_PAYMENTS ?? 50)
const kafkaMessages = Number(process.env.BENCH_KAFKA_MESSAGES ?? 500)
const tronBlockMs = Number(process.env.BENCH_TRON_BLOCK_MS ?? 50)
// FerretDB's backend: its SQLite files (the tests' and scripts/up's), or PostgreSQL (Debian's, started
// here like Kafka, never as root), which answers filters on any field itself
const ferretBackend = process.env.BENCH_FERRETDB_BACKEND ?? 'sqlite'
if (!['sqlite', 'postgresql'].includes(ferretBackend))
  throw new Error(`BENCH_FERRETDB_BACKEND must be sqlite or postgresql, not ${ferretBackend}`)
const readTargets = 200
const findOneSequential = 1000
const SOLANA_BLOCK_MS = 400
const READY_TIMEOUT_MS = 90_000
/** the chain-indexer publishes its progress every block, so a live system is rarely at exactly zero */
const CAUGHT_UP_LAG = 5
/** Topics.paymentEvents of @chainpay/ports */
const PAYMENT_EVENTS_TOPIC = 'chainpay.payment-events'

const out = (line = '') => process.stdout.write(`${line}\n`)

/**
 * The confirmation block → payment.confirmed webhook path, leg by leg, each between two moments the
 * benchmark reads afterwards: the final block's time (the simulator's SQLite), payment-command's
 * decision (the payment's confirmedAt), the relay's publish (the Kafka timestamp of PaymentConfirmed),
 * the notifier's record (the delivery's createdAt), the dispatcher's first attempt (its `at`) and the
 * receiver's arrival. The coarser legs of earlier runs (docs/benchmarks.md) follow.
 */
const WEBHOOK_LEGS = [
  { key: 'toDecision', label: "block → payment-command's decision" },
  { key: 'decisionToBus', label: 'decision → the relay put PaymentConfirmed on the bus' },
  { key: 'busToRecorded', label: 'on the bus → the notifier recorded the delivery' },
  { key: 'recordedToAttempt', label: "recorded → the dispatcher's attempt began" },
  { key: 'attemptToWebhook', label: 'attempt began → webhook arrival' },
  { key: 'decisionToRecorded', label: 'decision → the notifier recorded the delivery' },
  { key: 'recordedToWebhook', label: 'recorded → webhook arrival' },
]

// ---- cleanup: everything started registers how to stop it; run in reverse, once ----
const cleanups = []
/** every server process started, to check at the end that none is left */
const startedPids = []
let cleaning
function cleanUp() {
  cleaning ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await step.run()
      } catch (error) {
        process.stderr.write(`cleanup: ${step.name}: ${error instanceof Error ? error.message : error}\n`)
      }
    }
  })()
  return cleaning
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping everything the benchmark started\n`)
    void cleanUp().then(() => process.exit(130))
  })
}

// ---- statistics ----
function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]
}
function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1),
  }
}
const ms = (value) => (value >= 10 ? value.toFixed(0) : value.toFixed(1))

// ---- CPU per process: who burns the two cores during each phase (Linux /proc) ----
/** every server process started, by name, whose CPU time is read */
const watchedProcesses = []
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100
  } catch {
    return 100
  }
})()
const LOAD_GENERATOR = 'bench'
function cpuSeconds() {
  const seconds = { at: performance.now() / 1000 }
  // after the command name in parentheses: field 4 ppid, 14 utime and 15 stime (in clock ticks)
  const statOf = (pid) => {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) }
  }
  for (const { name, pid, withChildren } of watchedProcesses) {
    try {
      let ticks = statOf(pid).ticks
      // PostgreSQL works in a process per connection, children of the one started
      if (withChildren) {
        for (const entry of readdirSync('/proc')) {
          if (!/^\d+$/.test(entry)) continue
          try {
            const child = statOf(entry)
            if (child.ppid === pid) ticks += child.ticks
          } catch {}
        }
      }
      seconds[name] = ticks / clockTicks
    } catch {
      seconds[name] = Number.NaN
    }
  }
  // the whole machine, to show what else ran: /proc/stat's first line, in clock ticks
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)
    const values = ticks.map(Number)
    const idle = values[3] + values[4]
    seconds.machine = (values.slice(0, 8).reduce((a, b) => a + b, 0) - idle) / clockTicks
  } catch {
    seconds.machine = Number.NaN
  }
  const own = process.cpuUsage()
  seconds[LOAD_GENERATOR] = (own.user + own.system) / 1e6
  return seconds
}
const cpuPhases = []
/** runs `work`, noting each process's CPU over it as a percentage of one core */
async function accounted(phase, work) {
  const before = cpuSeconds()
  const result = await work()
  const after = cpuSeconds()
  const wall = after.at - before.at
  const shares = {}
  for (const name of Object.keys(after)) {
    if (name !== 'at') shares[name] = ((after[name] - before[name]) / wall) * 100
  }
  cpuPhases.push({ phase, shares })
  return result
}

// ---- HTTP helpers ----
function signed(credentials, method, path, body = '') {
  const headers = apiAuthHeaders(credentials, { method, path, body }, Date.now())
  if (body) headers['content-type'] = 'application/json'
  return headers
}

async function createPayment(base, credentials, fields) {
  const path = '/api/merchant/v1/payments'
  const body = JSON.stringify({ amount: '10.5', currency: 'USDT', network: 'TRON', ...fields })
  const response = await fetch(base + path, {
    method: 'POST',
    body,
    headers: signed(credentials, 'POST', path, body),
  })
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`)
  return await response.json()
}

async function getPayment(base, credentials, paymentId) {
  const path = `/api/merchant/v1/payments/${paymentId}`
  const response = await fetch(base + path, { headers: signed(credentials, 'GET', path) })
  if (response.status !== 200) throw new Error(`GET ${paymentId} answered ${response.status}`)
  return await response.json()
}

async function load(title, url, requestFactory) {
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [{ setupRequest: (request) => ({ ...request, ...requestFactory() }) }],
  })
  const row = {
    title,
    ok: result['2xx'],
    rps: Math.round(result['2xx'] / duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  }
  out(
    `${title}: ${row.rps} req/s (2xx), p50 ${row.p50} ms, p99 ${row.p99} ms, non-2xx ${row.non2xx}, errors ${row.errors}`,
  )
  return row
}

// ---- bringing the system up ----
/** where each service notes its MongoDB commands (scripts/bench/mongo-command-trace.cjs) */
const mongoTraceFile = (logDirectory, name) => join(logDirectory, `${name}.mongo.ndjson`)
// BENCH_CPU_PROFILE_DIR: each service also writes a V8 CPU profile of its whole run there, in a
// directory of its own (node --cpu-prof; open it in Chrome's DevTools or summarise it by function)
const cpuProfileDir = process.env.BENCH_CPU_PROFILE_DIR
function mongoTraceEnv(logDirectory, name) {
  const profile = cpuProfileDir ? ` --cpu-prof --cpu-prof-dir="${join(cpuProfileDir, name)}"` : ''
  return {
    NODE_OPTIONS: `--require "${join(root, 'scripts/bench/mongo-command-trace.cjs')}"${profile}`,
    BENCH_MONGO_TRACE_FILE: mongoTraceFile(logDirectory, name),
    BENCH_MONGO_TRACE_ROOT: root,
  }
}

async function startCluster(dataDir) {
  const [
    gateway,
    admin,
    paymentCommand,
    chainIndexer,
    projection,
    notifier,
    kafkaPort,
    controllerPort,
    ferretPort,
    postgresPort,
    ...metricsPorts
  ] = await Promise.all(Array.from({ length: 10 + SERVICE_NAMES.length }, () => freeLoopbackPort()))
  // each service's METRICS_PORT: free ones, so that the bench runs beside scripts/up
  const metrics = Object.fromEntries(SERVICE_NAMES.map((name, index) => [name, metricsPorts[index]]))
  // scripts/up's layout, so that if this process is killed outright scripts/down stops what is left
  const layout = clusterLayout(dataDir)
  out(`data directory ${dataDir} (if this is killed: DATA_DIR=${dataDir} scripts/down)`)
  out(`starting Apache Kafka ${KAFKA_VERSION} on 127.0.0.1:${kafkaPort}`)
  cleanups.push({ name: 'kafka', run: () => stopPidFile(layout.kafkaPidFile, 'SIGTERM') })
  const kafka = await startKafka({ directory: layout.kafkaDirectory, port: kafkaPort, controllerPort })
  startedPids.push(readPid(layout.kafkaPidFile))
  watchedProcesses.push({
    name: 'kafka',
    pid: readPid(layout.kafkaPidFile),
    logFile: join(layout.kafkaDirectory, 'kafka.log'),
  })
  let postgresqlUrl
  if (ferretBackend === 'postgresql') {
    const directory = join(dataDir, 'postgresql')
    out(`starting PostgreSQL on 127.0.0.1:${postgresPort}`)
    cleanups.push({ name: 'postgresql', run: () => stopPostgres(directory) })
    postgresqlUrl = (await startPostgres({ directory, port: postgresPort })).url
    const pid = readPid(join(directory, 'postgresql.pid'))
    startedPids.push(pid)
    watchedProcesses.push({
      name: 'postgresql',
      pid,
      logFile: join(directory, 'postgresql.log'),
      withChildren: true,
    })
  }
  out(`starting FerretDB ${FERRETDB_VERSION} (${ferretBackend} backend) on 127.0.0.1:${ferretPort}`)
  cleanups.push({ name: 'ferretdb', run: () => stopPidFile(layout.ferretdbPidFile, 'SIGTERM') })
  const ferret = await startFerretDb({
    directory: layout.ferretdbDirectory,
    port: ferretPort,
    ...(postgresqlUrl ? { postgresqlUrl } : {}),
  })
  startedPids.push(readPid(layout.ferretdbPidFile))
  watchedProcesses.push({
    name: 'ferretdb',
    pid: readPid(layout.ferretdbPidFile),
    logFile: join(layout.ferretdbDirectory, 'ferretdb.log'),
  })

  const secrets = ensureClusterSecrets(dataDir)
  const plan = planCluster({
    dataDir,
    ports: { gateway, admin, paymentCommand, chainIndexer, projection, notifier, metrics },
    kafkaBrokers: kafka.brokers,
    mongodbUrl: ferret.url,
    secrets,
    walletFile: ensureClusterWallet(dataDir),
    logLevel: process.env.BENCH_LOG_LEVEL ?? 'warn',
    blockIntervalMs: { TRON: tronBlockMs, SOLANA: SOLANA_BLOCK_MS },
  })
  const { runDirectory, logDirectory } = layout
  mkdirSync(runDirectory, { recursive: true })
  mkdirSync(logDirectory, { recursive: true })
  // in plan order (payment-command first: the gateway's readiness asks it), as scripts/up does
  for (const service of plan.services) {
    const pidFile = join(runDirectory, `${service.name}.pid`)
    const logFile = join(logDirectory, `${service.name}.log`)
    mkdirSync(service.dataDir, { recursive: true })
    // the load would otherwise meet the gateway's per-key rate limit, not its capacity, and with
    // BENCH_CONNECTIONS above 100 its cap of connections per address (one load generator)
    const extra =
      service.name === 'gateway'
        ? { RATE_LIMIT_MAX: '100000000', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '1000' }
        : {}
    cleanups.push({ name: service.name, run: () => stopPidFile(pidFile, 'SIGTERM') })
    const started = startDetached({
      command: process.execPath,
      args: [service.mainScript],
      env: {
        PATH: process.env.PATH ?? '',
        ...service.env,
        ...extra,
        ...mongoTraceEnv(logDirectory, service.name),
      },
      logFile,
      pidFile,
    })
    startedPids.push(started.pid)
    watchedProcesses.push({ name: service.name, pid: started.pid, logFile })
    await waitUntil(
      async () => {
        const response = await fetch(service.readyUrl)
        await response.body?.cancel()
        return response.status === 200
      },
      {
        timeoutMs: READY_TIMEOUT_MS,
        giveUpIf: () => !isAlive(started.pid),
        describe: () => `${service.name} did not become ready; last lines of ${logFile}:\n${tail(logFile)}`,
      },
    )
    out(`${service.name} is ready (pid ${started.pid})`)
  }
  // the demo merchant, as scripts/up creates it; the benchmark reads its credentials from the file
  const created = await createMerchant(plan.urls.admin, secrets.adminToken, { name: 'Demo merchant' })
  writeDemoMerchant(dataDir, { ...created, merchantId: created.merchant.merchantId })
  const credentials = JSON.parse(readFileSync(join(dataDir, clusterFiles.demoMerchant), 'utf8'))
  return {
    plan,
    kafka,
    ferret,
    credentials,
    chainDatabase: join(dataDir, 'chain-indexer', 'chainpay.sqlite'),
    mongoTraces: plan.services.map(({ name }) => ({ name, file: mongoTraceFile(logDirectory, name) })),
  }
}

// ---- the raw floor: Kafka round trip ----
async function kafkaRoundTrip(brokers) {
  const kafka = new Kafka({ clientId: 'bench-floor', brokers: [brokers], logLevel: kafkaLogLevel.NOTHING })
  const topic = `bench-round-trip-${process.pid}`
  const admin = kafka.admin()
  await admin.connect()
  // as the bus creates its topics: six partitions
  await admin.createTopics({ topics: [{ topic, numPartitions: 6 }], waitForLeaders: true })
  await admin.disconnect()
  // the bus's settings: idempotent, one request in flight, acks from all in-sync replicas; a group
  // consumer whose idle fetch waits 1 s at the broker
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  })
  const consumer = kafka.consumer({ groupId: `bench-round-trip-${process.pid}`, maxWaitTimeInMs: 1000 })
  cleanups.push({
    name: 'kafkajs clients',
    run: () => Promise.all([producer.disconnect(), consumer.disconnect()]),
  })
  await producer.connect()
  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  const waiting = new Map()
  let assigned
  const joined = new Promise((resolve) => {
    assigned = resolve
  })
  consumer.on(consumer.events.GROUP_JOIN, () => assigned())
  await consumer.run({
    eachMessage: async ({ message }) => {
      const arrived = performance.now()
      waiting.get(String(message.value))?.(arrived)
    },
  })
  await joined
  const samples = []
  const warmUp = 20
  for (let i = 0; i < warmUp + kafkaMessages; i++) {
    const value = `m${i}`
    const received = new Promise((resolve) => waiting.set(value, resolve))
    const sent = performance.now()
    await producer.send({ topic, acks: -1, messages: [{ key: `k${i}`, value }] })
    const arrived = await received
    waiting.delete(value)
    if (i >= warmUp) samples.push(arrived - sent)
  }
  return summarize(samples)
}

// ---- the raw floor: MongoDB-wire operations on the same FerretDB database the services use ----
/** runs `operation` with `connections` in flight for `duration` seconds */
async function concurrently(operation) {
  const samples = []
  const until = performance.now() + duration * 1000
  let n = 0
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const started = performance.now()
        await operation(n++)
        samples.push(performance.now() - started)
      }
    }),
  )
  return { ...summarize(samples), rps: Math.round(samples.length / duration) }
}

async function bareFindOne(database, ids) {
  const payments = database.collection('payments_read')
  for (const id of ids.slice(0, 20)) await payments.findOne({ _id: id })
  const sequential = []
  for (let i = 0; i < findOneSequential; i++) {
    const started = performance.now()
    const found = await payments.findOne({ _id: ids[i % ids.length] })
    sequential.push(performance.now() - started)
    if (!found) throw new Error(`findOne did not find ${ids[i % ids.length]}`)
  }
  // as many in flight as autocannon has connections, for the same time
  const concurrent = await concurrently((i) => payments.findOne({ _id: ids[i % ids.length] }))
  return { sequential: summarize(sequential), concurrent }
}

/** what a create's writes stand on: a small document inserted by _id, into the services' database */
async function bareInsertOne(database) {
  const scratch = database.collection(`bench_floor_${process.pid}`)
  try {
    return await concurrently((i) => scratch.insertOne({ _id: `bench-${i}`, at: new Date().toISOString() }))
  } finally {
    await scratch.drop()
  }
}

/** FerretDB's own command counters (serverStatus), summed: what all the services asked of it */
async function ferretCommands(client) {
  const { metrics } = await client.db('admin').command({ serverStatus: 1 })
  const counts = {}
  for (const [command, { total }] of Object.entries(metrics.commands)) counts[command] = Number(total)
  return counts
}

// ---- confirmation → webhook ----
async function startReceiver() {
  const confirmed = new Map()
  const server = createServer((request, response) => {
    const arrived = Date.now()
    const chunks = []
    request.on('data', (chunk) => chunks.push(chunk))
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      if (body.event === 'payment.confirmed' && !confirmed.has(body.payment.id)) {
        confirmed.set(body.payment.id, { arrived, txHash: body.payment.tx_hash })
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push({ name: 'webhook receiver', run: () => new Promise((resolve) => server.close(resolve)) })
  return { url: `http://127.0.0.1:${server.address().port}/webhooks`, confirmed }
}

/**
 * When each payment event went on the bus: a consumer group of the benchmark's own on the payment
 * events topic, from its end, noting each message's Kafka timestamp (the relay's producer sets it
 * when it sends). Gives the moment payment-command's relay published PaymentConfirmed, and how many
 * events each payment put on the bus during the phase (what the consumers fold before the webhook).
 */
async function paymentEventWatcher(brokers) {
  const kafka = new Kafka({ clientId: 'bench-events', brokers: [brokers], logLevel: kafkaLogLevel.NOTHING })
  const consumer = kafka.consumer({ groupId: `bench-events-${process.pid}`, maxWaitTimeInMs: 100 })
  cleanups.push({ name: 'kafkajs payment event watcher', run: () => consumer.disconnect() })
  const confirmedPublishedAt = new Map()
  const eventsPerPayment = new Map()
  let joined
  const ready = new Promise((resolve) => {
    joined = resolve
  })
  consumer.on(consumer.events.GROUP_JOIN, () => joined())
  await consumer.connect()
  await consumer.subscribe({ topics: [PAYMENT_EVENTS_TOPIC], fromBeginning: false })
  await consumer.run({
    eachMessage: async ({ message }) => {
      const event = JSON.parse(String(message.value))
      eventsPerPayment.set(event.paymentId, (eventsPerPayment.get(event.paymentId) ?? 0) + 1)
      if (event.type === 'PaymentConfirmed' && !confirmedPublishedAt.has(event.paymentId)) {
        confirmedPublishedAt.set(event.paymentId, Number(message.timestamp))
      }
    },
  })
  await ready
  return {
    confirmedPublishedAt,
    eventsPerPayment,
    stop: () => consumer.disconnect(),
  }
}

async function confirmationToWebhook(cluster, database) {
  const { plan, credentials, chainDatabase } = cluster
  const required = defaultAssetRegistry.networks.find((n) => n.network === 'TRON').requiredConfirmations
  const receiver = await startReceiver()
  const payments = []
  for (let i = 0; i < webhookPayments; i++) {
    payments.push(await createPayment(plan.urls.gateway, credentials, { callbackUrl: receiver.url }))
  }
  const events = await paymentEventWatcher(cluster.kafka.brokers)
  // One payment at a time: each confirmation a transfer gains is an observation, an event and a bus
  // message per consumer, so transfers confirming side by side would measure the pipeline's backlog
  // at this unrealistically short block interval rather than its latency.
  const txHashes = new Map()
  const window = { from: Date.now(), to: 0 }
  for (const payment of payments) {
    const response = await fetch(`${plan.urls.chainSimulator}/dev/chains/TRON/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: payment.generatedAddress, amount: payment.amount, currency: 'USDT' }),
    })
    if (response.status !== 201)
      throw new Error(`transfer answered ${response.status}: ${await response.text()}`)
    txHashes.set(payment.paymentId, (await response.json()).txHash)
    const deadline = Date.now() + 60_000
    while (!receiver.confirmed.has(payment.paymentId)) {
      if (Date.now() > deadline) throw new Error(`no payment.confirmed webhook for ${payment.paymentId}`)
      await sleep(5)
    }
  }
  window.to = Date.now()
  await waitUntil(async () => events.confirmedPublishedAt.size >= payments.length, {
    timeoutMs: 30_000,
    describe: () => 'the benchmark did not see every PaymentConfirmed on the bus',
  })
  await events.stop()
  // the chain's own record: the block holding the transfer, and the time of the block that gave it
  // its required confirmations (confirmations = head - height + 1)
  const chain = new DatabaseSync(chainDatabase, { readOnly: true })
  try {
    // one row per transfer in sim_transfers (packages/chain-sim's simulator store); all of a
    // transaction's transfers are in its block
    const heightOf = chain.prepare(
      "SELECT block_height FROM sim_transfers WHERE network = 'TRON' AND tx_hash = ? LIMIT 1",
    )
    const timeOf = chain.prepare("SELECT time FROM sim_blocks WHERE network = 'TRON' AND height = ?")
    const heights = new Set()
    // when the notifier recorded each delivery (its createdAt) and when the dispatcher began its
    // first attempt (the attempt's `at`): two scans, after the measurement
    const recorded = new Map()
    const confirmedDeliveries = database
      .collection('webhook_deliveries')
      .find({ eventType: 'payment.confirmed' }, { projection: { paymentId: 1, createdAt: 1 } })
    for await (const { _id, paymentId, createdAt } of confirmedDeliveries)
      recorded.set(paymentId, { deliveryId: _id, at: Date.parse(createdAt) })
    const attemptedAt = new Map()
    // the dispatcher records an attempt once its answer is in: the last one may lag the arrival
    await waitUntil(
      async () => {
        const firstAttempts = database
          .collection('webhook_attempts')
          .find(
            { deliveryId: { $in: [...recorded.values()].map(({ deliveryId }) => deliveryId) }, attempt: 1 },
            { projection: { deliveryId: 1, at: 1 } },
          )
        for await (const { deliveryId, at } of firstAttempts) attemptedAt.set(deliveryId, Date.parse(at))
        return attemptedAt.size >= recorded.size
      },
      { timeoutMs: 30_000, describe: () => 'the dispatcher did not record every first attempt' },
    )
    const legs = {
      total: [],
      toDecision: [],
      decisionToBus: [],
      busToRecorded: [],
      decisionToRecorded: [],
      recordedToAttempt: [],
      attemptToWebhook: [],
      recordedToWebhook: [],
    }
    /** per payment, the moments that bound the legs whose time FerretDB's share is read for */
    const intervals = []
    for (const { paymentId } of payments) {
      const txHash = txHashes.get(paymentId)
      const webhook = receiver.confirmed.get(paymentId)
      if (webhook.txHash !== txHash)
        throw new Error(`webhook of ${paymentId} names ${webhook.txHash}, paid ${txHash}`)
      const height = Number(heightOf.get(txHash).block_height)
      heights.add(height)
      const finalBlockAt = Date.parse(timeOf.get(height + required - 1).time)
      // confirmedAt is payment-command's clock when it decided: splits the path in two
      const decidedAt = Date.parse((await getPayment(plan.urls.gateway, credentials, paymentId)).confirmedAt)
      const onBusAt = events.confirmedPublishedAt.get(paymentId)
      const { deliveryId, at: recordedAt } = recorded.get(paymentId)
      const attemptAt = attemptedAt.get(deliveryId)
      legs.total.push(webhook.arrived - finalBlockAt)
      legs.toDecision.push(decidedAt - finalBlockAt)
      legs.decisionToBus.push(onBusAt - decidedAt)
      legs.busToRecorded.push(recordedAt - onBusAt)
      legs.decisionToRecorded.push(recordedAt - decidedAt)
      legs.recordedToAttempt.push(attemptAt - recordedAt)
      legs.attemptToWebhook.push(webhook.arrived - attemptAt)
      legs.recordedToWebhook.push(webhook.arrived - recordedAt)
      intervals.push({
        toDecision: [finalBlockAt, decidedAt],
        busToRecorded: [onBusAt, recordedAt],
        recordedToAttempt: [recordedAt, attemptAt],
      })
    }
    const perPayment = payments.map(({ paymentId }) => events.eventsPerPayment.get(paymentId) ?? 0)
    return {
      ...summarize(legs.total),
      ...Object.fromEntries(
        Object.entries(legs)
          .filter(([name]) => name !== 'total')
          .map(([name, samples]) => [name, summarize(samples)]),
      ),
      eventsPerPayment: perPayment.reduce((a, b) => a + b, 0) / perPayment.length,
      window,
      intervals,
      required,
      distinctBlocks: heights.size,
    }
  } finally {
    chain.close()
  }
}

/** each service's MongoDB commands (scripts/bench/mongo-command-trace.cjs): { at, command, collection, ms } */
function readMongoTraces(traces) {
  const byService = new Map()
  for (const { name, file } of traces) {
    let text = ''
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      // a service that never reached MongoDB has no trace
    }
    byService.set(
      name,
      text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)),
    )
  }
  return byService
}

/**
 * What the services asked of FerretDB between `from` and `to`: per service, command and collection,
 * how many per second, FerretDB's answer time p50 and p99, and the share of the window the service
 * spent waiting on that command (its answer times summed over the window; over 100 % when several
 * were in flight at once). Largest share first, those of at least 1 %.
 */
function ferretTimeByService(commandsByService, { from, to }) {
  const seconds = (to - from) / 1000
  const groups = new Map()
  for (const [service, commands] of commandsByService) {
    for (const { at, command, collection, ms: took } of commands) {
      if (at < from || at > to) continue
      const key = `${service}\t${command} ${collection}`.trim()
      if (!groups.has(key)) groups.set(key, [])
      groups.get(key).push(took)
    }
  }
  return [...groups.entries()]
    .map(([key, samples]) => {
      const [service, what] = key.split('\t')
      const busy = samples.reduce((a, b) => a + b, 0) / (seconds * 1000)
      return { service, what, perSecond: samples.length / seconds, ...summarize(samples), busy }
    })
    .filter(({ busy }) => busy >= 0.01)
    .sort((a, b) => b.busy - a.busy)
}

/** the component whose FerretDB commands lie on each leg's path, and which of its commands those are */
const LEG_COMMANDS = [
  {
    key: 'toDecision',
    label: "block → decision: the chain-indexer's writes (its cursor, the transfers it follows)",
    service: 'chain-indexer',
    ours: () => true,
  },
  {
    key: 'busToRecorded',
    label: "on the bus → recorded: the notifier's delivery recorder (its copy of the payment, the delivery)",
    service: 'notifier',
    ours: ({ command, collection }) =>
      collection === 'notifier_payments' || (collection === 'webhook_deliveries' && command === 'insert'),
  },
  {
    key: 'recordedToAttempt',
    label: "recorded → attempt: the notifier's dispatcher claiming (due query, first in line, lease)",
    service: 'notifier',
    ours: ({ command, collection }) =>
      collection === 'webhook_leases' || (collection === 'webhook_deliveries' && command !== 'insert'),
  },
]

/**
 * How much of each leg was the component on its path waiting for FerretDB: per payment, the time
 * within the leg during which at least one of the component's commands was unanswered. The rest of
 * the leg is everything else: the process itself, Kafka, the HTTP request, rests between polls.
 */
function ferretShareOfLegs(commandsByService, intervals) {
  return LEG_COMMANDS.map(({ key, label, service, ours }) => {
    const commands = (commandsByService.get(service) ?? []).filter(ours)
    const waited = []
    let legTotal = 0
    for (const interval of intervals) {
      const [from, to] = interval[key]
      legTotal += Math.max(0, to - from)
      // the union of the commands' spans, clipped to the leg
      const spans = commands
        .map(({ at, ms: took }) => [Math.max(at, from), Math.min(at + took, to)])
        .filter(([start, end]) => end > start)
        .sort((a, b) => a[0] - b[0])
      let covered = 0
      let reached = from
      for (const [start, end] of spans) {
        if (end <= reached) continue
        covered += end - Math.max(start, reached)
        reached = end
      }
      waited.push(covered)
    }
    const waitedTotal = waited.reduce((a, b) => a + b, 0)
    return { key, label, waited: summarize(waited), share: legTotal > 0 ? waitedTotal / legTotal : 0 }
  })
}

/**
 * MongoDB commands per unit of work (a create, a confirmed payment), per service and per command
 * and collection, from the command traces: those started within `window`, less what the service
 * sends idle over as long (its rate within `idle`), divided by `units`.
 */
function commandsPerUnit(commandsByService, window, idle, units) {
  const seconds = (window.to - window.from) / 1000
  const idleSeconds = (idle.to - idle.from) / 1000
  const rows = []
  for (const [service, commands] of commandsByService) {
    const counts = new Map()
    for (const { at, command, collection } of commands) {
      const key = `${command} ${collection}`
      const entry = counts.get(key) ?? { during: 0, idle: 0 }
      if (at >= window.from && at < window.to) entry.during += 1
      if (at >= idle.from && at < idle.to) entry.idle += 1
      counts.set(key, entry)
    }
    const byCommand = [...counts]
      .map(([what, { during, idle: idleCount }]) => [
        what,
        Math.max(0, (during - (idleCount / idleSeconds) * seconds) / units),
      ])
      .filter(([, perUnit]) => perUnit >= 0.05)
      .sort((a, b) => b[1] - a[1])
    rows.push({ service, total: byCommand.reduce((sum, [, perUnit]) => sum + perUnit, 0), byCommand })
  }
  return rows.sort((a, b) => b.total - a.total)
}

function printCommandsPerUnit(title, rows) {
  out(`\n${title}\n`)
  out('| service | commands | of which |\n|---|---|---|')
  for (const { service, total, byCommand } of rows) {
    const detail = byCommand.map(([what, perUnit]) => `${what} ${perUnit.toFixed(1)}`).join(', ')
    out(`| ${service} | ${total.toFixed(1)} | ${detail} |`)
  }
  out(`| all | ${rows.reduce((sum, row) => sum + row.total, 0).toFixed(1)} | |`)
}

// ---- bus lag: how far the consumers, in their own processes, are behind what was published ----
async function busLagMonitor(brokers) {
  const kafka = new Kafka({ clientId: 'bench-lag', brokers: [brokers], logLevel: kafkaLogLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  cleanups.push({ name: 'kafkajs admin', run: () => admin.disconnect() })
  const lag = async () => {
    const { groups } = await admin.listGroups()
    let behind = 0
    for (const { groupId } of groups) {
      if (groupId.startsWith('bench-')) continue
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
        const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]))
        for (const { partition, offset } of partitions) {
          const committed = BigInt(offset) < 0n ? 0n : BigInt(offset)
          behind += Number((ends.get(partition) ?? 0n) - committed)
        }
      }
    }
    return behind
  }
  /** messages on the payment events topic so far (its high watermarks, summed) */
  const paymentEvents = async () => {
    let total = 0
    for (const topic of await admin.listTopics()) {
      if (!topic.endsWith(PAYMENT_EVENTS_TOPIC)) continue
      for (const { high } of await admin.fetchTopicOffsets(topic)) total += Number(high)
    }
    return total
  }
  return {
    lag,
    paymentEvents,
    /** waits until the consumer groups have caught up (all but CAUGHT_UP_LAG); the seconds it took */
    async settle(what) {
      const started = Date.now()
      for (;;) {
        if ((await lag()) <= CAUGHT_UP_LAG) return (Date.now() - started) / 1000
        if (Date.now() - started > 180_000) throw new Error(`the bus consumers did not catch up ${what}`)
        await sleep(250)
      }
    },
  }
}

/** counters spent per unit of work, less the idle rate over the same time */
function costPer(units, idleFrom, idleTo, from, to) {
  const idleSeconds = (idleTo.at - idleFrom.at) / 1000
  const seconds = (to.at - from.at) / 1000
  const net = (before, after, idleBefore, idleAfter) =>
    Math.max(0, (after - before - ((idleAfter - idleBefore) / idleSeconds) * seconds) / units)
  const commands = Object.keys(to.ferret)
  const byCommand = commands
    .map((command) => [
      command,
      net(
        from.ferret[command] ?? 0,
        to.ferret[command],
        idleFrom.ferret[command] ?? 0,
        idleTo.ferret[command] ?? 0,
      ),
    ])
    .filter(([, count]) => count >= 0.1)
    .sort((a, b) => b[1] - a[1])
  return {
    ferret: byCommand.reduce((sum, [, count]) => sum + count, 0),
    ferretByCommand: byCommand.map(([command, count]) => `${command} ${count.toFixed(1)}`).join(', '),
    paymentEvents: net(from.paymentEvents, to.paymentEvents, idleFrom.paymentEvents, idleTo.paymentEvents),
  }
}

// ---- a process the run needs that dies ends the run, saying which and why ----
const deathWatch = setInterval(() => {
  if (cleaning !== undefined) return
  const dead = watchedProcesses.find(({ pid }) => pid !== null && !isAlive(pid))
  if (dead === undefined) return
  clearInterval(deathWatch)
  process.stderr.write(
    `distributed benchmark failed: ${dead.name} (pid ${dead.pid}) died; last lines of ${dead.logFile}:\n${tail(dead.logFile)}\n`,
  )
  void cleanUp().then(() => process.exit(1))
}, 500)
deathWatch.unref()

// ---- standalone's creates, in the same run: what the distributed shape is set against ----
/**
 * The same create load on standalone (one process on SQLite, SQLITE_SYNCHRONOUS as given, FULL by
 * default), run before the cluster starts so that each has the machine to itself.
 */
async function standaloneCreates() {
  const directory = mkdtempSync(join(tmpdir(), 'chainpay-bench-standalone-'))
  cleanups.push({
    name: 'standalone data',
    run: async () => rmSync(directory, { recursive: true, force: true }),
  })
  const [port, admin, metrics] = await Promise.all([1, 2, 3].map(() => freeLoopbackPort()))
  const pidFile = join(directory, 'standalone.pid')
  const logFile = join(directory, 'standalone.log')
  cleanups.push({ name: 'standalone', run: () => stopPidFile(pidFile, 'SIGTERM') })
  const started = startDetached({
    command: process.execPath,
    args: [join(root, 'services/standalone/dist/main.js')],
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      ADMIN_PORT: String(admin),
      METRICS_PORT: String(metrics),
      HOST: '127.0.0.1',
      DATA_DIR: join(directory, 'data'),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_MAX: '100000000',
      ...(process.env.SQLITE_SYNCHRONOUS ? { SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS } : {}),
    },
    logFile,
    pidFile,
  })
  startedPids.push(started.pid)
  const base = `http://127.0.0.1:${port}`
  await waitUntil(async () => (await fetch(`${base}/readyz`)).status === 200, {
    timeoutMs: READY_TIMEOUT_MS,
    giveUpIf: () => !isAlive(started.pid),
    describe: () => `standalone did not become ready; last lines of ${logFile}:\n${tail(logFile)}`,
  })
  const credentials = JSON.parse(readFileSync(join(directory, 'data', 'demo-merchant.json'), 'utf8'))
  let n = 0
  const row = await load('standalone POST /payments (same run, before the cluster)', base, () => {
    const path = '/api/merchant/v1/payments'
    const body = JSON.stringify({
      amount: '10.5',
      currency: 'USDT',
      network: 'TRON',
      idempotencyKey: `standalone-${n++}`,
    })
    return { method: 'POST', path, body, headers: signed(credentials, 'POST', path, body) }
  })
  await stopPidFile(pidFile, 'SIGTERM')
  return row
}

// ---- the run ----
const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-bench-distributed-'))
if (!process.env.BENCH_KEEP_DATA)
  cleanups.push({
    name: 'data directory',
    run: async () => rmSync(dataDir, { recursive: true, force: true }),
  })
let exitCode = 0
// the figures mean little on a machine that is busy with something else: say how busy it was
const loadBefore = loadavg()[0].toFixed(2)
if (loadavg()[0] > 0.5)
  out(`note: the machine is not idle (load average ${loadBefore}); figures will be lower`)
try {
  const standaloneCreate = await standaloneCreates()
  const cluster = await startCluster(dataDir)
  const { plan, credentials } = cluster
  const base = plan.urls.gateway

  // payments to read back (and to find by _id)
  const ids = []
  for (let i = 0; i < readTargets; i += 8) {
    const batch = await Promise.all(Array.from({ length: 8 }, () => createPayment(base, credentials, {})))
    ids.push(...batch.map((p) => p.paymentId))
  }
  // every phase starts with the consumers caught up, so that none measures the previous one's backlog
  const bus = await busLagMonitor(cluster.kafka.brokers)
  await bus.settle('after the first creates')
  out('\nfloor: kafkajs produce→consume round trip')
  const kafkaFloor = await accounted('Kafka round trip floor', () => kafkaRoundTrip(cluster.kafka.brokers))
  out(`  ${kafkaFloor.count} messages: p50 ${ms(kafkaFloor.p50)} ms, p99 ${ms(kafkaFloor.p99)} ms`)
  const mongo = new MongoClient(cluster.ferret.url)
  cleanups.push({ name: 'mongodb client', run: () => mongo.close() })
  const database = mongo.db('chainpay')
  out('floor: bare findOne by _id on payments_read')
  const findOne = await accounted('findOne floor', () => bareFindOne(database, ids))
  out(`  one at a time: p50 ${ms(findOne.sequential.p50)} ms, p99 ${ms(findOne.sequential.p99)} ms`)
  out(
    `  ${connections} in flight: ${findOne.concurrent.rps} finds/s, p50 ${ms(findOne.concurrent.p50)} ms, p99 ${ms(findOne.concurrent.p99)} ms`,
  )
  out('floor: bare insertOne of a small document')
  const insertOne = await accounted('insertOne floor', () => bareInsertOne(database))
  out(
    `  ${connections} in flight: ${insertOne.rps} inserts/s, p50 ${ms(insertOne.p50)} ms, p99 ${ms(insertOne.p99)} ms`,
  )

  out('\nconfirmation → payment.confirmed webhook')
  await bus.settle('before the webhook phase')
  const webhook = await accounted('webhook phase, one payment at a time', () =>
    confirmationToWebhook(cluster, database),
  )
  out(
    `  ${webhook.count} payments (${webhook.distinctBlocks} blocks), ${webhook.required} confirmations at ${tronBlockMs} ms blocks: p50 ${ms(webhook.p50)} ms, p99 ${ms(webhook.p99)} ms, max ${ms(webhook.max)} ms`,
  )
  for (const { key, label } of WEBHOOK_LEGS) {
    out(`    ${label}: p50 ${ms(webhook[key].p50)} ms, p99 ${ms(webhook[key].p99)} ms`)
  }
  out(
    `    ${webhook.eventsPerPayment.toFixed(1)} payment events per payment on the bus during the phase (each folded by the projection and the notifier)`,
  )
  const commandsByService = readMongoTraces(cluster.mongoTraces)
  const ferretTime = ferretTimeByService(commandsByService, webhook.window)
  const legShares = ferretShareOfLegs(commandsByService, webhook.intervals)
  out('  of which FerretDB answering the component on the path:')
  for (const { key, label, waited, share } of legShares) {
    out(
      `    ${label}: p50 ${ms(waited.p50)} ms, p99 ${ms(waited.p99)} ms of the leg's p50 ${ms(webhook[key].p50)} ms, p99 ${ms(webhook[key].p99)} ms; ${Math.round(share * 100)} % of the leg's time in all`,
    )
  }
  out('  FerretDB during the phase, per service and command (largest share of the phase first):')
  for (const row of ferretTime) {
    out(
      `    ${row.service} ${row.what}: ${row.perSecond.toFixed(1)}/s, p50 ${ms(row.p50)} ms, p99 ${ms(row.p99)} ms, waiting ${Math.round(row.busy * 100)} % of the phase`,
    )
  }

  out('\nthrough the gateway')
  let n = 0
  const getRequest = () => {
    const path = `/api/merchant/v1/payments/${ids[n++ % ids.length]}`
    return { method: 'GET', path, headers: signed(credentials, 'GET', path) }
  }
  const createRequest = () => {
    const path = '/api/merchant/v1/payments'
    const body = JSON.stringify({
      amount: '10.5',
      currency: 'USDT',
      network: 'TRON',
      idempotencyKey: `bench-${process.pid}-${n++}`,
    })
    return { method: 'POST', path, body, headers: signed(credentials, 'POST', path, body) }
  }
  await bus.settle('before the GET load')
  const get = await accounted('GET load', () => load('gateway GET /payments/:id', base, getRequest))
  await bus.settle('before the create load')
  // What one create costs the infrastructure, all services together, until the consumers are done
  // with it: counters after minus before, less what the idle system does in as long (the indexer's
  // cursor and progress every block, the pollers) measured just before.
  const snapshot = async () => ({
    at: Date.now(),
    ferret: await ferretCommands(mongo),
    paymentEvents: await bus.paymentEvents(),
  })
  const idleFrom = await snapshot()
  await accounted('idle, 5 s', () => sleep(5000))
  const idleTo = await snapshot()
  // the payments the load created, whether or not their answer reached autocannon within its timeout
  const paymentsRead = database.collection('payments_read')
  const paymentsBefore = await paymentsRead.countDocuments({})
  const createFrom = await snapshot()
  const create = await accounted('create load', () => load('gateway POST /payments', base, createRequest))
  const lagAtEnd = await bus.lag()
  const drainSeconds = await accounted('after the create load, until the consumers caught up', () =>
    bus.settle('after the create load'),
  )
  const createTo = await snapshot()
  const created = (await paymentsRead.countDocuments({})) - paymentsBefore
  out(
    `  bus lag when the create load stopped: ${lagAtEnd} messages; the consumers caught up ${drainSeconds.toFixed(1)} s later`,
  )
  const perCreate = costPer(created, idleFrom, idleTo, createFrom, createTo)
  out(`  payments created by the load: ${created} (${create.ok} answered 2xx within autocannon's timeout)`)
  out(
    `  per create, all services: ${perCreate.ferret.toFixed(1)} FerretDB commands (${perCreate.ferretByCommand}), ${perCreate.paymentEvents.toFixed(1)} payment events on the bus`,
  )
  // per service, from the command traces: the create load until the consumers caught up, and the
  // webhook phase (each paid payment's confirmations, decision and webhook), both net of idle
  const traced = readMongoTraces(cluster.mongoTraces)
  const idleWindow = { from: idleFrom.at, to: idleTo.at }
  const perCreateByService = commandsPerUnit(
    traced,
    { from: createFrom.at, to: createTo.at },
    idleWindow,
    created,
  )
  const perConfirmationByService = commandsPerUnit(traced, webhook.window, idleWindow, webhook.count)
  const idleSeconds = (idleTo.at - idleFrom.at) / 1000
  const idleRates = Object.keys(idleTo.ferret)
    .map((command) => [command, (idleTo.ferret[command] - (idleFrom.ferret[command] ?? 0)) / idleSeconds])
    .filter(([, rate]) => rate >= 0.1)
    .sort((a, b) => b[1] - a[1])
  out(
    `  the idle system (pollers, the indexer every block) asks FerretDB per second: ${idleRates.map(([command, rate]) => `${command} ${rate.toFixed(1)}`).join(', ')}`,
  )

  // FerretDB v1 on SQLite finds by _id and inserts at a cost independent of the collection's size,
  // but reads the whole collection, secondary index or not, for a filter on any other field, and
  // (measured so) for every update, replace or delete even by _id. Both with filters that match
  // nothing, so that nothing changes.
  const scans = []
  for (const name of ['payments_read', 'notifier_payments', 'webhook_deliveries', 'payment_deadlines']) {
    const collection = database.collection(name)
    const documents = await collection.countDocuments({})
    const filtered = []
    const updated = []
    for (let i = 0; i < 10; i++) {
      let started = performance.now()
      await collection.findOne({ benchNoSuchField: 'no match' })
      filtered.push(performance.now() - started)
      started = performance.now()
      await collection.updateOne({ _id: 'bench-no-such-document' }, { $set: { benchNoSuchField: 1 } })
      updated.push(performance.now() - started)
    }
    scans.push({ name, documents, filter: summarize(filtered), update: summarize(updated) })
  }
  const paymentDocumentBytes = JSON.stringify(
    await database.collection('payments_read').findOne({ _id: ids[0] }),
  ).length
  const perDocument = (latency, documents) => `${((latency / documents) * 1000).toFixed(0)} µs per document`
  for (const { name, documents, filter, update } of scans) {
    out(
      `  ${name} (${documents} documents): a filter on another field p50 ${ms(filter.p50)} ms (${perDocument(filter.p50, documents)}); updateOne by _id p50 ${ms(update.p50)} ms (${perDocument(update.p50, documents)})`,
    )
  }
  out(`  one payment in payments_read is ${paymentDocumentBytes} bytes as JSON`)

  const pct = (a, b) => `${Math.round((a / b) * 100)} %`
  const x = (a, b) => `${(a / b).toFixed(1)} ×`
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  out(
    `\nmachine: ${machine}; Kafka ${KAFKA_VERSION}, FerretDB ${FERRETDB_VERSION} (${ferretBackend} backend); date: ${new Date().toISOString().slice(0, 10)}`,
  )
  out(
    `${connections} connections / in flight, ${duration} s per load row; TRON blocks every ${tronBlockMs} ms; load generator on the same cores`,
  )
  out(`1-minute load average before the start: ${loadBefore}\n`)
  out('| run | per s | p50 ms | p99 ms |\n|---|---|---|---|')
  out(`| floor: kafkajs produce→consume, one at a time | | ${ms(kafkaFloor.p50)} | ${ms(kafkaFloor.p99)} |`)
  out(
    `| floor: findOne by _id, one at a time | | ${ms(findOne.sequential.p50)} | ${ms(findOne.sequential.p99)} |`,
  )
  out(
    `| floor: findOne by _id, ${connections} in flight | ${findOne.concurrent.rps} | ${ms(findOne.concurrent.p50)} | ${ms(findOne.concurrent.p99)} |`,
  )
  out(
    `| floor: insertOne, ${connections} in flight | ${insertOne.rps} | ${ms(insertOne.p50)} | ${ms(insertOne.p99)} |`,
  )
  out(`| ${get.title} | ${get.rps} | ${get.p50} | ${get.p99} |`)
  out(`| ${create.title} | ${create.rps} | ${create.p50} | ${create.p99} |`)
  out(
    `| ${standaloneCreate.title} | ${standaloneCreate.rps} | ${standaloneCreate.p50} | ${standaloneCreate.p99} |`,
  )
  out(
    `| confirmation block → payment.confirmed webhook (${webhook.count} payments) | | ${ms(webhook.p50)} | ${ms(webhook.p99)} |`,
  )
  for (const { key, label } of WEBHOOK_LEGS) {
    out(`| … of which ${label} | | ${ms(webhook[key].p50)} | ${ms(webhook[key].p99)} |`)
  }
  for (const { name, documents, filter, update } of scans) {
    out(
      `| floor: updateOne by _id, ${name} (${documents} documents, after the create load) | | ${ms(update.p50)} | ${ms(update.p99)} |`,
    )
    out(
      `| floor: a filter on another field, ${name} (${documents} documents, after the create load) | | ${ms(filter.p50)} | ${ms(filter.p99)} |`,
    )
  }
  out('\n| ratio | value |\n|---|---|')
  out(`| gateway GET throughput / bare findOne throughput | ${pct(get.rps, findOne.concurrent.rps)} |`)
  out(
    `| gateway GET p50 / bare findOne p50 (both ${connections} in flight) | ${x(get.p50, findOne.concurrent.p50)} |`,
  )
  out(`| gateway create throughput / gateway GET throughput | ${pct(create.rps, get.rps)} |`)
  out(
    `| distributed create throughput / standalone's (${standaloneCreate.rps}/s, same run) | ${pct(create.rps, standaloneCreate.rps)} |`,
  )
  out(`| gateway create throughput / bare insertOne throughput | ${pct(create.rps, insertOne.rps)} |`)
  out(`| FerretDB commands per create (all services, net of idle) | ${perCreate.ferret.toFixed(1)} |`)
  out(`| webhook latency p50 / Kafka round trip p50 | ${x(webhook.p50, kafkaFloor.p50)} |`)
  out(`| webhook latency p99 / Kafka round trip p99 | ${x(webhook.p99, kafkaFloor.p99)} |`)
  const processNames = [
    ...(ferretBackend === 'postgresql' ? ['postgresql'] : []),
    'ferretdb',
    'kafka',
    'gateway',
    'payment-command',
    'projection',
    'notifier',
    'chain-indexer',
    LOAD_GENERATOR,
  ]
  out(
    "\nHow much of each leg FerretDB took, answering the component on the leg's path (per payment: the time within the leg during which one of its commands was unanswered)\n",
  )
  out(
    '| leg, and the component on its path | leg p50 ms | leg p99 ms | FerretDB p50 ms | FerretDB p99 ms | FerretDB, % of the leg in all |\n|---|---|---|---|---|---|',
  )
  for (const { key, label, waited, share } of legShares) {
    out(
      `| ${label} | ${ms(webhook[key].p50)} | ${ms(webhook[key].p99)} | ${ms(waited.p50)} | ${ms(waited.p99)} | ${Math.round(share * 100)} |`,
    )
  }
  out(
    `\nFerretDB commands during the confirmation → webhook phase (${((webhook.window.to - webhook.window.from) / 1000).toFixed(0)} s), by service: answer times, and the time waited on them as a share of the phase\n`,
  )
  out('| service | command | per s | p50 ms | p99 ms | waiting, % of the phase |\n|---|---|---|---|---|---|')
  for (const row of ferretTime) {
    out(
      `| ${row.service} | ${row.what} | ${row.perSecond.toFixed(1)} | ${ms(row.p50)} | ${ms(row.p99)} | ${Math.round(row.busy * 100)} |`,
    )
  }
  printCommandsPerUnit(
    'MongoDB commands per create, by service (command traces; from the create load until the consumers caught up, net of idle)',
    perCreateByService,
  )
  printCommandsPerUnit(
    'MongoDB commands per paid payment, by service (command traces; the confirmation → webhook phase: its transfer, confirmations, decision and webhook, net of idle)',
    perConfirmationByService,
  )
  out('\nCPU, % of one core (the machine has two: 200 % in all)\n')
  out(
    `| phase | ${processNames.join(' | ')} | anything else | machine |\n|---|${processNames.map(() => '---|').join('')}---|---|`,
  )
  for (const { phase, shares } of cpuPhases) {
    const ours = processNames.reduce((sum, name) => sum + shares[name], 0)
    const cells = processNames.map((name) => shares[name].toFixed(0)).join(' | ')
    out(
      `| ${phase} | ${cells} | ${Math.max(0, shares.machine - ours).toFixed(0)} | ${shares.machine.toFixed(0)} |`,
    )
  }
} catch (error) {
  exitCode = 1
  process.stderr.write(`distributed benchmark failed: ${error instanceof Error ? error.stack : error}\n`)
} finally {
  clearInterval(deathWatch)
  await cleanUp()
  const left = startedPids.filter((pid) => pid !== null && isAlive(pid))
  out(left.length === 0 ? '\nstopped everything it started' : `\nSTILL RUNNING: pids ${left.join(', ')}`)
  if (left.length > 0) exitCode = 1
}
process.exit(exitCode)
