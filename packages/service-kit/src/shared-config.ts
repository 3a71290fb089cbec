// The settings every distributed deployable reads alike, so that the five of one installation agree
// on where their shared database file is without each spelling it out.

import { join, resolve } from 'node:path'
import { type EnvReader, LOG_LEVELS, type LogLevel } from '@chainpay/platform'

export interface SharedConfig {
  /** the interface the service's HTTP ports listen on */
  host: string
  dataDir: string
  /** the SQLite file in dataDir that every service of one installation opens */
  databaseFile: string
  logLevel: LogLevel
}

/** HOST (default 0.0.0.0), DATA_DIR (default ./data, made absolute) and LOG_LEVEL (default info) */
export function readSharedConfig(read: EnvReader): SharedConfig {
  const dataDir = resolve(read.string('DATA_DIR', { default: './data' }))
  return {
    host: read.string('HOST', { default: '0.0.0.0' }),
    dataDir,
    databaseFile: join(dataDir, 'chainpay.sqlite'),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, { default: 'info' }),
  }
}
