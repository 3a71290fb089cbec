// Standalone when one of its ports is taken, run as an operator runs it: the process must not go on
// with the other port answering (healthy, ready, and 503 to every create), but stop everything and
// exit 1 saying which port (docs/operations.md, "Standalone").

import { existsSync, rmSync } from 'node:fs'
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
    ['the admin port', 'ADMIN_PORT'],
    ['the merchant port', 'PORT'],
    ['the metrics port', 'METRICS_PORT'],
  ] as const)(
    'exits 1 when %s is taken, naming the variable to set, before creating anything, and leaves nothing listening',
    async (_case, taken) => {
      const ports = { PORT: await freePort(), ADMIN_PORT: await freePort(), METRICS_PORT: await freePort() }
      // a real socket holds the port, as another program on the machine would
      const occupant = await occupy(ports[taken])
      const parent = newDataDir()
      // a first start: the data directory does not exist yet
      const dataDir = join(parent, 'data')
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
        const lines = stdout
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as { level: string; msg: string })
        expect(lines.map((line) => [line.level, line.msg])).toEqual([
          [
            'fatal',
            `chainpay standalone cannot start: port ${ports[taken]} (${taken}) on 127.0.0.1 is in use (EADDRINUSE): set ${taken} to a free port`,
          ],
        ])
        // no secrets, wallet, database or demo merchant left behind for a start that could not be
        expect(existsSync(dataDir)).toBe(false)
      } finally {
        await occupant.close()
        rmSync(parent, { recursive: true, force: true })
      }
      expect(await listening(ports.PORT)).toBe(false)
      expect(await listening(ports.ADMIN_PORT)).toBe(false)
      expect(await listening(ports.METRICS_PORT)).toBe(false)
    },
  )
})

describe('standalone run with arguments', () => {
  it('prints its usage for --help and does nothing else: no data directory, no secrets', async () => {
    const parent = newDataDir()
    const dataDir = join(parent, 'data')
    try {
      const help = await runToExit(
        mainScript,
        { DATA_DIR: dataDir, PORT: String(await freePort()) },
        { args: ['--help'] },
      )
      expect(help.code).toBe(0)
      expect(help.stdout).toContain('Usage: scripts/start')
      expect(help.stdout).toContain('ADMIN_PORT=8081')
      expect(help.stdout).toContain('METRICS_PORT=9464')
      // refused, not ignored: a setting meant for the environment
      const wrong = await runToExit(
        mainScript,
        { DATA_DIR: dataDir, PORT: String(await freePort()) },
        { args: ['--port=9000'] },
      )
      expect(wrong.code).toBe(1)
      expect(wrong.stderr).toContain("unexpected argument '--port=9000'")
      expect(existsSync(dataDir)).toBe(false)
    } finally {
      rmSync(parent, { recursive: true, force: true })
    }
  })
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
