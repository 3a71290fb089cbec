import { describe, expect, it } from 'vitest'
import { ConfigError, readEnv } from './config.js'

function problemsOf(reader: { done(): void }): string[] {
  try {
    reader.done()
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

describe('readEnv', () => {
  it('reads every kind of value', () => {
    const env = readEnv({
      NAME: 'gateway',
      PORT: '8080',
      DEBUG: 'TRUE',
      HOSTS: ' a.example, b.example ,,',
      MODE: 'standalone',
    })
    expect(env.string('NAME')).toBe('gateway')
    expect(env.optionalString('NAME')).toBe('gateway')
    expect(env.int('PORT', { min: 1, max: 65535 })).toBe(8080)
    expect(env.bool('DEBUG', { default: false })).toBe(true)
    expect(env.list('HOSTS')).toEqual(['a.example', 'b.example'])
    expect(env.oneOf('MODE', ['standalone', 'distributed'] as const)).toBe('standalone')
    expect(() => env.done()).not.toThrow()
  })

  it('uses defaults for unset and empty variables', () => {
    const env = readEnv({ EMPTY: '', BLANK: '   ' })
    expect(env.string('EMPTY', { default: 'x' })).toBe('x')
    expect(env.optionalString('BLANK')).toBeUndefined()
    expect(env.int('PORT', { default: 3000, min: 1 })).toBe(3000)
    expect(env.bool('DEBUG', { default: true })).toBe(true)
    expect(env.list('HOSTS', { default: ['h'] })).toEqual(['h'])
    expect(env.list('OTHER')).toEqual([])
    expect(env.oneOf('MODE', ['a', 'b'] as const, { default: 'b' })).toBe('b')
    expect(problemsOf(env)).toEqual([])
  })

  it('reads process.env when no environment is given', () => {
    process.env.CHAINPAY_CONFIG_TEST = 'from-process'
    try {
      expect(readEnv().string('CHAINPAY_CONFIG_TEST')).toBe('from-process')
    } finally {
      delete process.env.CHAINPAY_CONFIG_TEST
    }
  })

  it.each([
    ['yes', true],
    ['on', true],
    ['1', true],
    ['no', false],
    ['off', false],
    ['0', false],
    ['False', false],
  ])('reads %s as %s', (text, expected) => {
    expect(readEnv({ FLAG: text }).bool('FLAG', { default: !expected })).toBe(expected)
  })

  it('collects every problem and reports them together', () => {
    const env = readEnv({ PORT: 'abc', WORKERS: '0', DEBUG: 'maybe', MODE: 'cluster', RATE: '2.5' })
    env.string('ADMIN_TOKEN')
    env.int('PORT', { min: 1, max: 65535 })
    env.int('WORKERS', { min: 1 })
    env.int('RATE', {})
    env.int('LIMIT', { max: 10 })
    env.bool('DEBUG', { default: false })
    env.oneOf('MODE', ['standalone', 'distributed'] as const)
    env.oneOf('ROLE', ['a', 'b'] as const)
    expect(problemsOf(env)).toEqual([
      'ADMIN_TOKEN: required',
      "PORT: expected an integer between 1 and 65535, got 'abc'",
      "WORKERS: expected an integer of at least 1, got '0'",
      "RATE: expected an integer, got '2.5'",
      'LIMIT: required',
      "DEBUG: expected true or false, got 'maybe'",
      "MODE: expected one of standalone, distributed, got 'cluster'",
      'ROLE: required',
    ])
  })

  it('reports the problems the caller records among the others, in the order found', () => {
    const env = readEnv({ PORT: '8080', ADMIN_PORT: '8080', LIMIT: 'none' })
    const port = env.int('PORT', { min: 1 })
    env.problem('KEY: expected 32 bytes, got 4')
    env.int('LIMIT', {})
    if (port === env.int('ADMIN_PORT', { min: 1 }))
      env.problem(`PORT and ADMIN_PORT: must differ, both are ${port}`)
    expect(problemsOf(env)).toEqual([
      'KEY: expected 32 bytes, got 4',
      "LIMIT: expected an integer, got 'none'",
      'PORT and ADMIN_PORT: must differ, both are 8080',
    ])
  })

  it('fails done() on a recorded problem alone', () => {
    const env = readEnv({ MODE: 'standalone' })
    env.string('MODE')
    env.problem('MODE: standalone cannot run with replicas')
    expect(() => env.done()).toThrow('invalid configuration:\n  - MODE: standalone cannot run with replicas')
  })

  it('throws a ConfigError whose message lists each problem on its own line', () => {
    const env = readEnv({ PORT: '70000' })
    env.int('PORT', { min: 1, max: 65535 })
    env.string('ADMIN_TOKEN')
    expect(() => env.done()).toThrow(ConfigError)
    expect(() => env.done()).toThrow(
      "invalid configuration:\n  - PORT: expected an integer between 1 and 65535, got '70000'\n  - ADMIN_TOKEN: required",
    )
  })

  it('rejects integers beyond the safe range and with an upper bound only', () => {
    const env = readEnv({ BIG: '9007199254740993', SMALL: '11' })
    env.int('BIG', {})
    env.int('SMALL', { max: 10 })
    expect(problemsOf(env)).toEqual([
      "BIG: expected an integer, got '9007199254740993'",
      "SMALL: expected an integer of at most 10, got '11'",
    ])
  })

  it('accepts negative integers when the range allows them', () => {
    expect(readEnv({ OFFSET: '-5' }).int('OFFSET', { min: -10 })).toBe(-5)
  })
})
