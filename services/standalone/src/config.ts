// Standalone configuration, read once from the environment at start.

import { resolve } from 'node:path'
import { LOG_LEVELS, type LogLevel, readEnv } from '@chainpay/platform'

export interface StandaloneConfig {
  host: string
  port: number
  adminHost: string
  adminPort: number
  dataDir: string
  logLevel: LogLevel
  sqliteSynchronous: 'NORMAL' | 'FULL'
  blockIntervalMs: { TRON: number; SOLANA: number }
  rateLimit: { max: number; windowMs: number }
  webhookRetrySchedule: string | undefined
  assetRegistryFile: string | undefined
  /** override the generated ones (standalone-secrets.json) */
  encryptionKey: string | undefined
  adminToken: string | undefined
}

export function readStandaloneConfig(env: NodeJS.ProcessEnv = process.env): StandaloneConfig {
  const read = readEnv(env)
  const config: StandaloneConfig = {
    host: read.string('HOST', { default: '0.0.0.0' }),
    port: read.int('PORT', { default: 8080, min: 1, max: 65535 }),
    adminHost: read.string('ADMIN_HOST', { default: '127.0.0.1' }),
    adminPort: read.int('ADMIN_PORT', { default: 8081, min: 1, max: 65535 }),
    dataDir: resolve(read.string('DATA_DIR', { default: './data' })),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, { default: 'info' }),
    sqliteSynchronous: read.oneOf('SQLITE_SYNCHRONOUS', ['NORMAL', 'FULL'], { default: 'NORMAL' }),
    // Fast blocks so that a development payment confirms in seconds; the required confirmations
    // stay the real ones (TRON 20, SOLANA 32).
    blockIntervalMs: {
      TRON: read.int('TRON_BLOCK_INTERVAL_MS', { default: 300, min: 10, max: 60_000 }),
      SOLANA: read.int('SOLANA_BLOCK_INTERVAL_MS', { default: 200, min: 10, max: 60_000 }),
    },
    rateLimit: {
      max: read.int('RATE_LIMIT_MAX', { default: 1200, min: 1 }),
      windowMs: read.int('RATE_LIMIT_WINDOW_MS', { default: 60_000, min: 1000 }),
    },
    webhookRetrySchedule: read.optionalString('WEBHOOK_RETRY_SCHEDULE'),
    assetRegistryFile: read.optionalString('ASSET_REGISTRY_FILE'),
    encryptionKey: read.optionalString('CHAINPAY_ENCRYPTION_KEY'),
    adminToken: read.optionalString('ADMIN_TOKEN'),
  }
  if (config.port === config.adminPort) {
    read.problem(`PORT and ADMIN_PORT: must differ, both are ${config.port}`)
  }
  read.done()
  return config
}
