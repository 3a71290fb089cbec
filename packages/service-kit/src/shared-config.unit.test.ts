import { resolve } from 'node:path'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { readSharedConfig } from './shared-config.js'
import { configProblems } from './testing/config-problems.js'

describe('readSharedConfig', () => {
  it('has defaults for everything, loopback and the data directory made absolute', () => {
    expect(readSharedConfig(readEnv({}))).toEqual({
      host: '127.0.0.1',
      metricsToken: undefined,
      dataDir: resolve('data'),
      databaseFile: resolve('data', 'chainpay.sqlite'),
      logLevel: 'info',
      registry: defaultAssetRegistry,
    })
  })

  it('reads HOST, METRICS_TOKEN, DATA_DIR and LOG_LEVEL, the database file inside the data directory', () => {
    const metricsToken = 'metrics-token-0123456789abcdef0123'
    const env = {
      HOST: '0.0.0.0',
      METRICS_TOKEN: metricsToken,
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'debug',
    }
    expect(readSharedConfig(readEnv(env))).toEqual({
      host: '0.0.0.0',
      metricsToken,
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'debug',
      registry: defaultAssetRegistry,
    })
  })

  it('refuses a HOST off loopback without METRICS_TOKEN: /metrics would be open to anyone', () => {
    const read = readEnv({ HOST: '0.0.0.0' })
    readSharedConfig(read)
    expect(configProblems(() => read.done())).toEqual([
      'METRICS_TOKEN: required because HOST (0.0.0.0) is not a loopback address: /metrics would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
    ])
  })

  it('asks for METRICS_TOKEN by the host /metrics listens on, when that is not HOST', () => {
    const onAdmin = { hostVariable: 'ADMIN_HOST', host: '10.0.0.7' }
    const read = readEnv({ HOST: '0.0.0.0' })
    readSharedConfig(read, undefined, onAdmin)
    expect(configProblems(() => read.done())).toEqual([
      expect.stringMatching(
        /^METRICS_TOKEN: required because ADMIN_HOST \(10\.0\.0\.7\) is not a loopback address/,
      ),
    ])
    const loopbackAdmin = readEnv({ HOST: '0.0.0.0' })
    readSharedConfig(loopbackAdmin, undefined, { hostVariable: 'ADMIN_HOST', host: '127.0.0.1' })
    expect(configProblems(() => loopbackAdmin.done())).toEqual([])
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
