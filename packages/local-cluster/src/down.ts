// scripts/down: stops what scripts/up started in DATA_DIR: the five services (SIGTERM, so that each
// finishes its work and commits its offsets), then Kafka, FerretDB and its PostgreSQL if any. Leaves
// the data in place.

import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { isAlive, readPid, stopPidFile } from '@chainpay/local-servers'
import { SERVICE_NAMES } from './cluster-plan.js'
import { clusterLayout, readUpConfig } from './up-config.js'

const config = readUpConfig()
if (config) {
  const layout = clusterLayout(config.dataDir)
  const stop = async (name: string, pidFile: string) => {
    const pid = readPid(pidFile)
    if (pid === null || !isAlive(pid)) {
      await stopPidFile(pidFile)
      return
    }
    await stopPidFile(pidFile, 'SIGTERM', 30_000)
    process.stdout.write(`stopped ${name} (pid ${pid})\n`)
  }
  // the gateway first: no new requests while the rest drains
  for (const name of [...SERVICE_NAMES].reverse()) await stop(name, join(layout.runDirectory, `${name}.pid`))
  if (existsSync(layout.runDirectory)) {
    for (const file of readdirSync(layout.runDirectory)) {
      if (file.endsWith('.pid')) await stop(file.slice(0, -4), join(layout.runDirectory, file))
    }
  }
  await stop('Kafka', layout.kafkaPidFile)
  await stop('FerretDB', layout.ferretdbPidFile)
  // with FERRETDB_BACKEND=postgresql (FerretDB, its only client, is gone: a smart shutdown is quick)
  await stop('PostgreSQL', layout.postgresPidFile)
  process.stdout.write(`chainpay is down; data kept in ${config.dataDir}\n`)
}
