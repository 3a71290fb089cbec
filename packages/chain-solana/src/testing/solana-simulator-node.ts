// What the Solana client's integration tests stand on: the chain simulator in a temporary SQLite
// file behind its Solana JSON-RPC routes, served by a real HTTP server on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type ChainSimulator, createChainSimulator, solanaRpcRoutes } from '@chainpay/chain-sim'
import { type AssetRegistry, defaultAssetRegistry } from '@chainpay/domain'
import { createRootLogger, type Logger } from '@chainpay/platform'
import { type DatabaseSync, openSqliteDatabase } from '@chainpay/store-sqlite'
import Fastify from 'fastify'

export const testLogger: Logger = createRootLogger({ service: 'chain-solana-test', level: 'silent' })

export interface SolanaSimulatorNode {
  simulator: ChainSimulator
  db: DatabaseSync
  registry: AssetRegistry
  /** the JSON-RPC URL of a simulated network, what `new Connection(url)` takes */
  rpcUrl(network: string): string
  close(): Promise<void>
}

export async function startSolanaSimulatorNode(
  options: { registry?: AssetRegistry } = {},
): Promise<SolanaSimulatorNode> {
  const registry = options.registry ?? defaultAssetRegistry
  const directory = mkdtempSync(join(tmpdir(), 'chain-solana-'))
  const db = openSqliteDatabase(join(directory, 'chainpay.sqlite'))
  // blocks come only from mineBlocks: the timers never start
  const simulator = createChainSimulator({
    db,
    registry,
    networks: [
      { network: 'SOLANA', blockIntervalMs: 60_000 },
      { network: 'SOLANA_DEVNET', blockIntervalMs: 60_000 },
    ],
    logger: testLogger,
  })
  const app = Fastify()
  await app.register(solanaRpcRoutes, { simulator })
  const origin = await app.listen({ host: '127.0.0.1', port: 0 })
  return {
    simulator,
    db,
    registry,
    rpcUrl: (network) => `${origin}/chains/${network}`,
    async close() {
      await app.close()
      await simulator.stop()
      db.close()
      rmSync(directory, { recursive: true, force: true })
    },
  }
}
