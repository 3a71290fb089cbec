import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { type SimulatorNode, startSimulatorNode, testNetworks } from '@chainpay/chain-sim/testing'
import { createRootLogger, createServiceRunner, type ServiceRunner } from '@chainpay/platform'
import { freePort, prometheusSample } from '@chainpay/service-kit/testing'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { readChainIndexerConfig } from './config.js'
import { buildChainIndexerContext } from './context.js'

// The chain-indexer over RPC, against the simulator's TRON node and Solana JSON-RPC routes: the
// real tronweb and @solana/web3.js clients behind the real resilience and readiness wiring.

const WAIT_LIMIT = 300
const WAIT_STEP_MS = 100

let nodes: SimulatorNode

const directories: string[] = []
let runner: ServiceRunner | undefined
let closeContext: (() => Promise<void>) | undefined

beforeAll(async () => {
  nodes = await startSimulatorNode({ networks: testNetworks('TRON', 'SOLANA') })
  await nodes.simulator.mineBlocks('TRON', 3)
  await nodes.simulator.mineBlocks('SOLANA', 3)
})

afterAll(() => nodes.close())

afterEach(async () => {
  await runner?.stop('test over')
  await closeContext?.()
  runner = undefined
  closeContext = undefined
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

/** starts the chain-indexer's services on `env`; its log lines are collected */
async function startIndexer(env: Record<string, string>, dataDir = newDataDir()) {
  const port = await freePort()
  const metricsPort = await freePort()
  const config = readChainIndexerConfig({
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    CHAIN_MODE: 'rpc',
    TRON_POLL_INTERVAL_MS: '100',
    SOLANA_POLL_INTERVAL_MS: '100',
    ...env,
  })
  const logLines: string[] = []
  const logger = createRootLogger({
    service: 'chain-indexer-test',
    level: 'info',
    destination: { write: (line: string) => logLines.push(line) },
  })
  const context = await buildChainIndexerContext(config, logger)
  closeContext = () => context.close()
  runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
  expect(await runner.start()).toBe(true)
  return { base: `http://127.0.0.1:${port}`, metricsBase: `http://127.0.0.1:${metricsPort}`, logLines }
}

function newDataDir(): string {
  const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-indexer-rpc-'))
  directories.push(dataDir)
  return dataDir
}

/** polls `probe` until it returns a value; fails the test after WAIT_LIMIT tries */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < WAIT_LIMIT; attempt++) {
    const value = await probe()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS))
  }
  throw new Error(`gave up waiting for ${what}`)
}

async function cursorHeight(base: string, network: string): Promise<number | undefined> {
  const text = await (await fetch(`${base}/metrics`)).text()
  return prometheusSample(text, 'chainpay_chain_cursor_height', { network })
}

describe('the chain-indexer with CHAIN_MODE=rpc', () => {
  it('follows each network through its node, is ready once every node answered, and serves no dev routes', async () => {
    const { base, metricsBase, logLines } = await startIndexer({
      CHAIN_NETWORKS: 'TRON,SOLANA',
      TRON_RPC_URL: nodes.tronUrl('TRON'),
      SOLANA_RPC_URL: nodes.solanaUrl('SOLANA'),
    })
    await eventually('readiness', async () =>
      (await fetch(`${base}/readyz`)).status === 200 ? true : undefined,
    )

    const tronHead = (await nodes.simulator.mineBlocks('TRON', 2)).height
    const solanaHead = (await nodes.simulator.mineBlocks('SOLANA', 2)).height
    await eventually('the TRON cursor at the head', async () =>
      (await cursorHeight(metricsBase, 'TRON')) === tronHead ? true : undefined,
    )
    await eventually('the Solana cursor at the head', async () =>
      (await cursorHeight(metricsBase, 'SOLANA')) === solanaHead ? true : undefined,
    )

    const devRoute = await fetch(`${base}/dev/chains/TRON/blocks`, { method: 'POST' })
    expect(devRoute.status).toBe(404)

    const watching = logLines
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'watching a network over RPC')
    expect(watching.map(({ network, rpc, pollIntervalMs }) => ({ network, rpc, pollIntervalMs }))).toEqual([
      { network: 'TRON', rpc: nodes.url, pollIntervalMs: 100 },
      { network: 'SOLANA', rpc: nodes.url, pollIntervalMs: 100 },
    ])
  })

  it('is not ready while a network’s scan loop fails though its node answers, naming it, and ready once it works', async () => {
    const dataDir = newDataDir()
    const { base, logLines } = await startIndexer(
      {
        CHAIN_NETWORKS: 'TRON,SOLANA',
        TRON_RPC_URL: nodes.tronUrl('TRON'),
        SOLANA_RPC_URL: nodes.solanaUrl('SOLANA'),
      },
      dataDir,
    )
    const readyz = async () => (await fetch(`${base}/readyz`)).status
    await eventually('readiness', async () => ((await readyz()) === 200 ? true : undefined))

    // the cursors gone from under the scans: the next block cannot be recorded, the nodes still answer
    const file = new DatabaseSync(join(dataDir, 'chainpay.sqlite'), { timeout: 5000 })
    try {
      file.exec('ALTER TABLE chain_cursors RENAME TO chain_cursors_away')
      await nodes.simulator.mineBlocks('TRON', 1)
      await eventually('not ready', async () => ((await readyz()) === 503 ? true : undefined))
      const reason = await eventually('the scan loop named', async () =>
        logLines
          .map((line) => JSON.parse(line))
          .map((entry) => entry.err?.message as string | undefined)
          .find((message) => message?.includes('chain indexer TRON: its latest')),
      )
      expect(reason).toMatch(/^not ready: chain indexer TRON: its latest \d+ iteration\(s\) in a row failed/)

      file.exec('ALTER TABLE chain_cursors_away RENAME TO chain_cursors')
      await eventually('ready again', async () => ((await readyz()) === 200 ? true : undefined))
    } finally {
      file.close()
    }
  })

  it('refuses SOLANA_WATCH_MODE=address while the address watcher is not wired in', async () => {
    const config = readChainIndexerConfig({
      DATA_DIR: newDataDir(),
      CHAIN_MODE: 'rpc',
      CHAIN_NETWORKS: 'SOLANA',
      SOLANA_RPC_URL: nodes.solanaUrl('SOLANA'),
      SOLANA_WATCH_MODE: 'address',
    })
    const logger = createRootLogger({ service: 'chain-indexer-test', level: 'silent' })
    await expect(buildChainIndexerContext(config, logger)).rejects.toThrow(/SOLANA_WATCH_MODE=address/)
  })

  it('is not ready while a node does not answer, and says which', async () => {
    const unreachable = `http://127.0.0.1:${await freePort()}`
    const { base, logLines } = await startIndexer({
      CHAIN_NETWORKS: 'TRON,SOLANA',
      TRON_RPC_URL: unreachable,
      SOLANA_RPC_URL: nodes.solanaUrl('SOLANA'),
    })
    // the reason /readyz logs once TRON's head call has failed and Solana's has succeeded
    const reason = await eventually('TRON named alone as not ready', async () => {
      const answer = await fetch(`${base}/readyz`)
      expect(answer.status).toBe(503)
      expect(await answer.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } })
      return logLines
        .map((line) => JSON.parse(line))
        .map((entry) => entry.err?.message as string | undefined)
        .find((message) => message === 'chains not ready: TRON: the latest head call failed (unavailable)')
    })
    expect(reason).toBeDefined()
  })
})
