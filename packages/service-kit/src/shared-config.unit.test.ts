import { resolve } from 'node:path'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
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
      registry: defaultAssetRegistry,
    })
  })

  it('reads HOST, DATA_DIR and LOG_LEVEL, the database file inside the data directory', () => {
    const env = { HOST: '127.0.0.1', DATA_DIR: '/var/lib/chainpay', LOG_LEVEL: 'debug' }
    expect(readSharedConfig(readEnv(env))).toEqual({
      host: '127.0.0.1',
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'debug',
      registry: defaultAssetRegistry,
    })
  })

  it('extends the asset registry from ASSET_REGISTRY_FILE', () => {
    const file = JSON.stringify({
      assets: [
        {
          network: 'TRON',
          currency: 'USDD',
          tokenStandard: 'TRC20',
          decimals: 18,
          contract: 'TPYmHEhy5n8TCEfYGqW2rPxsghSfzghPDn',
        },
      ],
    })
    const config = readSharedConfig(readEnv({ ASSET_REGISTRY_FILE: '/etc/chainpay/assets.json' }), (path) => {
      expect(path).toBe('/etc/chainpay/assets.json')
      return file
    })
    expect(resolveAsset(config.registry, { network: 'TRON', currency: 'USDD' })).toMatchObject({
      decimals: 18,
    })
  })

  it('names ASSET_REGISTRY_FILE when the file cannot be read or is not a registry', () => {
    const read = readEnv({ ASSET_REGISTRY_FILE: '/nowhere.json' })
    readSharedConfig(read, () => {
      throw new Error('ENOENT: no such file or directory')
    })
    expect(configProblems(() => read.done())).toEqual([
      'ASSET_REGISTRY_FILE: /nowhere.json: ENOENT: no such file or directory',
    ])
  })

  it('leaves an unknown log level for done() to report', () => {
    const read = readEnv({ LOG_LEVEL: 'loud' })
    readSharedConfig(read)
    expect(configProblems(() => read.done())).toEqual([
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
    ])
  })
})
