// PostgreSQL for FerretDB's PostgreSQL backend (docs/capacity.md; scripts/up with
// FERRETDB_BACKEND=postgresql, the distributed benchmark): Debian's `postgresql` package, whose server
// never runs as root. Run by root (as scripts/up and the benchmarks are here), the server and initdb
// run as the package's `postgres` user, through setpriv, which executes the server in place so that
// the pid file holds the server's own pid; the cluster lives where that user can reach it: a fresh
// one under the temporary directory (the benchmark's), or one kept across restarts (scripts/up's).

import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { isAlive, startDetached, stopPidFile, tail, waitUntil } from './local-process.js'

const run = promisify(execFile)
const START_TIMEOUT_MS = 60_000
/** the role FerretDB connects as (trust authentication, loopback only) */
const ROLE = 'chainpay'
/** in the directory of a server whose cluster is its own: where that cluster is */
const TEMPORARY_CLUSTER_FILE = 'postgresql.temporary-cluster'

export interface LocalPostgresOptions {
  /** holds the log and the pid file; created if missing */
  directory: string
  port: number
  /**
   * where the cluster is kept across restarts (made, and initialised, when missing); the server user
   * must be able to reach it (see postgresClusterDirectory). None: a fresh cluster in the temporary
   * directory, deleted when stopped.
   */
  cluster?: string
}

/**
 * Where a cluster kept for `dataDir` lives: inside it, or, when this process is root (the server runs
 * as `postgres`, which may not reach a directory of root's), in the postgres user's home, one per
 * data directory.
 */
export function postgresClusterDirectory(dataDir: string): string {
  if (process.getuid?.() !== 0) return join(dataDir, 'servers', 'postgresql', 'cluster')
  const digest = createHash('sha256').update(dataDir).digest('hex').slice(0, 12)
  return join('/var/lib/postgresql', `chainpay-${digest}`)
}

export interface LocalPostgres {
  /** a postgres:// URL of `database`, created by startPostgres */
  url: string
  stop(): Promise<void>
}

/** the directory of Debian's PostgreSQL programs (the newest version installed), or an error saying what to install */
export function postgresBinaries(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(join(root, version, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const newest = versions[0]
  if (newest === undefined)
    throw new Error("PostgreSQL is not installed: install Debian's package (apt-get install postgresql)")
  return join(root, newest, 'bin')
}

/** how to run a PostgreSQL program: as the `postgres` user when this process is root */
function asServerUser(): {
  wrap(binary: string, args: string[]): [string, string[]]
  uid: number
  gid: number
} {
  if (process.getuid?.() !== 0) {
    const { uid, gid } = userInfo()
    return { wrap: (binary, args) => [binary, args], uid, gid }
  }
  // /etc/passwd: name:password:uid:gid:...
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'))
    ?.split(':')
  const [uid, gid] = [Number(entry?.[2]), Number(entry?.[3])]
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error(
      "no `postgres` user to run PostgreSQL as (never as root): install Debian's postgresql package",
    )
  return {
    wrap: (binary, args) => [
      'setpriv',
      ['--reuid', String(uid), '--regid', String(gid), '--clear-groups', '--', binary, ...args],
    ],
    uid,
    gid,
  }
}

/** starts PostgreSQL on 127.0.0.1:`port` with database `database` (created when missing) */
export async function startPostgres(
  options: LocalPostgresOptions,
  database = 'ferretdb',
): Promise<LocalPostgres> {
  const { directory, port } = options
  const bin = postgresBinaries()
  const user = asServerUser()
  mkdirSync(directory, { recursive: true })
  const pidFile = join(directory, 'postgresql.pid')
  const logFile = join(directory, 'postgresql.log')
  const cluster = options.cluster ?? mkdtempSync(join(tmpdir(), 'chainpay-postgresql-'))
  mkdirSync(cluster, { recursive: true, mode: 0o700 })
  chownSync(cluster, user.uid, user.gid)
  // a cluster of its own is deleted when stopped (stopPostgres reads where it is)
  if (options.cluster === undefined) writeFileSync(join(directory, TEMPORARY_CLUSTER_FILE), `${cluster}\n`)
  const data = join(cluster, 'data')
  if (!existsSync(join(data, 'PG_VERSION'))) {
    const initdbArgs = ['-D', data, '-U', ROLE, '-A', 'trust', '-E', 'UTF8', '--no-locale']
    const [initdb, wrappedArgs] = user.wrap(join(bin, 'initdb'), initdbArgs)
    await run(initdb, wrappedArgs, { maxBuffer: 16 * 1024 * 1024 })
  }
  const [postgres, postgresArgs] = user.wrap(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${cluster}`,
  ])
  const started = startDetached({ command: postgres, args: postgresArgs, logFile, pidFile })
  const psql = (sql: string) =>
    run(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', ROLE, '-d', 'postgres', '-tAc', sql])
  try {
    await waitUntil(async () => (await psql('SELECT 1')).stdout.trim() === '1', {
      timeoutMs: START_TIMEOUT_MS,
      giveUpIf: () => !isAlive(started.pid),
      describe: () =>
        `PostgreSQL did not start on 127.0.0.1:${port}; last lines of ${logFile}:\n${tail(logFile)}`,
    })
    const exists = await psql(`SELECT 1 FROM pg_database WHERE datname = '${database}'`)
    if (exists.stdout.trim() !== '1') await psql(`CREATE DATABASE ${database}`)
  } catch (error) {
    await stopPostgres(directory)
    throw error
  }
  return { url: `postgres://${ROLE}@127.0.0.1:${port}/${database}`, stop: () => stopPostgres(directory) }
}

/** stops the PostgreSQL that startPostgres started in `directory`, if any, and deletes a cluster of its own */
export async function stopPostgres(directory: string): Promise<void> {
  // SIGINT: PostgreSQL's fast shutdown, which does not wait for its clients to disconnect
  await stopPidFile(join(directory, 'postgresql.pid'), 'SIGINT')
  const clusterFile = join(directory, TEMPORARY_CLUSTER_FILE)
  if (!existsSync(clusterFile)) return
  rmSync(readFileSync(clusterFile, 'utf8').trim(), { recursive: true, force: true })
  rmSync(clusterFile, { force: true })
}
