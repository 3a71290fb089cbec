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
   * METRICS_TOKEN: the bearer token /metrics requires; required when /metrics listens on a
   * non-loopback address (docs/operations.md, "Internal APIs")
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

/** where a service's /metrics listens, when not on HOST (the gateway's and standalone's admin port) */
export interface MetricsListener {
  hostVariable: string
  host: string
}

/**
 * HOST (default 127.0.0.1: an internal API is never exposed by accident), METRICS_TOKEN, DATA_DIR
 * (default ./data, made absolute), LOG_LEVEL (default info) and ASSET_REGISTRY_FILE (default none: the
 * built-in registry). METRICS_TOKEN is required when `metricsOn` (default HOST) is not loopback.
 */
export function readSharedConfig(
  read: EnvReader,
  readFile: ReadTextFile = readTextFile,
  metricsOn?: MetricsListener,
): SharedConfig {
  const dataDir = resolve(read.string('DATA_DIR', { default: './data' }))
  const host = read.string('HOST', { default: '127.0.0.1' })
  const metricsListener = metricsOn ?? { hostVariable: 'HOST', host }
  return {
    host,
    metricsToken: readServiceToken(read, 'METRICS_TOKEN', { ...metricsListener, serves: '/metrics' }),
    dataDir,
    databaseFile: join(dataDir, 'chainpay.sqlite'),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, { default: 'info' }),
    registry: readAssetRegistry(read, readFile),
    httpLimits: readHttpServerLimits(read),
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
