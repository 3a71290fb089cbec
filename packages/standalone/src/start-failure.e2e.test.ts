// Standalone when one of its ports is taken, run as an operator runs it: the process must not go on
// with the other port answering (healthy, ready, and 503 to every create), but stop everything and
// exit 1 saying which port (docs/operations.md, "Standalone").

import { rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort, runToExit } from '@chainpay/service-kit/testing'
import { createSqliteDeliveryStore, deliveryMigrations, openSqliteDatabase } from '@chainpay/store-sqlite'
import { describe, expect, it } from 'vitest'
import { fastChainEnv, newDataDir } from './testing/standalone-process.js'

const mainScript = fileURLToPath(new URL('../../../services/standalone/dist/main.js', import.meta.url))

/**
 * a listener that accepts connections and says nothing (standalone's own clients, e.g. the Solana
 * websocket to its in-process simulator, connect to it); closing it ends them too
 */
async function occupy(port: number): Promise<{ close(): Promise<void> }> {
  const occupant: Server = createServer((socket) => socket.resume())
  await new Promise<void>((resolve) => occupant.listen(port, '127.0.0.1', resolve))
  const sockets = new Set<Socket>()
  occupant.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        occupant.close(() => resolve())
      }),
  }
}

/** true when something accepts connections on the port */
async function listening(port: number): Promise<boolean> {
  const probe = createServer()
  return await new Promise((resolve) => {
    probe.once('error', () => resolve(true))
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)))
  })
}

describe('standalone with a port already taken', () => {
  it.each([
    ['the admin port', 'admin API', 'ADMIN_PORT'],
    ['the merchant port, once the admin API listens', 'merchant API', 'PORT'],
    ['the metrics port, once both APIs listen', 'metrics', 'METRICS_PORT'],
  ] as const)(
    'exits 1 when %s is taken, naming it, and leaves nothing listening',
    async (_case, listener, taken) => {
      const ports = { PORT: await freePort(), ADMIN_PORT: await freePort(), METRICS_PORT: await freePort() }
      const occupant = await occupy(ports[taken])
      const dataDir = newDataDir()
      try {
        // resolves only once the process has exited: one that kept serving would never get here
        const { code, stdout } = await runToExit(mainScript, {
          ...fastChainEnv,
          HOST: '127.0.0.1',
          PORT: String(ports.PORT),
          ADMIN_PORT: String(ports.ADMIN_PORT),
          METRICS_PORT: String(ports.METRICS_PORT),
          DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
        })
        expect(code).toBe(1)
        const fatal = stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: string; msg: string })
          .filter((line) => line.level === 'fatal')
        expect(fatal.map((line) => line.msg)).toEqual([
          `chainpay standalone cannot start: ${listener} cannot listen on 127.0.0.1:${ports[taken]}: the port is in use (EADDRINUSE)`,
        ])
      } finally {
        await occupant.close()
        rmSync(dataDir, { recursive: true, force: true })
      }
      expect(await listening(ports.PORT)).toBe(false)
      expect(await listening(ports.ADMIN_PORT)).toBe(false)
      expect(await listening(ports.METRICS_PORT)).toBe(false)
    },
  )
})

describe('standalone on a data directory written by a newer build', () => {
  it('exits 1 naming the store, its version, the version this build knows, and what to do', async () => {
    const dataDir = newDataDir()
    const file = join(dataDir, 'chainpay.sqlite')
    const db = openSqliteDatabase(file)
    createSqliteDeliveryStore(db)
    // what a newer build's next migration of the delivery log would leave
    db.prepare("UPDATE schema_versions SET version = ? WHERE component = 'deliveries'").run(
      deliveryMigrations.length + 1,
    )
    db.close()
    try {
      const { code, stdout } = await runToExit(mainScript, {
        ...fastChainEnv,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        ADMIN_PORT: String(await freePort()),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
      })
      expect(code).toBe(1)
      const fatal = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: string; msg: string; err?: { message?: string } })
        .filter((line) => line.level === 'fatal')
      expect(fatal).toHaveLength(1)
      expect(JSON.stringify(fatal[0])).toContain(
        `SQLite file ${file}: schema of deliveries is at version ${deliveryMigrations.length + 1}, newer than the ${deliveryMigrations.length} this build knows`,
      )
      expect(JSON.stringify(fatal[0])).toContain('restore the backup taken before the upgrade')
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
