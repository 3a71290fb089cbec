// The simulated TRON networks behind real HTTP: a chain simulator in a temporary SQLite file and a
// fastify app serving its java-tron routes on 127.0.0.1, for tronweb to read.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ChainSimulator, createChainSimulator, tronNodeRoutes } from '@chainpay/chain-sim'
import { defaultAssetRegistry } from '@chainpay/domain'
import { createRootLogger, type Logger } from '@chainpay/platform'
import { type DatabaseSync, openSqliteDatabase } from '@chainpay/store-sqlite'
import Fastify from 'fastify'

export const silentLogger: Logger = createRootLogger({ service: 'chain-tron-test', level: 'silent' })

export interface SimulatedTronNode {
  simulator: ChainSimulator
  /** the simulator's SQLite file, for stores a test keeps next to the chain */
  db: DatabaseSync
  /** the full node (and solidity node) URL of a simulated network, e.g. http://127.0.0.1:PORT/chains/TRON */
  url(network: string): string
  close(): Promise<void>
}

/** TRON and TRON_NILE, producing blocks only when a test mines them */
export async function startSimulatedTronNode(): Promise<SimulatedTronNode> {
  const directory = mkdtempSync(join(tmpdir(), 'chain-tron-'))
  const db = openSqliteDatabase(join(directory, 'chainpay.sqlite'))
  const simulator = createChainSimulator({
    db,
    registry: defaultAssetRegistry,
    networks: [
      { network: 'TRON', blockIntervalMs: 60_000 },
      { network: 'TRON_NILE', blockIntervalMs: 60_000 },
    ],
    logger: silentLogger,
  })
  const app = Fastify()
  await app.register(tronNodeRoutes, { simulator })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    simulator,
    db,
    url: (network) => `${base}/chains/${network}`,
    async close() {
      await app.close()
      await simulator.stop()
      if (db.isOpen) db.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
