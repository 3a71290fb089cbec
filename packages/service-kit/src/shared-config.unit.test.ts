import { resolve } from 'node:path'
import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { readSharedConfig } from './shared-config.js'
import { configProblems } from './testing/config-problems.js'

describe('readSharedConfig', () => {
  it('has defaults for everything, the data directory made absolute', () => {
    expect(readSharedConfig(readEnv({}))).toEqual({
      host: '0.0.0.0',
      dataDir: resolve('data'),
      databaseFile: resolve('data', 'chainpay.sqlite'),
      logLevel: 'info',
    })
  })

  it('reads HOST, DATA_DIR and LOG_LEVEL, the database file inside the data directory', () => {
    const env = { HOST: '127.0.0.1', DATA_DIR: '/var/lib/chainpay', LOG_LEVEL: 'debug' }
    expect(readSharedConfig(readEnv(env))).toEqual({
      host: '127.0.0.1',
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'debug',
    })
  })

  it('leaves an unknown log level for done() to report', () => {
    const read = readEnv({ LOG_LEVEL: 'loud' })
    readSharedConfig(read)
    expect(configProblems(() => read.done())).toEqual([
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
    ])
  })
})
