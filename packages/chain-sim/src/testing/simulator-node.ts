// What tests of anything that reads the simulated chains stand on: a real chain simulator in a
// temporary SQLite file, and a simulator served over real HTTP on 127.0.0.1 with every route the
// simulator app has (dev routes, java-tron full and solidity node, Solana JSON-RPC), so that tronweb
// and @solana/web3.js read it as they read a real node.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { DatabaseSync } from 'node:sqlite'
import { type AssetRegistry, defaultAssetRegistry } from '@chainpay/domain'
import { createRootLogger, type Logger } from '@chainpay/platform'
import { openSqliteDatabase } from '@chainpay/store-sqlite'
import Fastify, { type FastifyInstance } from 'fastify'
import { chainSimulatorRoutes } from '../routes.js'
import { type ChainSimulator, createChainSimulator, type SimulatedNetwork } from '../simulator.js'
import { createSolanaPubsub, type SolanaPubsub } from '../solana-pubsub.js'

export const simulatorTestLogger: Logger = createRootLogger({ service: 'chain-sim-test', level: 'silent' })

/** networks whose blocks come from mineBlocks only, as long as nothing calls start() */
export function testNetworks(...names: string[]): SimulatedNetwork[] {
  return names.map((network) => ({ network, blockIntervalMs: 60_000 }))
}

/** every network of the default registry */
export const TEST_NETWORKS: readonly SimulatedNetwork[] = testNetworks(
  'TRON',
  'TRON_NILE',
  'SOLANA',
  'SOLANA_DEVNET',
)

export interface TestSimulatorOptions {
  /** default: TEST_NETWORKS */
  networks?: readonly SimulatedNetwork[]
  clock?: () => Date
  /** a database the caller keeps and closes; default: a new file in a temporary directory */
  db?: DatabaseSync
  /** default: the default asset registry */
  registry?: AssetRegistry
  /** mints the simulated chain keeps under the Token-2022 program */
  token2022Mints?: readonly string[]
}

export interface TestSimulator {
  simulator: ChainSimulator
  db: DatabaseSync
  /** the SQLite file, for further connections to it (':memory:' for a given in-memory database) */
  path: string
  /** stops the simulator; closes the database and deletes the file unless the caller gave them */
  close(): Promise<void>
}

/** a chain simulator over the default asset registry, with a silent logger */
export function openTestSimulator(options: TestSimulatorOptions = {}): TestSimulator {
  const directory = options.db ? undefined : mkdtempSync(join(tmpdir(), 'chain-sim-test-'))
  const path = directory ? join(directory, 'chainpay.sqlite') : (options.db?.location() ?? ':memory:')
  const db = options.db ?? openSqliteDatabase(path)
  const release = () => {
    if (!directory) return
    if (db.isOpen) db.close()
    rmSync(directory, { recursive: true, force: true })
  }
  try {
    const simulator = createChainSimulator({
      db,
      registry: options.registry ?? defaultAssetRegistry,
      networks: [...(options.networks ?? TEST_NETWORKS)],
      logger: simulatorTestLogger,
      clock: options.clock,
      ...(options.token2022Mints === undefined ? {} : { token2022Mints: options.token2022Mints }),
    })
    return {
      simulator,
      db,
      path,
      async close() {
        await simulator.stop()
        release()
      },
    }
  } catch (error) {
    release()
    throw error
  }
}

export interface SimulatorNodeOptions extends TestSimulatorOptions {
  /** serve this simulator instead of a new one (its owner stops it); the other options are ignored */
  simulator?: ChainSimulator
  /** SIMULATOR_TOKEN: callers must send it; none by default (loopback callers only) */
  token?: string
  /** the node answers as one this many blocks behind the simulator's head (a second node of `simulator` that lags) */
  behind?: number
}

export interface SimulatorNode {
  simulator: ChainSimulator
  /** the fastify app serving it, for app.inject */
  app: FastifyInstance
  /** http://127.0.0.1:PORT */
  url: string
  /** the full node (and solidity node) URL of a TRON network: what `new TronWeb({ fullHost })` takes */
  tronUrl(network: string): string
  /** the JSON-RPC URL of a Solana network: what `new Connection(url)` takes */
  solanaUrl(network: string): string
  /** its websocket pubsub URL, on the same port: what `new Connection(url, { wsEndpoint })` takes */
  solanaWsUrl(network: string): string
  /** the Solana pubsub behind it, to drop its connections */
  solanaPubsub: SolanaPubsub
  close(): Promise<void>
}

/** a simulator behind chainSimulatorRoutes, listening on a free port of 127.0.0.1 */
export async function startSimulatorNode(options: SimulatorNodeOptions = {}): Promise<SimulatorNode> {
  const given = options.simulator
  const chain = given ? { simulator: given, close: async () => {} } : openTestSimulator(options)
  const app = Fastify()
  const solanaPubsub = createSolanaPubsub({ simulator: chain.simulator })
  try {
    await app.register(chainSimulatorRoutes, {
      simulator: chain.simulator,
      token: options.token,
      solanaPubsub,
      behind: options.behind,
    })
    const url = await app.listen({ host: '127.0.0.1', port: 0 })
    return {
      simulator: chain.simulator,
      app,
      url,
      tronUrl: (network) => `${url}/chains/${network}`,
      solanaUrl: (network) => `${url}/chains/${network}`,
      solanaWsUrl: (network) => `${url.replace(/^http/, 'ws')}/chains/${network}`,
      solanaPubsub,
      async close() {
        await app.close()
        await chain.close()
      },
    }
  } catch (error) {
    await app.close()
    await chain.close()
    throw error
  }
}
