// runServiceMain as an operator meets it: a built main, spawned with nodeProcess and runToExit.

import { createServer, type Server } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort, type NodeProcess, nodeProcess, runToExit } from './testing/node-process.js'

const mainScript = fileURLToPath(new URL('../dist/testing/fixture-service-main.js', import.meta.url))

const running: NodeProcess[] = []

async function fixture(env: Record<string, string> = {}): Promise<{ service: NodeProcess; url: string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const started = nodeProcess({
    name: 'fixture',
    mainScript,
    env: { PORT: String(port), ...env },
    readyUrl: `${url}/readyz`,
  })
  running.push(started)
  return { service: started, url }
}

/** the JSON log lines' messages */
function messages(output: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => (JSON.parse(line) as { msg: string }).msg)
}

afterEach(async () => {
  for (const started of running.splice(0)) await started.kill()
})

describe('runServiceMain', () => {
  it('runs the context until SIGTERM, then stops its services, closes it and exits 0', async () => {
    const { service: fixtureProcess, url } = await fixture()
    await fixtureProcess.start()
    const health = await fetch(`${url}/healthz`)
    expect(await health.json()).toEqual({ status: 'ok' })

    expect(await fixtureProcess.stop()).toBe(0)
    const logged = messages(fixtureProcess.output())
    expect(logged).toContain('health API listening')
    expect(logged.indexOf('component stopped')).toBeLessThan(logged.indexOf('context closed'))
    await expect(fetch(`${url}/healthz`)).rejects.toThrow()
  })

  it.each([
    [
      'a timer left running once closed',
      'timer',
      0,
      'stopped, but something left behind keeps the process alive: forcing exit',
    ],
    ['a close that never finishes', 'close', 1, 'closing took too long, forcing exit'],
  ] as const)(
    'exits all the same after SIGTERM with %s, saying so',
    async (_case, leftBehind, code, said) => {
      const { service: fixtureProcess } = await fixture({ LEFT_BEHIND: leftBehind })
      await fixtureProcess.start()
      // resolves only once the process has exited
      expect(await fixtureProcess.stop()).toBe(code)
      const logged = messages(fixtureProcess.output())
      expect(logged).toContain('component stopped')
      expect(logged.filter((message) => message.includes('forcing exit'))).toEqual([said])
    },
  )

  it('says what is wrong with the configuration on stderr and exits 1, without a stack trace', async () => {
    const { code, stdout, stderr } = await runToExit(mainScript, { LOG_LEVEL: 'loud' })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      'chainpay fixture cannot start: invalid configuration:\n' +
        '  - PORT: required\n' +
        "  - LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'\n",
    )
  })

  it('logs a context that cannot be built as fatal, with the data directory, and exits 1', async () => {
    const { code, stdout } = await runToExit(mainScript, {
      PORT: String(await freePort()),
      DATA_DIR: '/var/lib/fixture',
      FAIL_BUILD: 'true',
    })
    expect(code).toBe(1)
    const [line, ...more] = stdout.split('\n').filter(Boolean)
    expect(more).toEqual([])
    expect(JSON.parse(line ?? '{}')).toMatchObject({
      level: 'fatal',
      service: 'fixture',
      msg: 'chainpay fixture cannot start',
      dataDir: '/var/lib/fixture',
      err: { message: 'the fixture was told to fail' },
    })
  })
})

describe('runServiceMain with a port already taken', () => {
  it('logs one fatal line naming the port, stops what started and exits 1', async () => {
    const port = await freePort()
    const occupant: Server = createServer()
    await new Promise<void>((resolve) => occupant.listen(port, '127.0.0.1', resolve))
    try {
      // runToExit resolves only once the process is gone: one that lingered would fail the test
      const { code, stdout } = await runToExit(mainScript, { PORT: String(port) })
      expect(code).toBe(1)
      const lines = stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      const fatal = lines.filter((line) => line.level === 'fatal')
      expect(fatal).toEqual([
        expect.objectContaining({
          service: 'fixture',
          component: 'health API',
          msg: `chainpay fixture cannot start: health API cannot listen on 127.0.0.1:${port}: the port is in use (EADDRINUSE)`,
        }),
      ])
      // the last word, after everything was stopped and closed
      expect(lines.at(-1)).toBe(fatal[0])
      expect(lines.map((line) => line.msg)).toContain('context closed')
    } finally {
      await new Promise<void>((resolve) => occupant.close(() => resolve()))
    }
  })
})

describe('nodeProcess', () => {
  it('kills with SIGKILL, leaving no chance to clean up, and starts again', async () => {
    const { service: fixtureProcess, url } = await fixture()
    await fixtureProcess.start()
    await fixtureProcess.kill()
    expect(messages(fixtureProcess.output())).not.toContain('context closed')
    await expect(fetch(`${url}/healthz`)).rejects.toThrow()

    await fixtureProcess.start()
    expect((await fetch(`${url}/readyz`)).status).toBe(200)
    expect(fixtureProcess.output().match(/--- starting fixture/g)).toHaveLength(2)
  })

  it('rejects a start that exits before it is ready, with what it wrote', async () => {
    const { service: fixtureProcess } = await fixture({ FAIL_BUILD: 'true' })
    await expect(fixtureProcess.start()).rejects.toThrow(
      /exited with 1 before it was ready, fixture:\n.*told to fail/s,
    )
    expect(await fixtureProcess.stop()).toBe(1)
  })
})
