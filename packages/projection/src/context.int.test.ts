import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { createRootLogger, createServiceRunner } from '@chainpay/platform'
import { freePort } from '@chainpay/service-kit/testing'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { readProjectionConfig } from './config.js'
import { buildProjectionContext } from './context.js'

const directories: string[] = []
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true })
})

describe('buildProjectionContext', () => {
  it('is ready while its database answers, and not once the database is closed', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-projection-'))
    directories.push(dataDir)
    const port = await freePort()
    const config = readProjectionConfig({
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      HEALTH_PORT: String(port),
      METRICS_PORT: String(await freePort()),
    })
    // discarded: the probe routes log their failures at warn whatever the logger's level
    const logger = createRootLogger({ service: 'projection-test', destination: { write: () => {} } })
    const context = await buildProjectionContext(config, logger)
    // the health API alone: the projection would keep reading the bus after the database is closed
    const healthApi = context.services.filter((service) => service.name === 'health API')
    expect(healthApi).toHaveLength(1)
    const runner = createServiceRunner({ logger, services: healthApi, setExitCode: () => {} })
    expect(await runner.start()).toBe(true)
    try {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`)
      expect(ready.status).toBe(200)
      expect(await ready.json()).toEqual({ status: 'ready' })

      await context.close()
      const closed = await fetch(`http://127.0.0.1:${port}/readyz`)
      expect(closed.status).toBe(503)
      expect(await closed.json()).toMatchObject({ error: { code: 'SERVICE_UNAVAILABLE' } })
    } finally {
      await runner.stop('test over')
    }
  })

  it('is not ready while its consumer cannot read the embedded bus, naming it in the log, and ready once it can', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chainpay-projection-'))
    directories.push(dataDir)
    const port = await freePort()
    const config = readProjectionConfig({ DATA_DIR: dataDir, HOST: '127.0.0.1', HEALTH_PORT: String(port) })
    const lines: { msg: string; err?: { message: string } }[] = []
    const logger = createRootLogger({
      service: 'projection-test',
      level: 'warn',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    })
    const context = await buildProjectionContext(config, logger)
    const runner = createServiceRunner({ logger, services: context.services, setExitCode: () => {} })
    const file = new DatabaseSync(join(dataDir, 'chainpay.sqlite'), { timeout: 5000 })
    const readyz = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status
    try {
      expect(await runner.start()).toBe(true)
      expect(await readyz()).toBe(200)

      // the bus's log gone from under the consumer: the database itself still answers
      file.exec('ALTER TABLE bus_messages RENAME TO bus_messages_away')
      await vi.waitFor(async () => expect(await readyz()).toBe(503), { timeout: 15_000 })
      expect(lines).toContainEqual(
        expect.objectContaining({
          msg: 'readiness check failed',
          err: expect.objectContaining({
            message: expect.stringMatching(
              /^bus subscriptions take no messages: chainpay\.payment-events \(group projection\): reading the log failed/,
            ),
          }),
        }),
      )

      file.exec('ALTER TABLE bus_messages_away RENAME TO bus_messages')
      await vi.waitFor(async () => expect(await readyz()).toBe(200), { timeout: 15_000 })
    } finally {
      file.close()
      await runner.stop('test over')
      await context.close()
    }
  })
})
