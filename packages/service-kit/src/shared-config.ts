// The settings every deployable reads alike, so that the five of one installation (or standalone,
// which runs them all) agree on where their shared database file is and which assets exist without
// each spelling it out.

import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { type AssetRegistry, defaultAssetRegistry, mergeAssetRegistry } from '@chainpay/domain'
import { type EnvReader, LOG_LEVELS, type LogLevel } from '@chainpay/platform'
import { type HttpServerLimits, readHttpServerLimits } from './http/server-limits.js'
import { readServiceToken } from './service-token.js'

export interface SharedConfig {
  /** the interface the service's HTTP ports listen on; loopback unless HOST says otherwise */
  host: string
  /**
   * METRICS_HOST (default 127.0.0.1) and METRICS_PORT (each service its own default, METRICS_PORTS):
   * the listener that serves /metrics and nothing else, so that a scraper reaches no API
   * (docs/operations.md, "Ports and endpoints")
   */
  metricsHost: string
  metricsPort: number
  /**
   * METRICS_TOKEN: the bearer token /metrics requires; required when METRICS_HOST is not loopback
   * (docs/operations.md, "Internal APIs")
   */
  metricsToken: string | undefined
  dataDir: string
  /** the SQLite file in dataDir that every service of one installation opens */
  databaseFile: string
  logLevel: LogLevel
  /** the built-in asset registry, extended or overridden by ASSET_REGISTRY_FILE (docs/operations.md) */
  registry: AssetRegistry
  /** the limits of every HTTP port before authentication: HTTP_REQUEST_TIMEOUT_MS and the like */
  httpLimits: HttpServerLimits
}

/** reads a file's text; replaced in tests */
export type ReadTextFile = (path: string) => string

const readTextFile: ReadTextFile = (path) => readFileSync(path, 'utf8')

/**
 * Each deployable's METRICS_PORT by default: 9464 (the port registered for Prometheus exporters) and
 * up, apart from the API ports 8080 to 8094, so that the five services can run on one machine.
 * Standalone is one process in place of all five and takes the gateway's, as it takes its API ports.
 */
export const METRICS_PORTS = {
  gateway: 9464,
  'payment-command': 9465,
  'chain-indexer': 9466,
  projection: 9467,
  notifier: 9468,
  standalone: 9464,
} as const

export type Deployable = keyof typeof METRICS_PORTS

/**
 * HOST (default 127.0.0.1: an internal API is never exposed by accident), METRICS_HOST (default
 * 127.0.0.1) and METRICS_PORT (default METRICS_PORTS[deployable]), METRICS_TOKEN (required when
 * METRICS_HOST is not loopback), DATA_DIR (default ./data, made absolute), LOG_LEVEL (default info) and
 * ASSET_REGISTRY_FILE (default none: the built-in registry).
 */
export function readSharedConfig(
  read: EnvReader,
  deployable: Deployable,
  readFile: ReadTextFile = readTextFile,
): SharedConfig {
  const dataDir = resolve(read.string('DATA_DIR', { default: './data' }))
  const host = read.string('HOST', { default: '127.0.0.1' })
  const metricsHost = read.string('METRICS_HOST', { default: '127.0.0.1' })
  return {
    host,
    metricsHost,
    metricsPort: read.int('METRICS_PORT', { default: METRICS_PORTS[deployable], min: 1, max: 65535 }),
    metricsToken: readServiceToken(read, 'METRICS_TOKEN', {
      hostVariable: 'METRICS_HOST',
      host: metricsHost,
      serves: '/metrics',
    }),
    dataDir,
    databaseFile: join(dataDir, 'chainpay.sqlite'),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, { default: 'info' }),
    registry: readAssetRegistry(read, readFile),
    httpLimits: readHttpServerLimits(read),
  }
}

/**
 * Two listeners of one process cannot share a port: `ports` maps each port variable to its value
 * ({ PORT: 8090, METRICS_PORT: 9465 }); every pair that collides is a problem.
 */
export function checkDistinctPorts(read: EnvReader, ports: Record<string, number>): void {
  const entries = Object.entries(ports)
  for (const [index, [name, port]] of entries.entries()) {
    for (const [other, otherPort] of entries.slice(index + 1)) {
      if (port === otherPort) read.problem(`${name} and ${other}: must differ, both are ${port}`)
    }
  }
}

function readAssetRegistry(read: EnvReader, readFile: ReadTextFile): AssetRegistry {
  const file = read.optionalString('ASSET_REGISTRY_FILE')
  if (file === undefined) return defaultAssetRegistry
  try {
    return mergeAssetRegistry(defaultAssetRegistry, JSON.parse(readFile(file)))
  } catch (error) {
    read.problem(`ASSET_REGISTRY_FILE: ${file}: ${(error as Error).message}`)
    return defaultAssetRegistry
  }
}

export const CALLBACK_URL_POLICIES = ['production', 'development'] as const
/**
 * production: callback and webhook URLs https on public hosts only (docs/api.md, "POST /payments");
 * development: http, loopback and private hosts too
 */
export type CallbackUrlPolicy = (typeof CALLBACK_URL_POLICIES)[number]

/** CALLBACK_URL_POLICY, read alike by the gateway, payment-command and standalone */
export function readCallbackUrlPolicy(
  read: EnvReader,
  fallback: CallbackUrlPolicy = 'production',
): CallbackUrlPolicy {
  return read.oneOf('CALLBACK_URL_POLICY', CALLBACK_URL_POLICIES, { default: fallback })
}
