// Standalone built and run inside the test's own process, from its real composition
// (buildStandaloneContext), for the tests that must drive time: the clock is the test's, and the
// chain simulator stamps its blocks with it, so that a deadline minutes away passes at once.

import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { type Clock, createRootLogger, createServiceRunner } from '@chainpay/platform'
import { freePort } from '@chainpay/service-kit/testing'
import { readStandaloneConfig } from '../config.js'
import { buildStandaloneContext } from '../standalone.js'
import { fastChainEnv, newDataDir, readDemoMerchant, type StandaloneProcess } from './standalone-process.js'

export type InProcessStandalone = Omit<StandaloneProcess, 'kill' | 'output'> & { output(): string }

export async function startInProcessStandalone(options: {
  clock: Clock
  env?: Record<string, string>
  /** the test's own, kept on stop (a restart); else a new one, removed on stop */
  dataDir?: string
  /** the SQLite bus's newest messages kept per topic once consumed; standalone's default otherwise */
  sqliteBusKeptMessages?: number
}): Promise<InProcessStandalone> {
  const dataDir = options.dataDir ?? newDataDir()
  const lines: string[] = []
  const logger = createRootLogger({
    service: 'standalone',
    level: 'warn',
    destination: { write: (line: string) => void lines.push(line) },
  })
  // A port found free can be taken before standalone listens on it (other test files, other
  // processes on the machine): a start that failed on a taken port is tried again on fresh ports.
  for (let attempt = 1; ; attempt++) {
    const started = await startOnFreePorts(options, dataDir, logger)
    if (started.ok) return inProcessStandalone(started, options, dataDir, lines)
    const portTaken = lines.join('').includes('EADDRINUSE')
    if (!portTaken || attempt === 3) throw new Error(`standalone did not start:\n${lines.join('')}`)
    lines.length = 0
  }
}

type Started = Awaited<ReturnType<typeof startOnFreePorts>> & { ok: true }

async function startOnFreePorts(
  options: Parameters<typeof startInProcessStandalone>[0],
  dataDir: string,
  logger: ReturnType<typeof createRootLogger>,
) {
  const [port, adminPort, metricsPort] = [await freePort(), await freePort(), await freePort()]
  const config = readStandaloneConfig({
    ...(options.env?.CHAIN_MODE === 'rpc' ? {} : fastChainEnv),
    HOST: '127.0.0.1',
    PORT: String(port),
    ADMIN_PORT: String(adminPort),
    METRICS_PORT: String(metricsPort),
    DATA_DIR: dataDir,
    ...options.env,
  })
  const context = await buildStandaloneContext(config, logger, {
    clock: options.clock,
    ...(options.sqliteBusKeptMessages ? { sqliteBusKeptMessages: options.sqliteBusKeptMessages } : {}),
  })
  const runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
  if (!(await runner.start())) {
    await context.close()
    return { ok: false as const }
  }
  return { ok: true as const, port, adminPort, metricsPort, config, context, runner }
}

function inProcessStandalone(
  started: Started,
  options: Parameters<typeof startInProcessStandalone>[0],
  dataDir: string,
  lines: string[],
): InProcessStandalone {
  const { port, adminPort, metricsPort, config, context, runner } = started
  const baseUrl = `http://127.0.0.1:${port}`
  return {
    baseUrl,
    apiUrl: `${baseUrl}/api/merchant/v1`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    dataDir,
    output: () => lines.join(''),
    demoMerchant: () => readDemoMerchant(dataDir),
    // ADMIN_TOKEN when given, else the one generated on the first start
    adminToken: () =>
      config.adminToken ??
      (JSON.parse(readFileSync(join(dataDir, 'standalone-secrets.json'), 'utf8')) as { adminToken: string })
        .adminToken,
    async stop() {
      await runner.stop('test over')
      await context.close()
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true })
      return 0
    },
  }
}
