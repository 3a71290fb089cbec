import { createRootLogger } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { createSampledLog } from './sampled-log.js'

function capturedLog(options: { maxKeys?: number } = {}) {
  const lines: Array<Record<string, unknown>> = []
  let now = 1_000_000
  const logger = createRootLogger({
    service: 'test',
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  })
  const log = createSampledLog({ logger, windowMs: 60_000, now: () => now, ...options })
  return {
    log,
    lines,
    advance(ms: number) {
      now += ms
    },
  }
}

describe('createSampledLog', () => {
  it('writes the first note of a key per window, and the count it left out on the next line', () => {
    const { log, lines, advance } = capturedLog()
    for (let note = 0; note < 1000; note += 1) log.note('a', { address: 'a' }, 'limited')
    log.note('b', { address: 'b' }, 'limited')
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', address: 'a', notLogged: 0, msg: 'limited' }),
      expect.objectContaining({ level: 'warn', address: 'b', notLogged: 0 }),
    ])
    advance(59_999)
    log.note('a', { address: 'a' }, 'limited')
    expect(lines).toHaveLength(2)
    advance(1)
    log.note('a', { address: 'a' }, 'limited')
    expect(lines).toHaveLength(3)
    expect(lines[2]).toMatchObject({ address: 'a', notLogged: 1000 })
  })

  it('remembers at most maxKeys keys: beyond them, one line per window for all the others', () => {
    const { log, lines, advance } = capturedLog({ maxKeys: 3 })
    for (let key = 0; key < 100; key += 1) log.note(`k${key}`, { key }, 'limited')
    expect(lines).toHaveLength(4)
    expect(lines[3]).toMatchObject({ key: 3, notLogged: 0 })
    expect(String(lines[3]?.msg)).toMatch(/more than 3 clients in 60 s/)
    // once their windows are over, the keys' places are free again
    advance(60_000)
    for (let key = 100; key < 103; key += 1) log.note(`k${key}`, { key }, 'limited')
    expect(lines).toHaveLength(7)
    log.note('k103', { key: 103 }, 'limited')
    expect(lines).toHaveLength(8)
    expect(lines[7]).toMatchObject({ key: 103, notLogged: 96 })
  })
})
