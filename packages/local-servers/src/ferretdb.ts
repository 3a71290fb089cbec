// FerretDB v1 (the MongoDB wire protocol over SQLite) built with the machine's Go toolchain from
// deploy/local/ferretdb, which embeds FerretDB as a library (see the comment in its main.go).

import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { MongoClient } from 'mongodb'
import { isAlive, readPid, startDetached, stopPidFile, tail, waitUntil } from './local-process.js'
import { cacheDirectory, repositoryRoot } from './paths.js'

const run = promisify(execFile)

export const FERRETDB_VERSION = '1.24.2'
const START_TIMEOUT_MS = 60_000

export interface LocalFerretDbOptions {
  /** holds the SQLite files, the log and the pid file; created if missing */
  directory: string
  port: number
  /** a postgres:// URL: FerretDB's PostgreSQL backend (postgresql.ts) instead of SQLite files */
  postgresqlUrl?: string
}

export interface LocalFerretDb {
  url: string
  directory: string
  stop(): Promise<void>
  kill(): Promise<void>
  restart(): Promise<void>
}

/** the ferretdb binary, built with Go into the cache once per version of its recipe */
export async function installFerretDb(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const recipe = join(repositoryRoot, 'deploy/local/ferretdb')
  const digest = createHash('sha256')
    .update(readFileSync(join(recipe, 'main.go')))
    .update(readFileSync(join(recipe, 'go.sum')))
    .digest('hex')
    .slice(0, 12)
  const directory = join(cacheDirectory(env), `ferretdb-${FERRETDB_VERSION}-${digest}`)
  const binary = join(directory, 'ferretdb')
  if (existsSync(binary)) return binary
  mkdirSync(directory, { recursive: true })
  const staging = `${binary}.${process.pid}.partial`
  try {
    await run('go', ['build', '-trimpath', '-o', staging, '.'], {
      cwd: recipe,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' },
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (error) {
    rmSync(staging, { force: true })
    const detail = error instanceof Error ? error.message : String(error)
    throw new Error(
      `could not build FerretDB ${FERRETDB_VERSION} (needs Go 1.24+ on PATH and access to the Go module proxy): ${detail}`,
    )
  }
  renameSync(staging, binary)
  return binary
}

async function answers(url: string): Promise<boolean> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 1000, connectTimeoutMS: 1000 })
  try {
    await client.db('admin').command({ ping: 1 })
    return true
  } finally {
    await client.close()
  }
}

export async function startFerretDb(options: LocalFerretDbOptions): Promise<LocalFerretDb> {
  const binary = await installFerretDb()
  const { directory, port } = options
  const data = join(directory, 'data')
  mkdirSync(data, { recursive: true })
  const pidFile = join(directory, 'ferretdb.pid')
  const logFile = join(directory, 'ferretdb.log')
  const url = `mongodb://127.0.0.1:${port}/`

  const launch = async () => {
    const running = readPid(pidFile)
    if (running !== null && isAlive(running))
      throw new Error(`FerretDB already runs in ${directory} (pid ${running})`)
    const started = startDetached({
      command: binary,
      args: [
        '-listen-addr',
        `127.0.0.1:${port}`,
        ...(options.postgresqlUrl ? ['-postgresql-url', options.postgresqlUrl] : ['-data-dir', data]),
      ],
      logFile,
      pidFile,
      env: { ...process.env, DO_NOT_TRACK: '1' },
    })
    await waitUntil(
      async () => {
        return await answers(url)
      },
      {
        timeoutMs: START_TIMEOUT_MS,
        giveUpIf: () => !isAlive(started.pid),
        describe: () => `FerretDB did not answer on ${url}; last lines of ${logFile}:\n${tail(logFile)}`,
      },
    ).catch(async (error) => {
      await stopPidFile(pidFile, 'SIGKILL')
      throw error
    })
  }

  await launch()
  return {
    url,
    directory,
    stop: () => stopPidFile(pidFile, 'SIGTERM'),
    kill: () => stopPidFile(pidFile, 'SIGKILL'),
    restart: launch,
  }
}
