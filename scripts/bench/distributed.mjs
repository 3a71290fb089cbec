// Distributed benchmark: the five services as separate processes on their own Apache Kafka and
// FerretDB, started here with the project's own code (planCluster, startKafka, startFerretDb, as
// scripts/up does, but with a short simulated TRON block interval). In one run it measures create and
// GET through the gateway, the latency from the block that gives a transfer its required
// confirmations to the payment.confirmed webhook, and the floor of the infrastructure underneath: a
// kafkajs produce→consume round trip and a bare findOne by _id on the same FerretDB. Prints the
// figures and the markdown for docs/benchmarks.md. Not a test: it asserts nothing. It stops
// everything it started, also when it fails or is interrupted.
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { cpus, tmpdir, totalmem } from 'node:os'
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
  writeDemoMerchant,
} from '../../packages/local-cluster/dist/index.js'
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
import { apiAuthHeaders } from '../../packages/signing/dist/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
// the same kafkajs (with the project's patch) and mongodb driver the adapters use
const { Kafka, logLevel: kafkaLogLevel, Partitioners } = createRequire(
  join(root, 'packages/bus-kafka/package.json'),
)('kafkajs')
const { MongoClient } = createRequire(join(root, 'packages/store-mongo/package.json'))('mongodb')

const duration = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16)
const webhookPayments = Number(process.env.BENCH_WEBHOOK_PAYMENTS ?? 50)
const kafkaMessages = Number(process.env.BENCH_KAFKA_MESSAGES ?? 500)
const tronBlockMs = Number(process.env.BENCH_TRON_BLOCK_MS ?? 50)
/** payments are paid one every few blocks, so that each reaches its confirmations in a block of its own */
const payEveryMs = tronBlockMs * 3
const readTargets = 200
const findOneSequential = 1000
const SOLANA_BLOCK_MS = 400
const READY_TIMEOUT_MS = 90_000

const out = (line = '') => process.stdout.write(`${line}\n`)

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
  return { count: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) }
}
const ms = (value) => (value >= 10 ? value.toFixed(0) : value.toFixed(1))

// ---- HTTP helpers ----
function signed(credentials, method, path, body = '') {
  const headers = apiAuthHeaders(credentials, { method, path, body }, Date.now())
  if (body) headers['content-type'] = 'application/json'
  return headers
}

async function createPayment(base, credentials, fields) {
  const path = '/api/merchant/v1/payments'
  const body = JSON.stringify({ amount: '10.5', currency: 'USDT', network: 'TRON', ...fields })
  const response = await fetch(base + path, { method: 'POST', body, headers: signed(credentials, 'POST', path, body) })
  if (response.status !== 201) throw new Error(`create answered ${response.status}: ${await response.text()}`)
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
async function startCluster(dataDir) {
  const [gateway, admin, paymentCommand, chainIndexer, projection, notifier, kafkaPort, controllerPort, ferretPort] =
    await Promise.all(Array.from({ length: 9 }, () => freeLoopbackPort()))
  const servers = join(dataDir, 'servers')
  out(`starting Apache Kafka ${KAFKA_VERSION} on 127.0.0.1:${kafkaPort}`)
  const kafkaDirectory = join(servers, 'kafka')
  cleanups.push({ name: 'kafka', run: () => stopPidFile(join(kafkaDirectory, 'kafka.pid'), 'SIGTERM') })
  const kafka = await startKafka({ directory: kafkaDirectory, port: kafkaPort, controllerPort })
  startedPids.push(readPid(join(kafkaDirectory, 'kafka.pid')))
  out(`starting FerretDB ${FERRETDB_VERSION} on 127.0.0.1:${ferretPort}`)
  const ferretDirectory = join(servers, 'ferretdb')
  cleanups.push({ name: 'ferretdb', run: () => stopPidFile(join(ferretDirectory, 'ferretdb.pid'), 'SIGTERM') })
  const ferret = await startFerretDb({ directory: ferretDirectory, port: ferretPort })
  startedPids.push(readPid(join(ferretDirectory, 'ferretdb.pid')))

  const secrets = ensureClusterSecrets(dataDir)
  const plan = planCluster({
    dataDir,
    ports: { gateway, admin, paymentCommand, chainIndexer, projection, notifier },
    kafkaBrokers: kafka.brokers,
    mongodbUrl: ferret.url,
    secrets,
    walletFile: ensureClusterWallet(dataDir),
    logLevel: 'warn',
    blockIntervalMs: { TRON: tronBlockMs, SOLANA: SOLANA_BLOCK_MS },
  })
  const runDirectory = join(dataDir, 'run')
  const logDirectory = join(dataDir, 'logs')
  mkdirSync(runDirectory, { recursive: true })
  mkdirSync(logDirectory, { recursive: true })
  // in plan order (payment-command first: the gateway's readiness asks it), as scripts/up does
  for (const service of plan.services) {
    const pidFile = join(runDirectory, `${service.name}.pid`)
    const logFile = join(logDirectory, `${service.name}.log`)
    mkdirSync(service.dataDir, { recursive: true })
    // the load would otherwise meet the gateway's per-key rate limit, not its capacity
    const extra = service.name === 'gateway' ? { RATE_LIMIT_MAX: '100000000' } : {}
    cleanups.push({ name: service.name, run: () => stopPidFile(pidFile, 'SIGTERM') })
    const started = startDetached({
      command: process.execPath,
      args: [service.mainScript],
      env: { PATH: process.env.PATH ?? '', ...service.env, ...extra },
      logFile,
      pidFile,
    })
    startedPids.push(started.pid)
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
  return { plan, kafka, ferret, credentials, chainDatabase: join(dataDir, 'chain-indexer', 'chainpay.sqlite') }
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
  cleanups.push({ name: 'kafkajs clients', run: () => Promise.all([producer.disconnect(), consumer.disconnect()]) })
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

// ---- the raw floor: findOne by _id on the read model's collection ----
async function bareFindOne(url, ids) {
  const client = new MongoClient(url)
  cleanups.push({ name: 'mongodb client', run: () => client.close() })
  const payments = client.db('chainpay').collection('payments_read')
  for (const id of ids.slice(0, 20)) await payments.findOne({ _id: id })
  const sequential = []
  for (let i = 0; i < findOneSequential; i++) {
    const started = performance.now()
    const found = await payments.findOne({ _id: ids[i % ids.length] })
    sequential.push(performance.now() - started)
    if (!found) throw new Error(`findOne did not find ${ids[i % ids.length]}`)
  }
  // as many in flight as autocannon has connections, for the same time
  const concurrent = []
  const until = performance.now() + duration * 1000
  let n = 0
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const started = performance.now()
        await payments.findOne({ _id: ids[n++ % ids.length] })
        concurrent.push(performance.now() - started)
      }
    }),
  )
  return {
    sequential: summarize(sequential),
    concurrent: { ...summarize(concurrent), rps: Math.round(concurrent.length / duration) },
  }
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

async function confirmationToWebhook(cluster) {
  const { plan, credentials, chainDatabase } = cluster
  const required = defaultAssetRegistry.networks.find((n) => n.network === 'TRON').requiredConfirmations
  const receiver = await startReceiver()
  const payments = []
  for (let i = 0; i < webhookPayments; i++) {
    payments.push(await createPayment(plan.urls.gateway, credentials, { callbackUrl: receiver.url }))
  }
  const txHashes = new Map()
  const firstPaid = Date.now()
  for (const [i, payment] of payments.entries()) {
    await sleep(Math.max(0, firstPaid + i * payEveryMs - Date.now()))
    const response = await fetch(`${plan.urls.chainSimulator}/dev/chains/TRON/transfers`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: payment.generatedAddress, amount: payment.amount, currency: 'USDT' }),
    })
    if (response.status !== 201) throw new Error(`transfer answered ${response.status}: ${await response.text()}`)
    txHashes.set(payment.paymentId, (await response.json()).txHash)
  }
  const deadline = Date.now() + 120_000
  while (receiver.confirmed.size < payments.length) {
    if (Date.now() > deadline) {
      throw new Error(`only ${receiver.confirmed.size} of ${payments.length} payment.confirmed webhooks arrived`)
    }
    await sleep(50)
  }
  // the chain's own record: the block holding the transfer, and the time of the block that gave it
  // its required confirmations (confirmations = head - height + 1)
  const chain = new DatabaseSync(chainDatabase, { readOnly: true })
  try {
    const heightOf = chain.prepare("SELECT block_height FROM sim_transactions WHERE network = 'TRON' AND tx_hash = ?")
    const timeOf = chain.prepare("SELECT time FROM sim_blocks WHERE network = 'TRON' AND height = ?")
    const heights = new Set()
    const samples = payments.map(({ paymentId }) => {
      const txHash = txHashes.get(paymentId)
      const webhook = receiver.confirmed.get(paymentId)
      if (webhook.txHash !== txHash) throw new Error(`webhook of ${paymentId} names ${webhook.txHash}, paid ${txHash}`)
      const height = Number(heightOf.get(txHash).block_height)
      heights.add(height)
      const confirmedAt = Date.parse(timeOf.get(height + required - 1).time)
      return webhook.arrived - confirmedAt
    })
    return { ...summarize(samples), required, distinctBlocks: heights.size }
  } finally {
    chain.close()
  }
}

// ---- bus lag after the create load: how far the consumers in their own processes are behind ----
async function busLag(brokers) {
  const kafka = new Kafka({ clientId: 'bench-lag', brokers: [brokers], logLevel: kafkaLogLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  try {
    const { groups } = await admin.listGroups()
    let lag = 0
    for (const { groupId } of groups) {
      if (groupId.startsWith('bench-')) continue
      for (const { topic, partitions } of await admin.fetchOffsets({ groupId })) {
        const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high)]))
        for (const { partition, offset } of partitions) {
          const committed = BigInt(offset) < 0n ? 0n : BigInt(offset)
          lag += Number((ends.get(partition) ?? 0n) - committed)
        }
      }
    }
    return lag
  } finally {
    await admin.disconnect()
  }
}

// ---- the run ----
const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-bench-distributed-'))
cleanups.push({ name: 'data directory', run: async () => rmSync(dataDir, { recursive: true, force: true }) })
let exitCode = 0
try {
  const cluster = await startCluster(dataDir)
  const { plan, credentials } = cluster
  const base = plan.urls.gateway

  // payments to read back (and to find by _id)
  const ids = []
  for (let i = 0; i < readTargets; i += 8) {
    const batch = await Promise.all(Array.from({ length: 8 }, () => createPayment(base, credentials, {})))
    ids.push(...batch.map((p) => p.paymentId))
  }
  await waitUntil(
    async () => {
      const path = `/api/merchant/v1/payments/${ids.at(-1)}`
      const response = await fetch(base + path, { headers: signed(credentials, 'GET', path) })
      await response.body?.cancel()
      return response.status === 200
    },
    { timeoutMs: 30_000, describe: () => 'the created payments did not become readable' },
  )

  out('\nfloor: kafkajs produce→consume round trip')
  const kafkaFloor = await kafkaRoundTrip(cluster.kafka.brokers)
  out(`  ${kafkaFloor.count} messages: p50 ${ms(kafkaFloor.p50)} ms, p99 ${ms(kafkaFloor.p99)} ms`)
  out('floor: bare findOne by _id on payments_read')
  const findOne = await bareFindOne(cluster.ferret.url, ids)
  out(`  one at a time: p50 ${ms(findOne.sequential.p50)} ms, p99 ${ms(findOne.sequential.p99)} ms`)
  out(
    `  ${connections} in flight: ${findOne.concurrent.rps} finds/s, p50 ${ms(findOne.concurrent.p50)} ms, p99 ${ms(findOne.concurrent.p99)} ms`,
  )

  out('\nconfirmation → payment.confirmed webhook')
  const webhook = await confirmationToWebhook(cluster)
  out(
    `  ${webhook.count} payments (${webhook.distinctBlocks} blocks), ${webhook.required} confirmations at ${tronBlockMs} ms blocks: p50 ${ms(webhook.p50)} ms, p99 ${ms(webhook.p99)} ms, max ${ms(webhook.max)} ms`,
  )

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
  const get = await load('gateway GET /payments/:id', base, getRequest)
  const create = await load('gateway POST /payments', base, createRequest)
  const lagAtEnd = await busLag(cluster.kafka.brokers)
  const drainStarted = Date.now()
  let lag = lagAtEnd
  while (lag > 0 && Date.now() - drainStarted < 120_000) {
    await sleep(250)
    lag = await busLag(cluster.kafka.brokers)
  }
  const drainSeconds = (Date.now() - drainStarted) / 1000
  out(
    `  bus lag when the create load stopped: ${lagAtEnd} messages; ${lag === 0 ? `consumers caught up ${drainSeconds.toFixed(1)} s later` : `still ${lag} after ${drainSeconds.toFixed(0)} s`}`,
  )

  const pct = (a, b) => `${Math.round((a / b) * 100)} %`
  const x = (a, b) => `${(a / b).toFixed(1)} ×`
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
  out(
    `\nmachine: ${machine}; Kafka ${KAFKA_VERSION}, FerretDB ${FERRETDB_VERSION}; date: ${new Date().toISOString().slice(0, 10)}`,
  )
  out(
    `${connections} connections / in flight, ${duration} s per load row; TRON blocks every ${tronBlockMs} ms; load generator on the same cores\n`,
  )
  out('| run | per s | p50 ms | p99 ms |\n|---|---|---|---|')
  out(`| floor: kafkajs produce→consume, one at a time | | ${ms(kafkaFloor.p50)} | ${ms(kafkaFloor.p99)} |`)
  out(`| floor: findOne by _id, one at a time | | ${ms(findOne.sequential.p50)} | ${ms(findOne.sequential.p99)} |`)
  out(
    `| floor: findOne by _id, ${connections} in flight | ${findOne.concurrent.rps} | ${ms(findOne.concurrent.p50)} | ${ms(findOne.concurrent.p99)} |`,
  )
  out(`| ${get.title} | ${get.rps} | ${get.p50} | ${get.p99} |`)
  out(`| ${create.title} | ${create.rps} | ${create.p50} | ${create.p99} |`)
  out(
    `| confirmation block → payment.confirmed webhook (${webhook.count} payments) | | ${ms(webhook.p50)} | ${ms(webhook.p99)} |`,
  )
  out('\n| ratio | value |\n|---|---|')
  out(`| gateway GET throughput / bare findOne throughput | ${pct(get.rps, findOne.concurrent.rps)} |`)
  out(`| gateway GET p50 / bare findOne p50 (both ${connections} in flight) | ${x(get.p50, findOne.concurrent.p50)} |`)
  out(`| gateway create throughput / gateway GET throughput | ${pct(create.rps, get.rps)} |`)
  out(`| webhook latency p50 / Kafka round trip p50 | ${x(webhook.p50, kafkaFloor.p50)} |`)
  out(`| webhook latency p99 / Kafka round trip p99 | ${x(webhook.p99, kafkaFloor.p99)} |`)
} catch (error) {
  exitCode = 1
  process.stderr.write(`distributed benchmark failed: ${error instanceof Error ? error.stack : error}\n`)
} finally {
  await cleanUp()
  const left = startedPids.filter((pid) => pid !== null && isAlive(pid))
  out(left.length === 0 ? '\nstopped everything it started' : `\nSTILL RUNNING: pids ${left.join(', ')}`)
  if (left.length > 0) exitCode = 1
}
process.exit(exitCode)
