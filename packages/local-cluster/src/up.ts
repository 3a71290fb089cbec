// scripts/up: the distributed system on this machine. Kafka and FerretDB (unless KAFKA_BROKERS and
// MONGODB_URL name servers to use), then the five services as separate background processes, each
// with its pid and log file under DATA_DIR; a demo merchant on the first start. Running it again
// starts whatever is not running. scripts/down stops it all.

import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import {
  isAlive,
  postgresClusterDirectory,
  readPid,
  startDetached,
  startFerretDb,
  startKafka,
  startPostgres,
  stopPidFile,
  tail,
  waitUntil,
} from '@chainpay/local-servers'
import { createMerchant, merchantExists } from './admin-client.js'
import {
  clusterFiles,
  ensureClusterSecrets,
  ensureClusterWallet,
  readDemoMerchant,
  writeDemoMerchant,
} from './cluster-files.js'
import { type ClusterPorts, planCluster } from './cluster-plan.js'
import { clusterLayout, readUpConfig, type UpConfig } from './up-config.js'

const READY_TIMEOUT_MS = 90_000

function say(line: string) {
  process.stdout.write(`${line}\n`)
}

async function startServers(config: UpConfig): Promise<{ kafkaBrokers: string; mongodbUrl: string }> {
  const layout = clusterLayout(config.dataDir)
  const running = (pidFile: string) => {
    const pid = readPid(pidFile)
    return pid !== null && isAlive(pid)
  }
  let kafkaBrokers = config.kafkaBrokers ?? `127.0.0.1:${config.kafkaPort}`
  if (!config.kafkaBrokers && !running(layout.kafkaPidFile)) {
    say(`starting Apache Kafka on ${kafkaBrokers} (the first run resolves its jars with Maven)`)
    const kafka = await startKafka({
      directory: layout.kafkaDirectory,
      port: config.kafkaPort,
      controllerPort: config.kafkaControllerPort,
    })
    kafkaBrokers = kafka.brokers
  }
  let mongodbUrl = config.mongodbUrl ?? `mongodb://127.0.0.1:${config.ferretdbPort}/`
  if (!config.mongodbUrl && !running(layout.ferretdbPidFile)) {
    let postgresqlUrl: string | undefined
    if (config.ferretdbBackend === 'postgresql') {
      // Debian's postgresql, never as root; its cluster kept across restarts like FerretDB's files
      say(`starting PostgreSQL on 127.0.0.1:${config.postgresPort} for FerretDB's PostgreSQL backend`)
      if (running(layout.postgresPidFile)) await stopPidFile(layout.postgresPidFile, 'SIGINT')
      const postgres = await startPostgres({
        directory: layout.postgresDirectory,
        port: config.postgresPort,
        cluster: postgresClusterDirectory(config.dataDir),
      })
      postgresqlUrl = postgres.url
    }
    say(
      `starting FerretDB (${config.ferretdbBackend} backend) on 127.0.0.1:${config.ferretdbPort} (the first run builds it with Go)`,
    )
    const ferretdb = await startFerretDb({
      directory: layout.ferretdbDirectory,
      port: config.ferretdbPort,
      ...(postgresqlUrl ? { postgresqlUrl } : {}),
    })
    mongodbUrl = ferretdb.url
  }
  return { kafkaBrokers, mongodbUrl }
}

async function up(config: UpConfig): Promise<void> {
  const layout = clusterLayout(config.dataDir)
  mkdirSync(layout.runDirectory, { recursive: true })
  mkdirSync(layout.logDirectory, { recursive: true })
  const secrets = ensureClusterSecrets(config.dataDir)
  const walletFile = ensureClusterWallet(config.dataDir)
  const { kafkaBrokers, mongodbUrl } = await startServers(config)
  const ports: ClusterPorts = config.ports
  const plan = planCluster({
    dataDir: config.dataDir,
    ports,
    kafkaBrokers,
    mongodbUrl,
    eventstoreUrl: config.eventstoreUrl,
    secrets,
    walletFile,
    logLevel: config.logLevel,
  })

  for (const service of plan.services) {
    const pidFile = join(layout.runDirectory, `${service.name}.pid`)
    const logFile = join(layout.logDirectory, `${service.name}.log`)
    const pid = readPid(pidFile)
    if (pid !== null && isAlive(pid)) {
      say(`${service.name} already runs (pid ${pid})`)
      continue
    }
    mkdirSync(service.dataDir, { recursive: true })
    const started = startDetached({
      command: process.execPath,
      args: [service.mainScript],
      env: { PATH: process.env.PATH ?? '', ...service.env },
      logFile,
      pidFile,
    })
    await waitUntil(
      async () => {
        const response = await fetch(service.readyUrl)
        await response.body?.cancel()
        return response.status === 200
      },
      {
        timeoutMs: READY_TIMEOUT_MS,
        giveUpIf: () => !isAlive(started.pid),
        describe: () =>
          `${service.name} did not become ready (${service.readyUrl}); last lines of ${logFile}:\n${tail(logFile)}`,
      },
    ).catch(async (error) => {
      await stopPidFile(pidFile, 'SIGKILL')
      throw error
    })
    say(`${service.name} is ready (pid ${started.pid}, log ${logFile})`)
  }

  const demo = readDemoMerchant(config.dataDir)
  if (!demo || !(await merchantExists(plan.urls.admin, secrets.adminToken, demo.merchantId))) {
    const created = await createMerchant(plan.urls.admin, secrets.adminToken, { name: 'Demo merchant' })
    writeDemoMerchant(config.dataDir, { ...created, merchantId: created.merchant.merchantId })
    say(`created a demo merchant: ${join(config.dataDir, clusterFiles.demoMerchant)}`)
  }

  say('')
  say('chainpay is up (distributed: five services, Kafka, MongoDB-wire server)')
  say(`  merchant API     ${plan.urls.gateway}/api/merchant/v1`)
  say(
    `  chain simulator  ${plan.urls.chainSimulator}/dev/chains/{network}/transfers (also through the gateway)`,
  )
  say(
    `  admin API        ${plan.urls.admin}/admin/v1 (token in ${join(config.dataDir, clusterFiles.secrets)})`,
  )
  for (const service of plan.services)
    say(`  metrics          ${service.metricsUrl}/metrics (${service.name})`)
  say(`  demo merchant    ${join(config.dataDir, clusterFiles.demoMerchant)}`)
  say(`  logs             ${layout.logDirectory}`)
  say('  stop it all with scripts/down')
}

const config = readUpConfig()
if (config) {
  try {
    await up(config)
  } catch (error) {
    process.stderr.write(`chainpay up failed: ${error instanceof Error ? error.message : String(error)}\n`)
    process.stderr.write('whatever started is still running: scripts/down stops it\n')
    process.exitCode = 1
  }
}
