import { resolve } from 'node:path'
import { defaultAssetRegistry, resolveAsset } from '@chainpay/domain'
import { readEnv } from '@chainpay/platform'
import { describe, expect, it } from 'vitest'
import { DEFAULT_HTTP_SERVER_LIMITS } from './http/server-limits.js'
import { checkDistinctPorts, METRICS_PORTS, readSharedConfig } from './shared-config.js'
import { configProblems } from './testing/config-problems.js'

describe('readSharedConfig', () => {
  it('has defaults for everything, loopback and the data directory made absolute', () => {
    expect(readSharedConfig(readEnv({}), 'projection')).toEqual({
      host: '127.0.0.1',
      metricsHost: '127.0.0.1',
      metricsPort: 9467,
      metricsToken: undefined,
      dataDir: resolve('data'),
      databaseFile: resolve('data', 'chainpay.sqlite'),
      logLevel: 'info',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
    })
  })

  it('reads HOST, METRICS_HOST, METRICS_PORT, METRICS_TOKEN, DATA_DIR and LOG_LEVEL, the database file inside the data directory', () => {
    const metricsToken = 'metrics-token-0123456789abcdef0123'
    const env = {
      HOST: '0.0.0.0',
      METRICS_HOST: '0.0.0.0',
      METRICS_PORT: '9100',
      METRICS_TOKEN: metricsToken,
      DATA_DIR: '/var/lib/chainpay',
      LOG_LEVEL: 'debug',
    }
    expect(readSharedConfig(readEnv(env), 'projection')).toEqual({
      host: '0.0.0.0',
      metricsHost: '0.0.0.0',
      metricsPort: 9100,
      metricsToken,
      dataDir: '/var/lib/chainpay',
      databaseFile: '/var/lib/chainpay/chainpay.sqlite',
      logLevel: 'debug',
      registry: defaultAssetRegistry,
      httpLimits: DEFAULT_HTTP_SERVER_LIMITS,
    })
  })

  it('refuses a METRICS_HOST off loopback without METRICS_TOKEN: /metrics would be open to anyone', () => {
    const read = readEnv({ METRICS_HOST: '0.0.0.0' })
    readSharedConfig(read, 'projection')
    expect(configProblems(() => read.done())).toEqual([
      'METRICS_TOKEN: required because METRICS_HOST (0.0.0.0) is not a loopback address: /metrics would answer anyone who reaches it (docs/operations.md, "Internal APIs")',
    ])
  })

  it('asks for no METRICS_TOKEN for an API host off loopback: /metrics is not served there', () => {
    const read = readEnv({ HOST: '0.0.0.0' })
    readSharedConfig(read, 'projection')
    expect(configProblems(() => read.done())).toEqual([])
  })

  it('gives each deployable its own METRICS_PORT, apart from every API port (docs/operations.md)', () => {
    const ports = Object.fromEntries(
      Object.keys(METRICS_PORTS).map((deployable) => [
        deployable,
        readSharedConfig(readEnv({}), deployable as keyof typeof METRICS_PORTS).metricsPort,
      ]),
    )
    expect(ports).toEqual({
      gateway: 9464,
      'payment-command': 9465,
      'chain-indexer': 9466,
      projection: 9467,
      notifier: 9468,
      // one process in place of the five, on the gateway's ports
      standalone: 9464,
    })
    const apiPorts = [8080, 8081, 8090, 8092, 8093, 8094]
    expect(Object.values(ports).filter((port) => apiPorts.includes(port))).toEqual([])
  })

  it('refuses a METRICS_PORT that is not a port', () => {
    const read = readEnv({ METRICS_PORT: '0' })
    readSharedConfig(read, 'gateway')
    expect(configProblems(() => read.done())).toEqual([
      "METRICS_PORT: expected an integer between 1 and 65535, got '0'",
    ])
  })

  it('reads the HTTP limits of every port (docs/operations.md, "HTTP limits")', () => {
    const env = {
      HTTP_REQUEST_TIMEOUT_MS: '20000',
      HTTP_HEADERS_TIMEOUT_MS: '5000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      HTTP_MAX_CONNECTIONS: '200',
    }
    expect(readSharedConfig(readEnv(env), 'projection').httpLimits).toEqual({
      requestTimeoutMs: 20_000,
      headersTimeoutMs: 5000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 200,
      // a tenth of the port's, when unset
      maxConnectionsPerAddress: 20,
    })
    const perAddress = { ...env, HTTP_MAX_CONNECTIONS_PER_ADDRESS: '50' }
    expect(readSharedConfig(readEnv(perAddress), 'projection').httpLimits.maxConnectionsPerAddress).toBe(50)
  })

  it('refuses a cap per address above the cap of the port', () => {
    const read = readEnv({ HTTP_MAX_CONNECTIONS: '100', HTTP_MAX_CONNECTIONS_PER_ADDRESS: '101' })
    readSharedConfig(read, 'gateway')
    expect(configProblems(() => read.done())).toEqual([
      'HTTP_MAX_CONNECTIONS_PER_ADDRESS: must be at most HTTP_MAX_CONNECTIONS (100), got 101',
    ])
  })

  it('refuses a headers timeout longer than the request timeout, and limits out of range', () => {
    const read = readEnv({
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_HEADERS_TIMEOUT_MS: '6000',
      HTTP_MAX_CONNECTIONS: '0',
    })
    readSharedConfig(read, 'projection')
    expect(configProblems(() => read.done())).toEqual([
      expect.stringMatching(/^HTTP_MAX_CONNECTIONS: /),
      'HTTP_HEADERS_TIMEOUT_MS: must be at most HTTP_REQUEST_TIMEOUT_MS (5000), got 6000',
    ])
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
    const config = readSharedConfig(
      readEnv({ ASSET_REGISTRY_FILE: '/etc/chainpay/assets.json' }),
      'projection',
      (path) => {
        expect(path).toBe('/etc/chainpay/assets.json')
        return file
      },
    )
    expect(resolveAsset(config.registry, { network: 'TRON', currency: 'USDD' })).toMatchObject({
      decimals: 18,
    })
  })

  it('names ASSET_REGISTRY_FILE when the file cannot be read or is not a registry', () => {
    const read = readEnv({ ASSET_REGISTRY_FILE: '/nowhere.json' })
    readSharedConfig(read, 'projection', () => {
      throw new Error('ENOENT: no such file or directory')
    })
    expect(configProblems(() => read.done())).toEqual([
      'ASSET_REGISTRY_FILE: /nowhere.json: ENOENT: no such file or directory',
    ])
  })

  it('leaves an unknown log level for done() to report', () => {
    const read = readEnv({ LOG_LEVEL: 'loud' })
    readSharedConfig(read, 'projection')
    expect(configProblems(() => read.done())).toEqual([
      "LOG_LEVEL: expected one of trace, debug, info, warn, error, fatal, silent, got 'loud'",
    ])
  })
})

describe('checkDistinctPorts', () => {
  it('names every pair of listeners that share a port', () => {
    const read = readEnv({})
    checkDistinctPorts(read, { PORT: 8080, ADMIN_PORT: 8081, METRICS_PORT: 8080 })
    checkDistinctPorts(read, { PORT: 9000, HEALTH_PORT: 9001 })
    expect(configProblems(() => read.done())).toEqual(['PORT and METRICS_PORT: must differ, both are 8080'])
  })
})
