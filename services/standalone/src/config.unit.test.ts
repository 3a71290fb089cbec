import { resolve } from 'node:path'
import { configProblems } from '@chainpay/service-kit/testing'
import { describe, expect, it } from 'vitest'
import { readStandaloneConfig } from './config.js'

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  return configProblems(() => readStandaloneConfig(env))
}

describe('readStandaloneConfig', () => {
  it('has defaults for everything', () => {
    expect(readStandaloneConfig({})).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      adminHost: '127.0.0.1',
      adminPort: 8081,
      dataDir: resolve('data'),
      logLevel: 'info',
      sqliteSynchronous: 'NORMAL',
      blockIntervalMs: { TRON: 300, SOLANA: 200 },
    })
  })

  it('reports a port shared by both APIs with the other problems', () => {
    expect(problemsOf({ PORT: '9000', ADMIN_PORT: '9000', LOG_LEVEL: 'loud' })).toEqual([
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
      'PORT and ADMIN_PORT: must differ, both are 9000',
    ])
  })
})
