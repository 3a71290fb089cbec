import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRootLogger, createServiceRunner } from '@chainpay/platform'
import { freePort } from '@chainpay/service-kit/testing'
import { afterEach, describe, expect, it } from 'vitest'
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
})
