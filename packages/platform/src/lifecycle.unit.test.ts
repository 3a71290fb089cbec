import { EventEmitter } from 'node:events'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createServiceRunner, runUntilSignal, type Service, type ServiceRunnerOptions } from './lifecycle.js'
import { createRootLogger } from './logger.js'

function harness(overrides: Partial<ServiceRunnerOptions> = {}) {
  const calls: string[] = []
  const exitCodes: number[] = []
  const forcedExits: number[] = []
  const messages: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) {
        const entry = JSON.parse(line) as { msg: string; component?: string }
        messages.push(entry.component ? `${entry.msg}: ${entry.component}` : entry.msg)
      }
      done()
    },
  })
  const logger = createRootLogger({ service: 'test', level: 'info', destination })
  const service = (name: string, behaviour: { failStart?: boolean; failStop?: boolean } = {}): Service => ({
    name,
    async start() {
      calls.push(`start ${name}`)
      if (behaviour.failStart) throw new Error(`${name} cannot start`)
    },
    async stop() {
      calls.push(`stop ${name}`)
      if (behaviour.failStop) throw new Error(`${name} cannot stop`)
    },
  })
  const options = (services: Service[]): ServiceRunnerOptions => ({
    logger,
    services,
    setExitCode: (code) => exitCodes.push(code),
    forceExit: (code) => forcedExits.push(code),
    ...overrides,
  })
  return { calls, exitCodes, forcedExits, messages, service, options }
}

describe('createServiceRunner', () => {
  it('starts in order, stops in reverse and exits 0', async () => {
    const h = harness()
    const runner = createServiceRunner(h.options([h.service('store'), h.service('bus'), h.service('http')]))
    expect(await runner.start()).toBe(true)
    await runner.stop('test')
    expect(h.calls).toEqual(['start store', 'start bus', 'start http', 'stop http', 'stop bus', 'stop store'])
    expect(h.exitCodes).toEqual([0])
    expect(h.forcedExits).toEqual([])
  })

  it('logs each step', async () => {
    const h = harness()
    const runner = createServiceRunner(h.options([h.service('store')]))
    await runner.start()
    await runner.stop('test')
    expect(h.messages).toEqual([
      'starting component: store',
      'component started: store',
      'stopping',
      'stopping component: store',
      'component stopped: store',
      'stopped',
    ])
  })

  it('stops only once however often asked', async () => {
    const h = harness()
    const runner = createServiceRunner(h.options([h.service('a')]))
    await runner.start()
    await Promise.all([runner.stop('first'), runner.stop('second')])
    await runner.stop('third')
    expect(h.calls).toEqual(['start a', 'stop a'])
    expect(h.exitCodes).toEqual([0])
  })

  it('stops the started services and exits 1 when one fails to start', async () => {
    const h = harness()
    const runner = createServiceRunner(
      h.options([h.service('a'), h.service('b', { failStart: true }), h.service('c')]),
    )
    expect(await runner.start()).toBe(false)
    expect(h.calls).toEqual(['start a', 'start b', 'stop a'])
    expect(h.exitCodes).toEqual([1])
    expect(h.messages).toContain('component failed to start: b')
  })

  it('keeps stopping the rest and exits 1 when one fails to stop', async () => {
    const h = harness()
    const runner = createServiceRunner(h.options([h.service('a'), h.service('b', { failStop: true })]))
    await runner.start()
    await runner.stop('test')
    expect(h.calls).toEqual(['start a', 'start b', 'stop b', 'stop a'])
    expect(h.exitCodes).toEqual([1])
  })

  it('stops a service whose start was in flight when the stop came, and starts no more', async () => {
    const h = harness()
    let finishStart: () => void = () => {}
    const slow: Service = {
      name: 'slow',
      start: () => new Promise<void>((resolve) => (finishStart = resolve)),
      async stop() {
        h.calls.push('stop slow')
      },
    }
    const runner = createServiceRunner(h.options([slow, h.service('never')]))
    const starting = runner.start()
    const stopping = runner.stop('test')
    finishStart()
    expect(await starting).toBe(false)
    await stopping
    expect(h.calls).toEqual(['stop slow'])
    expect(h.exitCodes).toEqual([0])
  })

  it('forces exit with 1 when stopping hangs', async () => {
    let forced: (code: number) => void = () => {}
    const forcedExit = new Promise<number>((resolve) => (forced = resolve))
    const h = harness({ forceAfterMs: 5, forceExit: (code) => forced(code) })
    const stuck: Service = { name: 'stuck', start: async () => {}, stop: () => new Promise<void>(() => {}) }
    const runner = createServiceRunner(h.options([stuck]))
    await runner.start()
    void runner.stop('test')
    expect(await forcedExit).toBe(1)
    expect(h.messages).toContain('stopping took too long, forcing exit')
  })

  it('names unnamed services by position', async () => {
    const h = harness()
    const runner = createServiceRunner(h.options([{ start: async () => {}, stop: async () => {} }]))
    await runner.start()
    expect(h.messages).toContain('component started: service 1')
  })
})

describe('runUntilSignal', () => {
  it('runs until SIGTERM, then stops everything and stops listening', async () => {
    const h = harness()
    const signals = new EventEmitter()
    const running = runUntilSignal({ ...h.options([h.service('a'), h.service('b')]), signalSource: signals })
    await new Promise<void>((resolve) => setImmediate(resolve))
    expect(h.calls).toEqual(['start a', 'start b'])
    expect(signals.listenerCount('SIGTERM')).toBe(1)
    signals.emit('SIGTERM', 'SIGTERM')
    signals.emit('SIGINT', 'SIGINT')
    await running
    expect(h.calls).toEqual(['start a', 'start b', 'stop b', 'stop a'])
    expect(h.exitCodes).toEqual([0])
    expect(h.messages).toContain('already stopping')
    expect(signals.listenerCount('SIGTERM')).toBe(0)
    expect(signals.listenerCount('SIGINT')).toBe(0)
  })

  it('returns after a failed start with exit code 1, and with the failure', async () => {
    const h = harness()
    const signals = new EventEmitter()
    const failure = await runUntilSignal({
      ...h.options([h.service('a'), h.service('b', { failStart: true })]),
      signalSource: signals,
    })
    expect(h.exitCodes).toEqual([1])
    expect(h.calls).toEqual(['start a', 'start b', 'stop a'])
    expect(failure?.component).toBe('b')
    expect(failure?.error).toBeInstanceOf(Error)
    expect(signals.listenerCount('SIGINT')).toBe(0)
  })

  it('returns no failure after a start that succeeded and a stop', async () => {
    const h = harness()
    const signals = new EventEmitter()
    const running = runUntilSignal({ ...h.options([h.service('a')]), signalSource: signals })
    await new Promise<void>((resolve) => setImmediate(resolve))
    signals.emit('SIGTERM', 'SIGTERM')
    expect(await running).toBeUndefined()
  })
})
